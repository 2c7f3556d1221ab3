/**
 * A sponsor's record, kept as it happens (issue 30, item 4): each time the indexer writes a bounty's new state,
 * `recordBountyChange` moves the repository's counters (db/schema/reliability.ts) by the difference between the
 * bounty before and after. A page view then reads one row per repository, never the payouts. Differences, not
 * increments: a reorganisation that takes a payout back (the indexer rebuilds the bounty) takes it back here too.
 *
 * The time from merge to paid is measured from what the platform saw: the payout it queued when the merge's
 * webhook came (or the hold it kept for a contributor without a wallet, or the decision it asked the pool
 * manager for) to the block that paid. It is kept as a histogram over PAID_AFTER_BUCKETS_MS; the median and the
 * 90th percentile are reported as the bucket bound they fall in ("within 15 minutes").
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { awaitingDecisions, chainTransactions, heldPayouts, repositoryReliability, type BountyStatus } from "../../../db/schema/index.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Upper bounds of the merge -> paid buckets; the last is open-ended. */
export const PAID_AFTER_BUCKETS_MS = [5 * MINUTE, 15 * MINUTE, HOUR, 6 * HOUR, DAY, 3 * DAY, 7 * DAY, 14 * DAY, 30 * DAY, Number.POSITIVE_INFINITY];

export function bucketOf(ms: number): number {
  return PAID_AFTER_BUCKETS_MS.findIndex((bound) => ms <= bound);
}

/** What of a bounty the record counts. */
export interface CountedBounty {
  status: BountyStatus;
  paidAfterMs: number | null;
  paidAutomatically: boolean | null;
  closedAt: Date | null;
}

/**
 * How a payout came about: automatically on a merged fix (the platform's own payout, or the hold it kept for a
 * contributor without a wallet) or by a pool manager's hand, and how long after the merge (or the decision asked
 * for) it was paid. Unknown parts are null (a payout sent from outside the platform).
 */
export async function payoutFacts(
  db: Database,
  input: { repoId: number; issueNumber: number; paidTx: string; paidAt: Date },
): Promise<{ paidAfterMs: number | null; paidAutomatically: boolean | null }> {
  const [payout] = await db
    .select({ userId: chainTransactions.userId, intent: chainTransactions.intent, createdAt: chainTransactions.createdAt })
    .from(chainTransactions)
    .where(eq(chainTransactions.txHash, input.paidTx))
    .limit(1);
  if (!payout) return { paidAfterMs: null, paidAutomatically: null };
  const reason = (JSON.parse(payout.intent) as { reason?: string }).reason ?? "";
  const [hold] = await db
    .select({ createdAt: heldPayouts.createdAt, pullNumber: heldPayouts.pullNumber })
    .from(heldPayouts)
    .where(and(eq(heldPayouts.githubRepoId, input.repoId), eq(heldPayouts.issueNumber, input.issueNumber)))
    .limit(1);
  const merged = /merged/.test(reason) || (hold?.pullNumber ?? null) !== null;
  const automatically = payout.userId === null && merged;
  let from: Date | null = null;
  if (hold) from = hold.createdAt;
  else if (automatically) from = payout.createdAt;
  else {
    const [asked] = await db
      .select({ createdAt: awaitingDecisions.createdAt })
      .from(awaitingDecisions)
      .where(and(eq(awaitingDecisions.githubRepoId, input.repoId), eq(awaitingDecisions.issueNumber, input.issueNumber)))
      .limit(1);
    from = asked?.createdAt ?? null;
  }
  return { paidAfterMs: from ? Math.max(0, input.paidAt.getTime() - from.getTime()) : null, paidAutomatically: automatically };
}

/** Moves the repository's record from `before` to `after` (either absent: the bounty appeared or went). */
export async function recordBountyChange(db: Database, repoId: number, before: CountedBounty | undefined, after: CountedBounty | undefined): Promise<void> {
  const delta = { paid: 0, automatic: 0, cancelled: 0, buckets: new Map<number, number>() };
  const count = (b: CountedBounty | undefined, sign: 1 | -1) => {
    if (!b) return;
    if (b.status === "paid") {
      delta.paid += sign;
      if (b.paidAutomatically) delta.automatic += sign;
      if (b.paidAfterMs !== null) {
        const bucket = bucketOf(b.paidAfterMs);
        delta.buckets.set(bucket, (delta.buckets.get(bucket) ?? 0) + sign);
      }
    }
    if (b.status === "cancelled") delta.cancelled += sign;
  };
  count(before, -1);
  count(after, 1);
  const buckets = [...delta.buckets].filter(([, n]) => n !== 0);
  if (delta.paid === 0 && delta.automatic === 0 && delta.cancelled === 0 && buckets.length === 0) return;
  const [row] = await db.select().from(repositoryReliability).where(eq(repositoryReliability.githubRepoId, repoId)).limit(1);
  const histogram = row ? (JSON.parse(row.paidAfterHistogram) as number[]) : [];
  for (const [bucket, n] of buckets) histogram[bucket] = Math.max(0, (histogram[bucket] ?? 0) + n);
  const lastPaidAt = after?.status === "paid" && after.closedAt ? after.closedAt : (row?.lastPaidAt ?? null);
  const values = {
    paidCount: Math.max(0, (row?.paidCount ?? 0) + delta.paid),
    paidAutomaticallyCount: Math.max(0, (row?.paidAutomaticallyCount ?? 0) + delta.automatic),
    cancelledCount: Math.max(0, (row?.cancelledCount ?? 0) + delta.cancelled),
    paidAfterHistogram: JSON.stringify(Array.from({ length: PAID_AFTER_BUCKETS_MS.length }, (_, i) => histogram[i] ?? 0)),
    lastPaidAt,
    updatedAt: new Date(),
  };
  await db
    .insert(repositoryReliability)
    .values({ githubRepoId: repoId, ...values })
    .onConflictDoUpdate({ target: repositoryReliability.githubRepoId, set: { ...values, updatedAt: sql`(unixepoch() * 1000)` } });
}
