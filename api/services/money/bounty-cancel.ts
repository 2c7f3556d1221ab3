/**
 * Cancelling a bounty back to the pool (beyond the spec, so money is never stuck): the whole bounty, or only the
 * pool's share when funders' shares are on it, or a refund request when someone claimed it on-chain.
 */
import { and, eq } from "drizzle-orm";
import { encodeFunctionData } from "viem";
import type { AppContext } from "../../context.ts";
import { bountyClaims, type User } from "../../../db/schema/index.ts";
import { conflict, ErrorCode } from "../../errors.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { requireManagedRepository } from "./access.ts";
import { transactionResult, type TransactionResult } from "./transaction-result.ts";
import { isAwaiting } from "./awaiting.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";
import { fixesBesideAdminCheck } from "../payouts/settle.ts";
import { withBountyLock } from "./pool-guard.ts";
import { BOUNTY_WAIT_MS } from "./bounty-lookups.ts";

/**
 * Beyond the spec, so money is never stuck: the pool manager can cancel an
 * unpaid bounty back to the pool while nobody has registered to work on it,
 * or when it awaits their decision (its issue closed); never one held for
 * the person who earned it. The pool manager cancels the pool's part (issue 29):
 * a bounty with funders' shares on it (the contract's `boosted`) is cancelled
 * with `cancelPoolShare`, which takes the pool's share back and leaves the bounty
 * open on its funders' shares (a community bounty); without them, `cancelBounty`
 * ends it as before. A funder's share that lands between the check and the
 * cancellation is refunded by the hourly pass (refundDueBoosts). A bounty awaiting
 * their decision (its issue is closed) ends as a whole, and the hourly pass refunds
 * every funder; closing the issue as not planned with nobody on it still cancels
 * everything at once (github-events/issues.ts).
 */
