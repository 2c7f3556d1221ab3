import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { amount, CURRENCIES, timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * The current bounty of each issue, mirrored from the contract by the
 * indexer. Final once set: only open -> paid, or open -> cancelled (after
 * which the contract allows a new bounty, which replaces this row).
 */
/** queued: paid over the contract's daily outflow cap, waiting out its delay (RepoRewards v2). */
export const BOUNTY_STATUSES = ["open", "paid", "cancelled", "queued"] as const;
export type BountyStatus = (typeof BOUNTY_STATUSES)[number];

export const bounties = sqliteTable(
  "bounties",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    amount: amount("amount").notNull(),
    status: text("status", { enum: BOUNTY_STATUSES }).notNull(),
    recipient: text("recipient"),
    allocatedTx: text("allocated_tx").notNull(),
    paidTx: text("paid_tx"),
    allocatedAt: timestamp("allocated_at").notNull(),
    closedAt: timestamp("closed_at"),
    /** Display data remembered at allocation, for lists and the bot comment. */
    issueTitle: text("issue_title"),
    issueUrl: text("issue_url"),
    /** The issue's label names at allocation (a JSON array, lower-cased), for /explore's label filter. */
    labels: text("labels"),
    /**
     * The amount zero-padded to 40 digits: TEXT that sorts as the number does, so /explore's "largest" and amount
     * range use an index (the amount itself is decimal TEXT, which sorts "9" after "10"). Computed by SQLite.
     */
    amountKey: text("amount_key").generatedAlwaysAs(sql`substr('0000000000000000000000000000000000000000' || amount, -40)`, { mode: "virtual" }),
    /** Paid: milliseconds from the merge (or the decision asked for) to the payout's block; null when unknown. */
    paidAfterMs: integer("paid_after_ms"),
    /** Paid by the platform on a merged fix, without anyone's hand (the reliability figures). */
    paidAutomatically: integer("paid_automatically", { mode: "boolean" }),
    updatedBlock: integer("updated_block").notNull(),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    primaryKey({ columns: [t.githubRepoId, t.issueNumber] }),
    index("bounties_status_idx").on(t.status, t.githubRepoId),
    // /explore's keyset orders (docs/performance.md, "Explore at 100x"): newest/oldest, per currency, by amount.
    // labels last: a label filter is tested on the index entry before the row is read (label + language, few matches).
    index("bounties_explore_allocated_idx").on(t.status, t.allocatedAt, t.githubRepoId, t.issueNumber, t.labels),
    index("bounties_explore_currency_idx").on(t.status, t.currency, t.allocatedAt, t.githubRepoId, t.issueNumber, t.labels),
    index("bounties_explore_amount_idx").on(t.status, t.currency, t.amountKey, t.githubRepoId, t.issueNumber),
    // Profiles and the contributor board: a wallet's payouts, newest first.
    index("bounties_recipient_idx").on(t.recipient, t.status, t.closedAt),
    // The 30-day boards: payouts by the time they were made.
    index("bounties_closed_idx").on(t.status, t.closedAt),
  ],
);

export type Bounty = typeof bounties.$inferSelect;

/**
 * A split payout's shares (issue 29: a co-authored merge paid with payBountySplit), one row per recipient, as its
 * BountySharePaid events state them; kept by the indexer with the bounty row while it is paid. The row's amount is
 * the whole payout and its recipient the first: the contributors' totals, profiles and feeds credit these shares
 * instead (a payout without rows here credits the row's recipient with the whole amount).
 */
export const bountyShares = sqliteTable(
  "bounty_shares",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    recipient: text("recipient").notNull(),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    amount: amount("amount").notNull(),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber, t.recipient] }), index("bounty_shares_recipient_idx").on(t.recipient)],
);

/** Contributors who chose Contribute on an issue (spec: POST /api/blockchain/register). */
export const bountyClaims = sqliteTable(
  "bounty_claims",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber, t.userId] })],
);

/**
 * A bounty earned by a merged pull request whose author had no Issuepool
 * wallet yet: held for that GitHub user (the bounty stays open on-chain, no
 * one else can be paid it by the merge path) and paid automatically, once,
 * when they register. `releasedAt` is set once the payout is in the outbox.
 */
export const heldPayouts = sqliteTable(
  "held_payouts",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    githubUserId: integer("github_user_id").notNull(),
    githubLogin: text("github_login").notNull(),
    /** The merged pull request that earned it; null when the pool manager chose this user on a bounty awaiting decision. */
    pullNumber: integer("pull_number"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    releasedAt: timestamp("released_at"),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber] }), index("held_payouts_user_idx").on(t.githubUserId, t.releasedAt)],
);

export type HeldPayout = typeof heldPayouts.$inferSelect;

/**
 * A bounty awaiting the pool manager's decision (issue 11): a platform
 * state, the bounty stays open on-chain. Set when its issue is closed as
 * completed without a merged pull request that pays it, or closed as not
 * planned while a contributor is registered on it; cleared when the issue is
 * reopened. Bound to one allocation (`allocatedTx`): a row left over from an
 * earlier, cancelled bounty of the same issue means nothing for a new one.
 * Paid or cancelled on-chain ends it whatever this row says.
 */
export const AWAITING_REASONS = ["closed_completed", "closed_not_planned"] as const;
export type AwaitingReason = (typeof AWAITING_REASONS)[number];

export const awaitingDecisions = sqliteTable("awaiting_decisions", {
  githubRepoId: integer("github_repo_id").notNull(),
  issueNumber: integer("issue_number").notNull(),
  allocatedTx: text("allocated_tx").notNull(),
  reason: text("reason", { enum: AWAITING_REASONS }).notNull(),
  createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  /** When the pool manager's notice e-mail went out (null: not yet, or nobody to tell). */
  notifiedAt: timestamp("notified_at"),
}, (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber] })]);

export type AwaitingDecision = typeof awaitingDecisions.$inferSelect;
