import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { amount, CURRENCIES, timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * Tips (issue 29, item 5): a signed-in user gives XDC, ROXN or USDC to a
 * GitHub user, from a `/tip` comment (confirmed in the app through a money
 * intent) or the Tip button on a profile.
 *
 *   sending  the transfer is in the outbox (the recipient has a wallet)
 *   held     the recipient has no wallet yet: sent when they register
 *   sent     on-chain (confirmed or on its way: the outbox row says which)
 *   failed   the transfer failed (the tipper's balance no longer covers it)
 * One tip per request: (tipper, idempotency key) is unique, so a replayed
 * confirmation or a double click tips once.
 */
export const TIP_STATUSES = ["sending", "held", "sent", "failed"] as const;
export type TipStatus = (typeof TIP_STATUSES)[number];

export const tips = sqliteTable(
  "tips",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    fromUserId: integer("from_user_id")
      .notNull()
      .references(() => users.id),
    toGithubId: integer("to_github_id").notNull(),
    toLogin: text("to_login").notNull(),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    amount: amount("amount").notNull(),
    /** Where it was asked: "comment:<id>" with the repository and issue, or "profile". */
    source: text("source").notNull(),
    githubRepoId: integer("github_repo_id"),
    issueNumber: integer("issue_number"),
    idempotencyKey: text("idempotency_key").notNull(),
    status: text("status", { enum: TIP_STATUSES }).notNull(),
    /** The outbox row of the transfer. */
    txId: text("tx_id"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    sentAt: timestamp("sent_at"),
  },
  (t) => [
    uniqueIndex("tips_request_idx").on(t.fromUserId, t.idempotencyKey),
    index("tips_to_idx").on(t.toGithubId, t.status),
    index("tips_from_idx").on(t.fromUserId, t.createdAt),
  ],
);

export type Tip = typeof tips.$inferSelect;
