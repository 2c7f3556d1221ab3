import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { amount, timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * Cash-outs (issue 40): a reward in the custodial wallet sold for INR paid to the user's UPI id, through the
 * on-ramp provider's sell-side API (api/services/cashout/). The currencies the provider buys from us.
 */
export const CASHOUT_CURRENCIES = ["XDC", "USDC"] as const;
export type CashoutCurrency = (typeof CASHOUT_CURRENCIES)[number];

/**
 * A cash-out's states (docs/wallet.md, "Cash out to UPI"):
 *
 *   initiated        our row; the provider's order is asked for (idempotent by our reference), then the crypto
 *                    queued in the outbox to the order's deposit address (key `cashout:{id}`: at most once)
 *   crypto_received  the provider confirmed the deposit
 *   fiat_sent        the provider started the INR payout to the UPI id
 *   completed        the INR arrived                                                          (final)
 *   failed           the payout failed after the crypto reached the provider: it owes the crypto back
 *   refunded         the crypto is back in the wallet, checked on the chain                   (final)
 *   cancelled        nothing left the wallet (the provider refused the order, or our transfer never went out) (final)
 */
export const CASHOUT_STATUSES = ["initiated", "crypto_received", "fiat_sent", "completed", "failed", "refunded", "cancelled"] as const;
export type CashoutStatus = (typeof CASHOUT_STATUSES)[number];

/** What the user keeps for next time: the UPI id, and automatic cash-out of rewards above a threshold. */
export const cashoutSettings = sqliteTable("cashout_settings", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  upiId: text("upi_id"),
  autoEnabled: integer("auto_enabled", { mode: "boolean" }).notNull().default(false),
  /** Rewards above these amounts (smallest units) are cashed out when they arrive; null: that currency never is. */
  autoMinXdc: amount("auto_min_xdc"),
  autoMinUsdc: amount("auto_min_usdc"),
  updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});

/** A quote shown before the user confirms: the provider's quote and our figures, valid until `expiresAt`. */
export const cashoutQuotes = sqliteTable(
  "cashout_quotes",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    currency: text("currency", { enum: CASHOUT_CURRENCIES }).notNull(),
    amount: amount("amount").notNull(),
    providerQuoteId: text("provider_quote_id").notNull(),
    /** INR per whole coin, the provider's decimal string. */
    rate: text("rate").notNull(),
    providerFeeInr: text("provider_fee_inr").notNull(),
    platformFeeInr: text("platform_fee_inr").notNull(),
    /** The network fee of our transfer, estimated, in wei of XDC. */
    gasFee: amount("gas_fee").notNull(),
    fiatAmount: text("fiat_amount").notNull(),
    expiresAt: timestamp("expires_at").notNull(),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [index("cashout_quotes_user_idx").on(t.userId, t.createdAt)],
);

export const cashouts = sqliteTable(
  "cashouts",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** One order per quote: a second confirmation of the same quote finds this row. */
    quoteId: text("quote_id").notNull(),
    trigger: text("trigger", { enum: ["manual", "auto"] }).notNull(),
    /** The reward that triggered an automatic cash-out (reward_arrivals.event_key). */
    rewardKey: text("reward_key"),
    walletId: text("wallet_id").notNull(),
    walletAddress: text("wallet_address").notNull(),
    currency: text("currency", { enum: CASHOUT_CURRENCIES }).notNull(),
    amount: amount("amount").notNull(),
    rate: text("rate").notNull(),
    providerFeeInr: text("provider_fee_inr").notNull(),
    platformFeeInr: text("platform_fee_inr").notNull(),
    gasFee: amount("gas_fee").notNull(),
    fiatAmount: text("fiat_amount").notNull(),
    upiId: text("upi_id").notNull(),
    /** Ours, sent with the order and returned in every webhook: `ipc_` + 160 random bits. */
    merchantReference: text("merchant_reference").notNull(),
    providerOrderId: text("provider_order_id"),
    depositAddress: text("deposit_address"),
    status: text("status", { enum: CASHOUT_STATUSES }).notNull().default("initiated"),
    /** The outbox row of our transfer to the deposit address. */
    sendTransactionId: text("send_transaction_id"),
    /** The provider's bank reference of the INR payout (UTR). */
    payoutReference: text("payout_reference"),
    refundTxHash: text("refund_tx_hash"),
    failureReason: text("failure_reason"),
    /** The provider's last status code and when we heard it. */
    providerStatus: integer("provider_status"),
    lastEventAt: timestamp("last_event_at"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    uniqueIndex("cashouts_quote_idx").on(t.quoteId),
    uniqueIndex("cashouts_reference_idx").on(t.merchantReference),
    uniqueIndex("cashouts_order_idx").on(t.providerOrderId),
    // One automatic cash-out per reward, whatever happens to retries.
    uniqueIndex("cashouts_reward_idx").on(t.rewardKey),
    index("cashouts_user_idx").on(t.userId, t.createdAt),
    index("cashouts_open_idx").on(t.status, t.updatedAt),
  ],
);

/**
 * A reward that reached a platform wallet (a confirmed BountyPaid, BountySharePaid, TipPaid or Tipped event, as
 * the indexer recorded it): seen once (the event's chain, hash and log index), then its mail and its automatic
 * cash-out (api/services/cashout/reward-arrived.ts).
 */
export const rewardArrivals = sqliteTable(
  "reward_arrivals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** `{chainId}:{txHash}:{logIndex}` of the event. */
    eventKey: text("event_key").notNull(),
    userId: integer("user_id").notNull(),
    currency: text("currency").notNull(),
    amount: amount("amount").notNull(),
    repoId: integer("repo_id"),
    issueNumber: integer("issue_number"),
    txHash: text("tx_hash").notNull(),
    /** What was done: mail sent, automatic cash-out started, or why not. */
    mailedAt: timestamp("mailed_at"),
    cashoutId: text("cashout_id"),
    note: text("note"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [uniqueIndex("reward_arrivals_event_idx").on(t.eventKey), index("reward_arrivals_user_idx").on(t.userId, t.createdAt)],
);
