import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { amount, timestamp } from "./columns.ts";

/** An amount column's zero-padded twin (40 digits), which sorts as the number does. */
const sortable = (column: string) => sql.raw(`substr('0000000000000000000000000000000000000000' || ${column}, -40)`);

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
  /** Open bounties now (the projects board). */
  openCount: integer("open_count").notNull().default(0),
  /** Paid out, per currency (smallest unit). */
  paidXdc: amount("paid_xdc").notNull().default(sql`'0'`),
  paidRoxn: amount("paid_roxn").notNull().default(sql`'0'`),
  paidUsdc: amount("paid_usdc").notNull().default(sql`'0'`),
  paidCount: integer("paid_count").notNull().default(0),
  /** Paid by the platform on a merged fix, without a hand (merge -> payout). */
  paidAutomaticallyCount: integer("paid_automatically_count").notNull().default(0),
  /** Cancelled back to the pool by the pool manager (or on an issue closed unfixed). */
  cancelledCount: integer("cancelled_count").notNull().default(0),
  /** JSON array of counts, one per bucket of the merge -> paid times. */
  paidAfterHistogram: text("paid_after_histogram").notNull().default("[]"),
  lastPaidAt: timestamp("last_paid_at"),
  updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
}, (t) => [index("repository_reliability_board_idx").on(t.openCount, t.paidCount)]);

/**
 * What each wallet was paid, all time, per currency, kept with the repository record (record.ts): the
 * contributors board reads its top rows by index instead of adding up every payout.
 */
export const contributorTotals = sqliteTable(
  "contributor_totals",
  {
    /** The paid address, checksummed as the contract's events carry it. */
    recipient: text("recipient").primaryKey(),
    paidCount: integer("paid_count").notNull().default(0),
    xdc: amount("xdc").notNull().default(sql`'0'`),
    roxn: amount("roxn").notNull().default(sql`'0'`),
    usdc: amount("usdc").notNull().default(sql`'0'`),
    xdcKey: text("xdc_key").generatedAlwaysAs(sortable("xdc"), { mode: "virtual" }),
    roxnKey: text("roxn_key").generatedAlwaysAs(sortable("roxn"), { mode: "virtual" }),
    usdcKey: text("usdc_key").generatedAlwaysAs(sortable("usdc"), { mode: "virtual" }),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  // The board's order: XDC, then ROXN, then USDC (no exchange rate between them).
  (t) => [index("contributor_totals_board_idx").on(t.xdcKey, t.roxnKey, t.usdcKey)],
);

export type RepositoryReliability = typeof repositoryReliability.$inferSelect;

/**
 * The 30-day boards' totals (issue 30, item 6), kept as payouts happen like the all-time ones (record.ts): the sums
 * of the payouts whose block time is at or after `recent_totals_horizon.since`. A pass moves the horizon on (the
 * indexer's bounty writes, at most once a minute) and subtracts the payouts it passes; a board reads its top rows
 * by index and subtracts the few payouts between the horizon and 30 days ago itself, so it is exact at any moment
 * (docs/performance.md). No horizon row: not built yet (rebuildRecentTotals builds them).
 */
export const contributorRecentTotals = sqliteTable(
  "contributor_recent_totals",
  {
    recipient: text("recipient").primaryKey(),
    paidCount: integer("paid_count").notNull().default(0),
    xdc: amount("xdc").notNull().default(sql`'0'`),
    roxn: amount("roxn").notNull().default(sql`'0'`),
    usdc: amount("usdc").notNull().default(sql`'0'`),
    xdcKey: text("xdc_key").generatedAlwaysAs(sortable("xdc"), { mode: "virtual" }),
    roxnKey: text("roxn_key").generatedAlwaysAs(sortable("roxn"), { mode: "virtual" }),
    usdcKey: text("usdc_key").generatedAlwaysAs(sortable("usdc"), { mode: "virtual" }),
  },
  (t) => [index("contributor_recent_totals_board_idx").on(t.xdcKey, t.roxnKey, t.usdcKey)],
);

/** Per repository, the 30-day projects board's totals (see contributorRecentTotals): by bounties paid, then amounts. */
export const repositoryRecentTotals = sqliteTable(
  "repository_recent_totals",
  {
    githubRepoId: integer("github_repo_id").primaryKey(),
    paidCount: integer("paid_count").notNull().default(0),
    xdc: amount("xdc").notNull().default(sql`'0'`),
    roxn: amount("roxn").notNull().default(sql`'0'`),
    usdc: amount("usdc").notNull().default(sql`'0'`),
    xdcKey: text("xdc_key").generatedAlwaysAs(sortable("xdc"), { mode: "virtual" }),
    roxnKey: text("roxn_key").generatedAlwaysAs(sortable("roxn"), { mode: "virtual" }),
    usdcKey: text("usdc_key").generatedAlwaysAs(sortable("usdc"), { mode: "virtual" }),
  },
  (t) => [index("repository_recent_totals_board_idx").on(t.paidCount, t.xdcKey, t.roxnKey, t.usdcKey)],
);

/** One row (id 1): the recent totals count the payouts made at or after `since`. */
export const recentTotalsHorizon = sqliteTable("recent_totals_horizon", {
  id: integer("id").primaryKey(),
  since: timestamp("since").notNull(),
});
