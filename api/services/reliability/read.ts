/**
 * What the public page, the repository cards, the embed and the reliability badge show of a sponsor: read from
 * the record kept as payouts happen (record.ts), the decisions waiting (their rows, by repository), the
 * pools (the chain's mirror), and the review record (time to a maintainer's first response, reviews past the
 * deadline: api/services/reviews/waits.ts). A few primary-key reads per repository, whatever the number of payouts.
 */
import { inArray, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { awaitingDecisions, repositoryPools, repositoryReliability, repositoryReviewRecords, type Currency } from "../../../db/schema/index.ts";
import { PAID_AFTER_BUCKETS_MS } from "./record.ts";

export interface Reliability {
  paidCount: number;
  /** Share of the payouts made automatically on a merged fix (0..1); null before the first payout. */
  automaticShare: number | null;
  /** Half of the timed payouts came within this many ms of the merge (a bucket bound; null: no timed payout; Infinity: over 30 days). */
  medianPaidWithinMs: number | null;
  p90PaidWithinMs: number | null;
  timedPayouts: number;
  decisionsWaiting: number;
  /** Since when the oldest decision has waited. */
  oldestDecisionSince: Date | null;
  /** Bounties cancelled back to the pool. */
  cancelledCount: number;
  /** Funds in the contract for this repository now (pool + open bounties), smallest unit. */
  escrow: Record<Currency, bigint>;
  /**
   * Half of the bountied pull requests had a maintainer's first response (review, comment, merge or close) within
   * this many ms of starting to wait (a bucket bound, as the merge-to-paid time; null: none timed yet). Issue 39.
   */
  medianFirstReviewWithinMs: number | null;
  timedReviews: number;
  /** Bountied pull requests that waited past the repository's review deadline without a response. */
  reviewsPastDeadline: number;
}

function percentile(histogram: number[], share: number): number | null {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i] ?? 0;
    if (seen >= Math.ceil(total * share)) return PAID_AFTER_BUCKETS_MS[i]!;
  }
  return PAID_AFTER_BUCKETS_MS.at(-1)!;
}

/** The record of each repository in `repoIds` (every id answers, zeros for one with no history). */
export async function reliabilityOf(deps: { database: { db: Database } }, repoIds: number[]): Promise<Map<number, Reliability>> {
  const db = deps.database.db;
  const ids = [...new Set(repoIds)];
  const result = new Map<number, Reliability>();
  if (!ids.length) return result;
  const [records, waiting, pools, reviews] = await Promise.all([
    db.select().from(repositoryReliability).where(inArray(repositoryReliability.githubRepoId, ids)),
    db
      .select({ repoId: awaitingDecisions.githubRepoId, count: sql<number>`count(*)`, oldest: sql<number>`min(${awaitingDecisions.createdAt})` })
      .from(awaitingDecisions)
      .where(inArray(awaitingDecisions.githubRepoId, ids))
      .groupBy(awaitingDecisions.githubRepoId),
    db.select().from(repositoryPools).where(inArray(repositoryPools.githubRepoId, ids)),
    db.select().from(repositoryReviewRecords).where(inArray(repositoryReviewRecords.githubRepoId, ids)),
  ]);
  for (const id of ids) {
    result.set(id, {
      paidCount: 0, automaticShare: null, medianPaidWithinMs: null, p90PaidWithinMs: null, timedPayouts: 0,
      decisionsWaiting: 0, oldestDecisionSince: null, cancelledCount: 0, escrow: { XDC: 0n, ROXN: 0n, USDC: 0n },
      medianFirstReviewWithinMs: null, timedReviews: 0, reviewsPastDeadline: 0,
    });
  }
  for (const r of records) {
    const entry = result.get(r.githubRepoId)!;
    const histogram = JSON.parse(r.paidAfterHistogram) as number[];
    entry.paidCount = r.paidCount;
    entry.automaticShare = r.paidCount ? r.paidAutomaticallyCount / r.paidCount : null;
    entry.medianPaidWithinMs = percentile(histogram, 0.5);
    entry.p90PaidWithinMs = percentile(histogram, 0.9);
    entry.timedPayouts = histogram.reduce((a, b) => a + b, 0);
    entry.cancelledCount = r.cancelledCount;
  }
  for (const w of waiting) {
    const entry = result.get(w.repoId)!;
    entry.decisionsWaiting = Number(w.count);
    entry.oldestDecisionSince = w.oldest === null ? null : new Date(Number(w.oldest));
  }
  for (const p of pools) result.get(p.githubRepoId)!.escrow[p.currency] += p.balance + p.allocated;
  for (const r of reviews) {
    const entry = result.get(r.githubRepoId)!;
    const histogram = JSON.parse(r.firstReviewHistogram) as number[];
    entry.medianFirstReviewWithinMs = percentile(histogram, 0.5);
    entry.timedReviews = histogram.reduce((a, b) => a + b, 0);
    entry.reviewsPastDeadline = r.reviewsPastDeadline;
  }
  return result;
}

export { describeWithin } from "../../../lib/reliability-format.ts";
