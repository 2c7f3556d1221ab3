import { sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/**
 * A sponsor's record, per repository, kept up to date as bounties are paid or
 * cancelled (api/services/reliability/record.ts, called where the indexer
 * writes a bounty's new state), so a page view reads one row and never scans
 * the payouts. The time from merge to paid is kept as a histogram (counts per
 * bucket of REPORT_BUCKETS_MS), from which the median and the 90th percentile
 * are read as "within <bucket bound>".
 */
export const repositoryReliability = sqliteTable("repository_reliability", {
  githubRepoId: integer("github_repo_id").primaryKey(),
  paidCount: integer("paid_count").notNull().default(0),
  /** Paid by the platform on a merged fix, without a hand (merge -> payout). */
  paidAutomaticallyCount: integer("paid_automatically_count").notNull().default(0),
  /** Cancelled back to the pool by the pool manager (or on an issue closed unfixed). */
  cancelledCount: integer("cancelled_count").notNull().default(0),
  /** JSON array of counts, one per bucket of the merge -> paid times. */
  paidAfterHistogram: text("paid_after_histogram").notNull().default("[]"),
  lastPaidAt: timestamp("last_paid_at"),
  updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});

export type RepositoryReliability = typeof repositoryReliability.$inferSelect;
