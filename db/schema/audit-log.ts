import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/** Security-relevant events (sign-in, registration, key export, ...), append-only. */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id"),
    action: text("action").notNull(),
    /** JSON; never secrets. */
    detail: text("detail"),
    ip: text("ip"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [index("audit_log_user_idx").on(t.userId, t.createdAt)],
);
