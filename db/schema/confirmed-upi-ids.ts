import { sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * The UPI ids a user has confirmed with an e-mailed code (issue 40's cash-out, closed against a stolen session):
 * a cash-out to an id not in this list, and automatic cash-out to any id, need the code first. `upi_id` is kept in
 * lower case (UPI ids are case-insensitive), so `Bob@OkAxis` is the id confirmed as `bob@okaxis`.
 */
export const confirmedUpiIds = sqliteTable(
  "confirmed_upi_ids",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    upiId: text("upi_id").notNull(),
    /** What the code confirmed: a cash-out to this id, or automatic cash-out to it. */
    via: text("via", { enum: ["cashout", "upi"] }).notNull(),
    confirmedAt: timestamp("confirmed_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.userId, t.upiId] })],
);
