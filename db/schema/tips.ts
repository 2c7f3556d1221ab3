import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { amount, CURRENCIES, timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * Tips (issue 29, item 5): a signed-in user gives XDC, ROXN or USDC to a
 * GitHub user, from a `/tip` comment (confirmed in the app through a money
 * intent) or the Tip button on a profile.
 *
 *   sending  the tip (`tipXdc`/`tipToken`, contract v3) is in the outbox:
 *            the recipient has a wallet -> sent
 *   held     the recipient has no wallet yet: the tip is escrowed on-chain
 *            under their GitHub id (`escrowTipXdc`/`escrowTipToken`,
 *            `escrowed`), and the operator pays it (`payTip`) to the wallet
 *            they register -> sent
 *   sent     on its way or confirmed (the outbox rows say which)
 *   failed   refused before it moved anything
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
    /** What the tipper gave (gross); the contract's fee (read at the time) comes off it. */
    amount: amount("amount").notNull(),
    fee: amount("fee").notNull(),
    /** Where it was asked: "comment:<id>" with the repository and issue, or "profile". */
    source: text("source").notNull(),
    githubRepoId: integer("github_repo_id"),
    issueNumber: integer("issue_number"),
    idempotencyKey: text("idempotency_key").notNull(),
    status: text("status", { enum: TIP_STATUSES }).notNull(),
    /** The tipper's transaction (the tip, or its escrow). */
    txId: text("tx_id"),
    /** Held in the contract's escrow for a GitHub user without a wallet. */
    escrowed: integer("escrowed", { mode: "boolean" }).notNull().default(false),
    /** The escrow's tip id (read from the escrow's receipt), and the operator's payTip to the registered wallet. */
    chainTipId: text("chain_tip_id"),
    payTxId: text("pay_tx_id"),
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
