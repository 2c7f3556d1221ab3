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
    updatedBlock: integer("updated_block").notNull(),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber] }), index("bounties_status_idx").on(t.status, t.githubRepoId)],
);

export type Bounty = typeof bounties.$inferSelect;

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
    pullNumber: integer("pull_number").notNull(),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    releasedAt: timestamp("released_at"),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber] }), index("held_payouts_user_idx").on(t.githubUserId, t.releasedAt)],
);

export type HeldPayout = typeof heldPayouts.$inferSelect;
