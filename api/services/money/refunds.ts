import { and, eq, inArray, isNull } from "drizzle-orm";
import { encodeFunctionData } from "viem";
import type { AppContext } from "../../context.ts";
import { bounties, chainEvents, chainTransactions } from "../../../db/schema/index.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";

/**
 * Completes the refunds of claimed bounties once their delay is over. On
 * RepoRewards v2 a cancel of a bounty someone registered for (an issue closed
 * as not planned) only requests the refund (BountyCancelRequested); the same
 * call CLAIM_CANCEL_DELAY later returns the money to the pool. This pass, run
 * with the hourly manager review, sends that second call for every requested
 * refund that is due and whose bounty is still open (a payment in between
 * voids the request).
 */
export async function completeDueRefunds(ctx: Pick<AppContext, "database" | "chain" | "outbox">): Promise<number> {
  // The chain's clock decides when a refund is due, not this machine's.
  const nowSeconds = (await ctx.chain.client.getBlock({ blockTag: "latest" })).timestamp;
  const requested = await ctx.database.db
    .selectDistinct({ repoId: chainEvents.repoId, issueNumber: chainEvents.issueNumber })
    .from(chainEvents)
    .innerJoin(bounties, and(eq(bounties.githubRepoId, chainEvents.repoId), eq(bounties.issueNumber, chainEvents.issueNumber)))
    .where(and(eq(chainEvents.name, "BountyCancelRequested"), eq(bounties.status, "open"), isNull(chainEvents.oldChain)));
  let sent = 0;
  for (const { repoId, issueNumber } of requested) {
    if (repoId === null || issueNumber === null) continue;
    const read = { address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi } as const;
    const { cancelReadyAt: readyAt, cancelWhole } = await ctx.chain.client.readContract({ ...read, functionName: "getBountyDetails", args: [BigInt(repoId), BigInt(issueNumber)] });
    if (readyAt === 0n || readyAt > nowSeconds) continue;
    // The same call that requested it (v3): cancelBounty for the whole bounty, cancelPoolShare for the pool's share
    // (the other would request anew and restart the delay).
    const functionName = cancelWhole ? "cancelBounty" : "cancelPoolShare";
    // The one payout decision: a bounty earned since the request (a merged pull request, a split, a hold) is not
    // cancelled; its money goes to the people who earned it.
    const decision = decide(await bountyFacts(ctx, repoId, issueNumber), { kind: "cancel" });
    if (!decision.ok) continue;
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
      data: encodeFunctionData({ abi: RepoRewardsAbi, functionName, args: [BigInt(repoId), BigInt(issueNumber)] }),
    });
    sent++;
  }
  return sent;
}

/**
 * Runs the queued outflows that are due (RepoRewards v2 queues a payout or
 * withdrawal over the daily cap for QUEUE_DELAY): anyone may run one then,
 * and the platform does so for those its own outbox queued, in the same
 * hourly pass. One the guardian cancelled, or someone already ran, is skipped.
 */
export async function executeDueOutflows(ctx: Pick<AppContext, "database" | "chain" | "outbox">): Promise<number> {
  const nowSeconds = (await ctx.chain.client.getBlock({ blockTag: "latest" })).timestamp;
  const events = await ctx.database.db
    .select({ name: chainEvents.name, args: chainEvents.args, txHash: chainEvents.txHash })
    .from(chainEvents)
    .where(and(inArray(chainEvents.name, ["OutflowQueued", "OutflowExecuted", "OutflowCancelled"]), isNull(chainEvents.oldChain)));
  const done = new Set(events.filter((e) => e.name !== "OutflowQueued").map((e) => (JSON.parse(e.args) as { id: string }).id));
  const queuedByUs = new Set(
    (await ctx.database.db.select({ txHash: chainTransactions.txHash }).from(chainTransactions).where(inArray(chainTransactions.txHash, events.filter((e) => e.name === "OutflowQueued").map((e) => e.txHash)))).map((r) => r.txHash),
  );
  let sent = 0;
  for (const event of events) {
    if (event.name !== "OutflowQueued" || !queuedByUs.has(event.txHash)) continue;
    const args = JSON.parse(event.args) as { id: string; repoId: string; issueNumber: string; readyAt: string };
    if (done.has(args.id) || BigInt(args.readyAt) > nowSeconds) continue;
    await ctx.outbox.submitOnce({
      userId: null,
      idempotencyKey: `execute-outflow:${args.id}`,
      request: { id: args.id },
      kind: "execute_outflow",
      githubRepoId: Number(args.repoId),
      ...(args.issueNumber !== "0" ? { issueNumber: Number(args.issueNumber) } : {}),
      intent: { outflowId: args.id, repoId: Number(args.repoId), issueNumber: Number(args.issueNumber) },
      signer: { kind: "operator" },
      to: ctx.chain.config.contracts.rewards,
      data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "executeOutflow", args: [BigInt(args.id)] }),
    });
    sent++;
  }
  return sent;
}
