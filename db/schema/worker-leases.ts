import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/**
 * Singleton workers (the indexer, ...) take a lease here before each pass,
 * so when several processes share the database only one does the work.
 */
export const workerLeases = sqliteTable("worker_leases", {
  name: text("name").primaryKey(),
  owner: text("owner").notNull(),
  until: timestamp("until").notNull(),
});
