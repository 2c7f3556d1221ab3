import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { amount, CURRENCIES, timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * Shared rewards (issue 29, item 4): a bounty earned by a merged pull request
 * with co-authors is split among its people instead of paid at once.
 *
 *   window    the merge opened a release window (`releaseAt`); the pool
 *             manager may change the shares until then
 *   releasing the window is over: amounts fixed per share, each share's
 *             payout goes through the outbox (or is held for its person)
 *   released  every share is paid or held
 *   superseded the bounty was paid or cancelled another way meanwhile
 *             (nothing is sent for this split)
 * Bound to one allocation (`allocatedTx`), like an awaiting decision.
 */
export const SPLIT_STATUSES = ["window", "releasing", "released", "superseded"] as const;
export type SplitStatus = (typeof SPLIT_STATUSES)[number];

export const payoutSplits = sqliteTable(
  "payout_splits",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    allocatedTx: text("allocated_tx").notNull(),
    pullNumber: integer("pull_number").notNull(),
    authorGithubId: integer("author_github_id").notNull(),
    authorLogin: text("author_login").notNull(),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    /** The bounty's amount, the whole that the shares split. */
    amount: amount("amount").notNull(),
    status: text("status", { enum: SPLIT_STATUSES }).notNull().default("window"),
    releaseAt: timestamp("release_at").notNull(),
    /** Co-author trailers that named nobody the platform can pay (JSON [{name, email}]): shown, not paid. */
    unresolved: text("unresolved").notNull().default("[]"),
    /** The pool manager who last set the shares (null: the default, equal shares). */
    setBy: integer("set_by").references(() => users.id),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
    releasedAt: timestamp("released_at"),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber] }), index("payout_splits_due_idx").on(t.status, t.releaseAt)],
);

export type PayoutSplit = typeof payoutSplits.$inferSelect;

/**
 * One person's share of a split: a weight (1 each by default, basis points
 * when the pool manager set percentages), then, once released, the exact
 * amount and how it went:
 *   pending   has a wallet, about to be paid with the split's payout
 *   paying    in the split's payout (txId), or, for a share that was
 *             escrowed, in the operator's `payTip` to the wallet its person
 *             registered (txId, outbox key `split-share:<repo>:<issue>:<githubUserId>`)
 *   held      no wallet, and nobody with a share has one: the whole split
 *             waits (nothing sent)
 *   escrowed  no wallet: the split's payout (txId) paid the others and put
 *             this share in the contract's escrow for their GitHub id; paid
 *             to their wallet when they register
 *   returned  escrowed, never claimed: after 30 days the pool manager (or
 *             the operator) returned it to the repository's pool on-chain
 *   paid      nothing to pay (a zero share)
 * (text column: the new statuses need no migration)
 */
export const SHARE_STATUSES = ["pending", "held", "escrowed", "paying", "returned", "paid"] as const;
export type ShareStatus = (typeof SHARE_STATUSES)[number];

export const payoutSplitShares = sqliteTable(
  "payout_split_shares",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    githubUserId: integer("github_user_id").notNull(),
    githubLogin: text("github_login").notNull(),
    position: integer("position").notNull(),
    weight: integer("weight").notNull(),
    amount: amount("amount"),
    status: text("status", { enum: SHARE_STATUSES }).notNull().default("pending"),
    /** The outbox row of its payout. */
    txId: text("tx_id"),
    paidAt: timestamp("paid_at"),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber, t.githubUserId] }), index("payout_split_shares_user_idx").on(t.githubUserId, t.status)],
);

export type PayoutSplitShare = typeof payoutSplitShares.$inferSelect;
