import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * One-time codes sent by e-mail (key export, large sends, cash-outs, automatic cash-out): stored as a hash,
 * valid 10 minutes, single use, locked after too many wrong tries.
 */
export const oneTimeCodes = sqliteTable(
  "one_time_codes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: ["export", "send", "cashout", "upi"] }).notNull(),
    codeHash: text("code_hash").notNull(),
    expiresAt: timestamp("expires_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    consumedAt: timestamp("consumed_at"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [index("one_time_codes_user_idx").on(t.userId, t.purpose, t.createdAt)],
);

/**
 * Buying and selling XDC for INR through the on-ramp provider. Our
 * merchant reference goes out with the hosted page and comes back in the
 * provider's signed webhook; the provider's order id is learned then.
 */
export const ONRAMP_STATUSES = ["initiated", "pending", "processing", "success", "failed", "expired"] as const;

export const onrampTransactions = sqliteTable(
  "onramp_transactions",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    type: text("type", { enum: ["onramp", "offramp"] }).notNull(),
    merchantReference: text("merchant_reference").notNull(),
    orderId: text("order_id"),
    status: text("status").notNull().default("initiated"),
    walletAddress: text("wallet_address").notNull(),
    coin: text("coin").notNull().default("XDC"),
    network: text("network").notNull(),
    fiatCurrency: text("fiat_currency").notNull().default("INR"),
    fiatAmount: text("fiat_amount"),
    cryptoAmount: text("crypto_amount"),
    txHash: text("tx_hash"),
    /** JSON: what the provider reported, and transactionType. */
    metadata: text("metadata").notNull().default("{}"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    uniqueIndex("onramp_merchant_reference_idx").on(t.merchantReference),
    uniqueIndex("onramp_order_id_idx").on(t.orderId),
    index("onramp_user_idx").on(t.userId, t.createdAt),
  ],
);
