import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { amount, timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * The transaction outbox: every transaction the platform sends is a row here
 * before anything is signed. The worker moves it
 *   queued -> signed (nonce assigned, raw tx stored) -> sent -> confirmed | reverted
 * or queued -> failed (refused before signing; no nonce used). After a crash
 * a signed or sent row is re-broadcast with the same raw transaction, never
 * signed again, so a nonce is never skipped or reused and nothing is sent twice.
 */
export const TX_STATUSES = ["queued", "signed", "sent", "confirmed", "reverted", "failed"] as const;
export type TxStatus = (typeof TX_STATUSES)[number];

export const chainTransactions = sqliteTable(
  "chain_transactions",
  {
    id: text("id").primaryKey(),
    /** Who asked (null for the platform itself: seeding, automatic payouts). */
    userId: integer("user_id").references(() => users.id),
    /**
     * `user:<id>` or `platform`: the scope of the idempotency key. Not null on
     * purpose: SQLite treats NULLs as distinct in unique indexes, so keys of
     * the platform's own rows would not be unique on user_id.
     */
    requester: text("requester").notNull().default("platform"),
    /** Per requester: replaying a request with the same key returns this row. */
    idempotencyKey: text("idempotency_key").notNull(),
    /** SHA-256 of the request that created the row; a replay must match it. */
    requestHash: text("request_hash").notNull(),
    /** What this transaction does, e.g. fund_xdc, allocate_bounty, pay_bounty. */
    kind: text("kind").notNull(),
    /** The repository it concerns, when it concerns one (the daily funding limit sums by it). */
    githubRepoId: integer("github_repo_id"),
    /** The issue it concerns (bounties and payouts). */
    issueNumber: integer("issue_number"),
    /** The human-level intent (repository, issue, currency, amounts), JSON. */
    intent: text("intent").notNull(),
    /** The custodial wallet that signs, or null for the operator. */
    walletId: text("wallet_id"),
    fromAddress: text("from_address").notNull(),
    chainId: integer("chain_id").notNull(),
    toAddress: text("to_address").notNull(),
    data: text("data").notNull(),
    value: amount("value").notNull(),
    status: text("status", { enum: TX_STATUSES }).notNull().default("queued"),
    nonce: integer("nonce"),
    gasLimit: amount("gas_limit"),
    gasPrice: amount("gas_price"),
    rawTx: text("raw_tx"),
    txHash: text("tx_hash"),
    blockNumber: integer("block_number"),
    /** The hash of the block its receipt was in, recorded at confirmation: the reconciler checks it is still there. */
    blockHash: text("block_hash"),
    confirmations: integer("confirmations").notNull().default(0),
    error: text("error"),
    /** The worker holding this row, until when (crash recovery and several processes). */
    leaseOwner: text("lease_owner"),
    leaseUntil: timestamp("lease_until"),
    attempts: integer("attempts").notNull().default(0),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
    sentAt: timestamp("sent_at"),
    confirmedAt: timestamp("confirmed_at"),
    /**
     * Set when the chain this row was sent to is gone for good (its genesis block changed, api/chain/identity.ts):
     * the old chain's genesis hash. Such a row is history only: never sent again, and out of the unique rules below
     * (its idempotency key is prefixed `old-chain:` so the same request can run on the new chain).
     */
    oldChain: text("old_chain"),
  },
  (t) => [
    uniqueIndex("chain_tx_requester_key_idx").on(t.requester, t.idempotencyKey),
    uniqueIndex("chain_tx_nonce_idx").on(t.chainId, t.fromAddress, t.nonce).where(sql`${t.oldChain} is null`),
    uniqueIndex("chain_tx_hash_idx").on(t.txHash).where(sql`${t.oldChain} is null`),
    index("chain_tx_status_idx").on(t.status, t.fromAddress, t.createdAt),
    index("chain_tx_repo_kind_idx").on(t.githubRepoId, t.kind, t.createdAt),
    // The reconciler's look at the rows confirmed within the reorganisation window.
    index("chain_tx_block_idx").on(t.chainId, t.blockNumber),
    // A bounty is paid at most once off-chain too: one live payout row per issue.
    uniqueIndex("chain_tx_one_payout_idx")
      .on(t.githubRepoId, t.issueNumber)
      .where(sql`${t.kind} = 'pay_bounty' and ${t.status} not in ('failed', 'reverted') and ${t.oldChain} is null`),
  ],
);

export type ChainTransaction = typeof chainTransactions.$inferSelect;

/** The next nonce of each signing address, allocated inside the signing transaction. */
export const walletNonces = sqliteTable("wallet_nonces", {
  key: text("key").primaryKey(), // `${chainId}:${address}`
  nextNonce: integer("next_nonce").notNull(),
  updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});

/**
 * The chain the platform's records belong to: its genesis block's hash, per chain id. A different genesis at start
 * means the chain was lost and re-created (a local chain): the records of the old one are marked, never replayed.
 */
export const chainIdentity = sqliteTable("chain_identity", {
  chainId: integer("chain_id").primaryKey(),
  genesisHash: text("genesis_hash").notNull(),
  recordedAt: timestamp("recorded_at").notNull().default(sql`(unixepoch() * 1000)`),
});
