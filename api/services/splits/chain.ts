import { encodeFunctionData, type Address, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";

/**
 * The contract call that pays a split (contract v3, docs/contracts-v3.md): `payBountySplit` pays the whole
 * open bounty to distinct recipients with amounts > 0 summing exactly to it, the pull request's author first
 * (the platform gives them the rounding remainder). If any part must wait (young money, a new recipient above
 * the threshold, over a cap), the contract queues the whole split as one outflow.
 */
export function splitPayoutData(input: { repoId: number; issueNumber: number; recipients: Address[]; amounts: bigint[] }): Hex {
  return encodeFunctionData({
    abi: RepoRewardsAbi,
    functionName: "payBountySplit",
    args: [BigInt(input.repoId), BigInt(input.issueNumber), input.recipients, input.amounts],
  });
}
