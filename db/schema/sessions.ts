import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * A signed-in browser. The cookie holds a random token; only its SHA-256 is
 * stored here, so a database leak does not hand out sessions. Expiry slides
 * with use up to an absolute cap.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(), // sha256(token), hex
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    expiresAt: timestamp("expires_at").notNull(),
    absoluteExpiresAt: timestamp("absolute_expires_at").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export type Session = typeof sessions.$inferSelect;
