import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/**
 * The rewards contract's events, mirrored by the indexer: the history behind
 * pools, bounties and payouts. One row per log, so re-reading a block range
 * after a restart inserts nothing twice.
 */
export const chainEvents = sqliteTable(
  "chain_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    chainId: integer("chain_id").notNull(),
    blockNumber: integer("block_number").notNull(),
    blockTime: timestamp("block_time"),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    name: text("name").notNull(),
    repoId: integer("repo_id"),
    issueNumber: integer("issue_number"),
    /** Decoded arguments, JSON with bigints as strings. */
    args: text("args").notNull(),
    /** The old chain's genesis hash, when this event happened on a chain since lost and re-created (history only). */
    oldChain: text("old_chain"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    uniqueIndex("chain_events_log_idx").on(t.chainId, t.txHash, t.logIndex).where(sql`${t.oldChain} is null`),
    index("chain_events_repo_idx").on(t.repoId, t.blockNumber),
    // One issue's events in order: when a bounty's money was committed (api/services/payouts/facts.ts), per payout decision.
    index("chain_events_issue_idx").on(t.repoId, t.issueNumber, t.blockNumber, t.logIndex),
    // Where an escrowed tip's payTip left it (api/services/tips/tips.ts, tipDeliveryEvents): its TipPaid by the
    // tip's id, and the payTip's events by hash (compared lower-cased), each read by index for every tip a wallet
    // history or a tips list shows.
    // (`->>`, not json_extract(): drizzle-kit splits an index expression at its commas.)
    index("chain_events_tip_paid_idx").on(t.name, sql`(${t.args} ->> '$.tipId')`),
    index("chain_events_tx_lower_idx").on(sql`lower(${t.txHash})`),
  ],
);

/** How far each indexer has read, so it resumes instead of starting over. */
export const chainCursors = sqliteTable("chain_cursors", {
  name: text("name").primaryKey(),
  chainId: integer("chain_id").notNull(),
  lastBlock: integer("last_block").notNull(),
  updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});

/**
 * The hashes of the blocks an indexer has read (those with events, and the last block of each batch), so a
 * reorganisation shows: a recorded height whose block now has another hash, or a head below the cursor. The
 * indexer then rewinds to the highest recorded block the chain still has (api/chain/indexer.ts).
 */
export const chainBlocks = sqliteTable(
  "chain_blocks",
  {
    cursor: text("cursor").notNull(),
    number: integer("number").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.cursor, t.number] })],
);
