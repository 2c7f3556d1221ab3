import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
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
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    uniqueIndex("chain_events_log_idx").on(t.chainId, t.txHash, t.logIndex),
    index("chain_events_repo_idx").on(t.repoId, t.blockNumber),
  ],
);

/** How far each indexer has read, so it resumes instead of starting over. */
export const chainCursors = sqliteTable("chain_cursors", {
  name: text("name").primaryKey(),
  chainId: integer("chain_id").notNull(),
  lastBlock: integer("last_block").notNull(),
  updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});
