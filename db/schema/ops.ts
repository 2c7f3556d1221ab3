import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/**
 * Restores of the embedded database from a backup (issue 41; api/ops/restore-report.ts): one row per restore, made
 * at the first start after it, `pending` until the start-up check against the chain has repaired what it could and
 * the report of what could not be known (wallets created after the backup, whose keys are gone) is written.
 */
export const opsRestores = sqliteTable("ops_restores", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  backupFile: text("backup_file").notNull(),
  backupSha256: text("backup_sha256").notNull(),
  /** When the backup was taken (null: a copy without its description). */
  backupTakenAt: timestamp("backup_taken_at"),
  /** The last block the indexer had read in the backup. */
  backupIndexedBlock: integer("backup_indexed_block"),
  restoredAt: timestamp("restored_at").notNull(),
  status: text("status", { enum: ["pending", "done"] }).notNull().default("pending"),
  /** The report, JSON (RestoreReport). */
  report: text("report"),
  finishedAt: timestamp("finished_at"),
});

export type OpsRestore = typeof opsRestores.$inferSelect;
