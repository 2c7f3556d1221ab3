import { encodeFunctionData, type Address } from "viem";
import type { ChainSendDeps } from "../../context.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";

/**
 * Records on-chain that `contributor` works on the issue (the spec's
 * Contribute, and the /attempt command): RepoRewards v2 then refunds that
 * issue's bounty only after a visible delay, and a pool manager can pay it
 * only to a claimant, so a stolen manager key cannot take it. An operator
 * transaction through the outbox, once per contributor and issue; not waited
 * for (the outbox sends it, and the claim holds in the database already).
 */
export async function recordClaimOnChain(ctx: ChainSendDeps, input: { repoId: number; issueNumber: number; contributor: Address }): Promise<void> {
  await ctx.outbox.submitOnce({
    userId: null,
    idempotencyKey: `claim:${input.repoId}:${input.issueNumber}:${input.contributor.toLowerCase()}`,
    request: input,
    kind: "claim_bounty",
    githubRepoId: input.repoId,
    issueNumber: input.issueNumber,
    intent: { repoId: input.repoId, issueNumber: input.issueNumber, contributor: input.contributor },
    signer: { kind: "operator" },
    to: ctx.chain.config.contracts.rewards,
    data: encodeFunctionData({
      abi: RepoRewardsAbi,
      functionName: "claimBounty",
      args: [BigInt(input.repoId), BigInt(input.issueNumber), input.contributor],
    }),
  });
}
