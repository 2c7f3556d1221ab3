import { encodeFunctionData, type Address, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";

/**
 * The contract call that pays a split (contract v3, docs/contracts.md): `payBountySplit` pays the whole
 * open bounty to distinct recipients with amounts > 0 summing exactly to it, the pull request's author first
 * (the platform gives them the rounding remainder). If any part must wait (young money, a new recipient above
 * the threshold, over a cap), the contract queues the whole split as one outflow.
 * With people who have no wallet (`held`: their GitHub ids and amounts), `payBountySplitHeld` (operator only)
 * pays the others the same way and escrows each held part for its GitHub user (BountyShareHeld, a held tip),
 * paid to the address they register with `payTip` (heldSharePayData).
 */
export function splitPayoutData(input: {
  repoId: number;
  issueNumber: number;
  recipients: Address[];
  amounts: bigint[];
  held?: { githubUserId: number; amount: bigint }[];
}): Hex {
  if (input.held?.length) {
    return encodeFunctionData({
      abi: RepoRewardsAbi,
      functionName: "payBountySplitHeld",
      args: [
        BigInt(input.repoId),
        BigInt(input.issueNumber),
        input.recipients,
        input.amounts,
        input.held.map((h) => BigInt(h.githubUserId)),
        input.held.map((h) => h.amount),
      ],
    });
  }
  return encodeFunctionData({
    abi: RepoRewardsAbi,
    functionName: "payBountySplit",
    args: [BigInt(input.repoId), BigInt(input.issueNumber), input.recipients, input.amounts],
  });
}

/** The operator pays a held share (the escrow's tip `tipId`) to the wallet its person registered. */
export function heldSharePayData(tipId: bigint, to: Address): Hex {
  return encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payTip", args: [tipId, to] });
}
