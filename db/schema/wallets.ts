import { sql } from "drizzle-orm";
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * A user's custodial wallet: one per user (unique), created at registration.
 * The private key is sealed with a per-wallet data key wrapped by the master
 * key (api/crypto/envelope.ts); the context binds wallet id, address and,
 * from context version 2 on, the owner's user id (a row moved to another
 * user does not decrypt).
 */
export const wallets = sqliteTable(
  "wallets",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "restrict" }),
    /** Checksummed 0x address; shown as xdc… at the edges. */
    address: text("address").notNull(),
    privateKeySealed: text("private_key_sealed").notNull(),
    /** 1: sealed for wallet id + address; 2: + owner user id. Rows of 1 are re-sealed as 2 at start. */
    keyContextVersion: integer("key_context_version").notNull().default(1),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [uniqueIndex("wallets_user_idx").on(t.userId), uniqueIndex("wallets_address_idx").on(t.address)],
);

export type Wallet = typeof wallets.$inferSelect;
