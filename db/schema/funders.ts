import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { amount, CURRENCIES, timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * Issue 29: anyone can fund an issue. An issue's bounty is its pool part (the `bounties` row the pool
 * manager set, if any) plus the boosts of its funders. An issue with boosts and no pool bounty (on a
 * registered repository without one, or on any public repository not registered at all) has a community
 * bounty: the row that gives it an id, a title and a lifecycle for the original product's client.
 */

/**
 * pending: the funder's transaction is in the outbox; active: escrowed; refunding: its refund is in the
 * outbox; refunded: back in the funder's wallet; paid: paid out with the bounty; failed: the funding
 * transaction failed or reverted (nothing left the wallet).
 */
export const BOOST_STATUSES = ["pending", "active", "refunding", "refunded", "paid", "failed"] as const;
export type BoostStatus = (typeof BOOST_STATUSES)[number];

/** Why a share went back: its expiry passed, its funder (or the pool manager) cancelled, the issue closed as not planned. */
export const REFUND_REASONS = ["expired", "cancelled", "not_planned"] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

export const bountyBoosts = sqliteTable(
  "bounty_boosts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    /** The funder's wallet address at funding: where a refund goes. */
    funderAddress: text("funder_address").notNull(),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    /** What the bounty gains (the funder paid amount + fee). */
    amount: amount("amount").notNull(),
    fee: amount("fee").notNull(),
    anonymous: integer("anonymous", { mode: "boolean" }).notNull().default(false),
    /** Past it with no merged fix, the share returns to the funder (the hourly pass). */
    expiresAt: timestamp("expires_at"),
    status: text("status", { enum: BOOST_STATUSES }).notNull().default("pending"),
    refundReason: text("refund_reason", { enum: REFUND_REASONS }),
    /** Outbox rows (chain_transactions.id) of the funding and of the refund. */
    fundTxId: text("fund_tx_id"),
    refundTxId: text("refund_tx_id"),
    /** Per funder: a replayed request returns this boost. */
    idempotencyKey: text("idempotency_key").notNull(),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    settledAt: timestamp("settled_at"),
  },
  (t) => [
    uniqueIndex("bounty_boosts_key_idx").on(t.userId, t.idempotencyKey),
    index("bounty_boosts_issue_idx").on(t.githubRepoId, t.issueNumber, t.status),
    // The hourly refund pass (status, expiry) and /explore's "expiring" order (active boosts by expiry, in the keyset's
    // order; docs/performance.md): one index serves both.
    index("bounty_boosts_explore_expiry_idx").on(t.status, t.expiresAt, t.githubRepoId, t.issueNumber),
    index("bounty_boosts_user_idx").on(t.userId, t.createdAt),
  ],
);

export type BountyBoost = typeof bountyBoosts.$inferSelect;

/** The original client's statuses (spec section 12). */
export const COMMUNITY_STATUSES = ["pending_payment", "funded", "claimed", "completed", "refunded", "expired", "failed_verification"] as const;
export type CommunityStatus = (typeof COMMUNITY_STATUSES)[number];

export const communityBounties = sqliteTable(
  "community_bounties",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    githubRepoId: integer("github_repo_id").notNull(),
    repoOwner: text("repo_owner").notNull(),
    repoName: text("repo_name").notNull(),
    issueNumber: integer("issue_number").notNull(),
    issueUrl: text("issue_url").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    status: text("status", { enum: COMMUNITY_STATUSES }).notNull().default("pending_payment"),
    createdByUserId: integer("created_by_user_id").references(() => users.id),
    createdByLogin: text("created_by_login").notNull(),
    /** The amount its creator asked for (the original client's create, then /pay). */
    requestedAmount: amount("requested_amount"),
    claimedByUserId: integer("claimed_by_user_id").references(() => users.id),
    claimedByLogin: text("claimed_by_login"),
    claimedPrNumber: integer("claimed_pr_number"),
    claimedPrUrl: text("claimed_pr_url"),
    claimedAt: timestamp("claimed_at"),
    payoutTxId: text("payout_tx_id"),
    payoutRecipient: text("payout_recipient"),
    payoutAt: timestamp("payout_at"),
    closedAt: timestamp("closed_at"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    // One live community bounty per issue; a refunded or expired one leaves room for a new one.
    uniqueIndex("community_bounties_issue_idx").on(t.githubRepoId, t.issueNumber).where(sql`status not in ('refunded', 'expired')`),
    index("community_bounties_status_idx").on(t.status, t.createdAt),
  ],
);

export type CommunityBounty = typeof communityBounties.$inferSelect;
