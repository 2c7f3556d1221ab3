/**
 * Boosts (issue 29, items 1 and 3): any signed-in user with a wallet adds to an open issue's bounty, from
 * their own wallet, in the bounty's currency; the first boost of an issue without a bounty opens a community
 * bounty in its currency (community.ts). Each boost is one funder's share, recorded on-chain by the contract
 * (v3) and here as a row:
 *
 *   pending --(funding confirmed)--> active --(merged fix paid)--> paid
 *      |                               |
 *      +--(failed / reverted)--> failed +--(expiry / cancel / not planned)--> refunding --(confirmed)--> refunded
 *
 * Money is never forfeited: every way out of `active` other than a payout is a refund of exactly the share,
 * to the funder's address, by the operator through the outbox under the key `boost-refund:<id>` (replays and
 * restarts re-find the same transaction; the contract refuses a second refund of a share). The row moves to
 * `refunding` before the transaction is queued, so a crash in between leaves a row the next pass finishes.
 * The daily funding limit (1000 XDC, rolling 24 h) counts per funder across pool fundings and XDC boosts, checked
 * by money/limits.ts inside the write transaction that queues the boost.
 *
 * This file is the mirror: it moves each row along that machine from what the chain says (the indexed events and
 * the outbox's receipts), and closes a community bounty whose shares are all gone. Creating a boost is
 * boost-create.ts, refunds boost-refunds.ts, reads boost-read.ts, the comment's intent boost-intent.ts.
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { bountyBoosts, chainEvents, chainTransactions, communityBounties, type BountyBoost, type RefundReason } from "../../../db/schema/index.ts";
import { openCommunityBountiesLeftByPool } from "./pool-left.ts";

/** How often the mirror pass runs (a boost shows as active within about this long of its confirmation). */
export const BOOST_MIRROR_INTERVAL_MS = 1_000;

/**
 * The mirror of the funders' shares (run by the hourly pass, after the webhook that may have moved them, and
 * before any read that must be exact). The chain decides, through the indexed events (chain_events) and the
 * outbox's receipts:
 * - pending -> active when the funding transaction is confirmed; -> failed when it failed or reverted;
 * - active or refunding -> refunded when a BoostRefunded event for the funder on that issue comes after the
 *   boost (whoever sent it: the platform, the funder, anyone), or the platform's refund is confirmed;
 * - active -> paid when a BountyPaid event of the issue comes after the boost.
 */
export async function settleBoosts(ctx: Pick<AppContext, "database" | "changes">, now = Date.now()): Promise<number> {
  const db = ctx.database.db;
  const rows = await db
    .select({ boost: bountyBoosts, fund: chainTransactions })
    .from(bountyBoosts)
    .leftJoin(chainTransactions, eq(chainTransactions.id, bountyBoosts.fundTxId))
    .where(inArray(bountyBoosts.status, ["pending", "active", "refunding"]));
  if (!rows.length) return 0;
  const issues = [...new Set(rows.map((r) => `${r.boost.githubRepoId}:${r.boost.issueNumber}`))];
  const events = await db
    .select({ name: chainEvents.name, repoId: chainEvents.repoId, issueNumber: chainEvents.issueNumber, blockNumber: chainEvents.blockNumber, logIndex: chainEvents.logIndex, args: chainEvents.args, txHash: chainEvents.txHash })
    .from(chainEvents)
    .where(and(inArray(chainEvents.name, ["BoostRefunded", "BountyPaid"]), isNull(chainEvents.oldChain), inArray(sql`${chainEvents.repoId} || ':' || ${chainEvents.issueNumber}`, issues)));
  const refundTxs = await db
    .select({ id: chainTransactions.id, status: chainTransactions.status })
    .from(chainTransactions)
    .where(inArray(chainTransactions.id, rows.map((r) => r.boost.refundTxId).filter((id): id is string => Boolean(id))));
  const refundStatus = new Map(refundTxs.map((r) => [r.id, r.status]));
  let changed = 0;
  const touched = new Set<string>();
  const move = async (boost: BountyBoost, from: BountyBoost["status"], to: BountyBoost["status"], extra: Partial<BountyBoost> = {}) => {
    const done = await db
      .update(bountyBoosts)
      .set({ status: to, settledAt: new Date(now), ...extra })
      .where(and(eq(bountyBoosts.id, boost.id), eq(bountyBoosts.status, from)))
      .returning({ id: bountyBoosts.id });
    if (!done.length) return;
    changed++;
    touched.add(`${boost.githubRepoId}:${boost.issueNumber}`);
  };
  for (const { boost, fund } of rows) {
    if (boost.status === "pending") {
      if (fund?.status === "confirmed") await move(boost, "pending", "active");
      else if (fund?.status === "failed" || fund?.status === "reverted") await move(boost, "pending", "failed");
      continue;
    }
    const since = fund?.blockNumber ?? 0;
    const after = (e: (typeof events)[number]) => e.repoId === boost.githubRepoId && e.issueNumber === boost.issueNumber && e.blockNumber >= since;
    const refunded = events.find((e) => e.name === "BoostRefunded" && after(e) && sameAddress((JSON.parse(e.args) as { funder: string }).funder, boost.funderAddress));
    const ownRefundDone = boost.refundTxId ? refundStatus.get(boost.refundTxId) === "confirmed" : false;
    if (refunded || ownRefundDone) {
      const reason = boost.refundReason ?? (refunded ? REASON_OF_EVENT[Number((JSON.parse(refunded.args) as { reason: string | number }).reason)] : undefined) ?? "cancelled";
      await move(boost, boost.status, "refunded", { refundReason: reason });
      continue;
    }
    if (boost.status === "active" && events.some((e) => e.name === "BountyPaid" && after(e))) await move(boost, "active", "paid");
  }
  for (const key of touched) {
    const [repoId, issueNumber] = key.split(":").map(Number) as [number, number];
    await closeCommunityBounty(db, repoId, issueNumber);
    ctx.changes.publish(["boosts", `repo:${repoId}`, `bounty:${repoId}:${issueNumber}`]);
  }
  // A bounty its pool manager left to its funders (cancelPoolShare) is a community bounty from then on.
  if ((await openCommunityBountiesLeftByPool(db)).length) ctx.changes.publish(["boosts"]);
  return changed;
}

/** BoostRefunded's reason: 0 withdrawn by its funder, 1 expired, 2 the bounty cancelled (closed as not planned). */
const REASON_OF_EVENT: Record<number, RefundReason> = { 0: "cancelled", 1: "expired", 2: "not_planned" };

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** A community bounty whose shares are all gone is over: refunded (or expired), or completed when they were paid. */
async function closeCommunityBounty(db: Database, repoId: number, issueNumber: number): Promise<void> {
  const states = await db
    .select({ status: bountyBoosts.status, reason: bountyBoosts.refundReason })
    .from(bountyBoosts)
    .where(and(eq(bountyBoosts.githubRepoId, repoId), eq(bountyBoosts.issueNumber, issueNumber)));
  if (states.some((s) => s.status === "pending" || s.status === "active" || s.status === "refunding")) return;
  const status = states.some((s) => s.status === "paid") ? "completed" : states.every((s) => s.status !== "refunded" || s.reason === "expired") ? "expired" : "refunded";
  await db
    .update(communityBounties)
    .set({ status, closedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(communityBounties.githubRepoId, repoId), eq(communityBounties.issueNumber, issueNumber), inArray(communityBounties.status, ["funded", "pending_payment", "claimed"])));
}
