import { encodeFunctionData, type Abi, type Address, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";

/**
 * The contract call that pays one person's share of a bounty. Contract v3
 * pays split payouts that sum to the bounty (branch v3-contract); until it is
 * deployed there is no such call, and a due split waits (logged on every
 * release pass) rather than being paid any other way.
 */
export const SHARE_FUNCTION = "payBountyShare";

export class ContractLacksSplits extends Error {
  constructor() {
    super(`the rewards contract has no ${SHARE_FUNCTION}: split payouts need contract v3`);
    this.name = "ContractLacksSplits";
  }
}

export function contractPaysShares(abi: Abi = RepoRewardsAbi as Abi): boolean {
  return abi.some((item) => item.type === "function" && item.name === SHARE_FUNCTION);
}

export function shareCallData(input: { repoId: number; issueNumber: number; to: Address; amount: bigint }, abi: Abi = RepoRewardsAbi as Abi): Hex {
  if (!contractPaysShares(abi)) throw new ContractLacksSplits();
  return encodeFunctionData({ abi, functionName: SHARE_FUNCTION, args: [BigInt(input.repoId), BigInt(input.issueNumber), input.to, input.amount] });
}