export async function cancelBounty(
  ctx: Pick<AppContext, "env" | "database" | "log" | "keyring" | "chain" | "outbox" | "indexer">,
  input: { user: User; repoId: number; issueNumber: number; githubRepoFullName?: string | null; idempotencyKey: string },
): Promise<TransactionResult> {
  const request = { route: "cancel_bounty", repoId: input.repoId, issueNumber: input.issueNumber };
  let tx = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (!tx) {
    // A merged fix whose webhook was lost (an outage) is not overtaken by a cancellation: asked of GitHub first, beside
    // the admin check (both GitHub round trips; for pool managers only, and its answer used only once that check passed).
    const fixesAsked = fixesBesideAdminCheck(ctx, input.user, input.repoId, input.issueNumber);
    await requireManagedRepository(ctx, input.user, { repoId: input.repoId, fullName: input.githubRepoFullName, orRegisteredName: true, action: "cancelBounty" });
    const known = await fixesAsked;
    // Under the bounty's lock, like a Release: a payout or cancellation of this bounty on its way refuses this one (409).
    // Only the row is written under it, fenced (the next holder sees it settling from then on); it is sent after.
    const queued = await withBountyLock(ctx, input.repoId, input.issueNumber, async (lock) => {
      const earlier = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
      if (earlier) return earlier;
      // The one payout decision: nothing settling, open, not earned by anyone (held, shared, committed, a merged fix).
      const decision = decide(await bountyFacts(ctx, input.repoId, input.issueNumber, { withMoney: known.fixes.length > 0 }), { kind: "cancel", fixes: known.fixes });
      if (!decision.ok) throw decision.refusal;
      /** Someone claimed it on-chain: v2 only records the request; the hourly pass returns it after the delay (refunds.ts). */
      let refundRequest = false;
      /** Funders' shares are on it: only the pool's share goes back (cancelPoolShare). */
      let poolShareOnly = false;
      const shares = await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(input.repoId), BigInt(input.issueNumber)] });
      if (shares.poolShare === 0n) throw conflict("The pool has nothing on this bounty: it is its funders' (each can take their own share back).", "Nothing of the pool's", ErrorCode.NO_POOL_SHARE);
      // Awaiting the pool manager's decision means the issue is closed: the whole bounty ends then, and the hourly pass
      // refunds every funder (refundDueBoosts). A cancellation requested earlier (a claimed bounty) is completed as requested.
      const awaiting = await isAwaiting(ctx, input.repoId, input.issueNumber);
      poolShareOnly = shares.cancelReadyAt > 0n ? !shares.cancelWhole : shares.boosted > 0n && !awaiting;
      // The contract's own record too (RepoRewards v2): a claimed bounty is refunded only after a visible delay.
      const onChainClaims = await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "claimants", args: [BigInt(input.repoId), BigInt(input.issueNumber)] });
      // Awaiting the pool manager's decision (the issue is closed): cancelling is one of the two decisions, whoever registered.
      if (!awaiting) {
        const claims = await ctx.database.db
          .select({ userId: bountyClaims.userId })
          .from(bountyClaims)
          .where(and(eq(bountyClaims.githubRepoId, input.repoId), eq(bountyClaims.issueNumber, input.issueNumber)))
          .limit(1);
        if (claims.length || onChainClaims.length) throw conflict("Someone is already working on this issue: the bounty can no longer be cancelled.", "Conflict", ErrorCode.SOMEONE_WORKING);
      }
      refundRequest = onChainClaims.length > 0;
      if (refundRequest) {
        const readyAt = (await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "cancelReadyAt", args: [BigInt(input.repoId), BigInt(input.issueNumber)] })) as bigint;
        if (readyAt > 0n) {
          const { timestamp } = await ctx.chain.client.getBlock({ blockTag: "latest" });
          // Requested earlier and not due yet: say when. Due: this call carries it out (the hourly pass would too).
          if (readyAt > timestamp) throw conflict(`The refund is already requested: the bounty returns to the pool after ${new Date(Number(readyAt) * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC.`, "Refund requested", ErrorCode.REFUND_REQUESTED);
          refundRequest = false;
        }
      }
      const { tx: submitted } = await ctx.outbox.enqueue(
        {
        userId: input.user.id,
        idempotencyKey: input.idempotencyKey,
        request,
        kind: "cancel_bounty",
        githubRepoId: input.repoId,
        issueNumber: input.issueNumber,
        intent: { repoId: input.repoId, issueNumber: input.issueNumber, refundRequest, poolShareOnly },
        signer: { kind: "operator" },
        to: ctx.chain.config.contracts.rewards,
        data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: poolShareOnly ? "cancelPoolShare" : "cancelBounty", args: [BigInt(input.repoId), BigInt(input.issueNumber)] }),
        },
        undefined,
        { replayChecked: true, fence: lock.fence },
      );
      return submitted;
    });
    tx = await ctx.outbox.untilBroadcast(queued);
  }
  const intent = JSON.parse(tx.intent) as { refundRequest?: boolean; poolShareOnly?: boolean };
  const requested = intent.refundRequest === true;
  const messages = requested
    ? { pending: "Refund request submitted", confirmed: `Refund requested: a contributor claimed this bounty, so ${intent.poolShareOnly ? "the pool's share" : "it"} returns to the pool after the contract's delay`, failedTitle: "Failed to cancel bounty" }
    : intent.poolShareOnly
      ? { pending: "Cancellation submitted", confirmed: "The pool's share is back in the pool; the funders' shares stay on the issue as a community bounty", failedTitle: "Failed to cancel bounty" }
      : { pending: "Cancellation submitted", confirmed: "Bounty cancelled; the amount is back in the pool", failedTitle: "Failed to cancel bounty" };
  const settled = await ctx.outbox.waitForSettled(tx, BOUNTY_WAIT_MS);
  if (settled.status === "confirmed") await ctx.indexer.catchUp();
  return transactionResult(ctx, settled, messages);
}
