import { and, eq } from "drizzle-orm";
import { encodeFunctionData } from "viem";
import type { AppContext } from "../../context.ts";
import { bounties, chainEvents } from "../../../db/schema/index.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";

/**
 * Completes the refunds of claimed bounties once their delay is over. On
 * RepoRewards v2 a cancel of a bounty someone registered for (an issue closed
 * as not planned) only requests the refund (BountyCancelRequested); the same
 * call CLAIM_CANCEL_DELAY later returns the money to the pool. This pass, run
 * with the hourly manager review, sends that second call for every requested
 * refund that is due and whose bounty is still open (a payment in between
 * voids the request).
 */
export async function completeDueRefunds(ctx: AppContext): Promise<number> {
  // The chain's clock decides when a refund is due, not this machine's.
  const nowSeconds = (await ctx.chain.client.getBlock({ blockTag: "latest" })).timestamp;
  const requested = await ctx.database.db
    .selectDistinct({ repoId: chainEvents.repoId, issueNumber: chainEvents.issueNumber })
    .from(chainEvents)
    .innerJoin(bounties, and(eq(bounties.githubRepoId, chainEvents.repoId), eq(bounties.issueNumber, chainEvents.issueNumber)))
    .where(and(eq(chainEvents.name, "BountyCancelRequested"), eq(bounties.status, "open")));
  let sent = 0;
  for (const { repoId, issueNumber } of requested) {
    if (repoId === null || issueNumber === null) continue;
    const read = { address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi } as const;
    const readyAt = await ctx.chain.client.readContract({ ...read, functionName: "cancelReadyAt", args: [BigInt(repoId), BigInt(issueNumber)] });
    if (readyAt === 0n || readyAt > nowSeconds) continue;
    await ctx.outbox.submitOnce({
      userId: null,
      idempotencyKey: `refund:${repoId}:${issueNumber}:${readyAt}`,
      request: { repoId, issueNumber, readyAt: readyAt.toString() },
      kind: "cancel_bounty",
      githubRepoId: repoId,
      issueNumber,
      intent: { repoId, issueNumber, reason: "requested refund of a claimed bounty, delay over" },
      signer: { kind: "operator" },
      to: ctx.chain.config.contracts.rewards,
      data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "cancelBounty", args: [BigInt(repoId), BigInt(issueNumber)] }),
    });
    sent++;
  }
  return sent;
}
