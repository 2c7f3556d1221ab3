import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/**
 * Money intents (api/services/funding/intents.ts): a request to move money
 * that arrived where consent cannot be given (a GitHub comment such as
 * `/bounty 50 XDC` or `/tip 10 XDC @login`), waiting for its author to
 * confirm it in the app. Bound to the GitHub account that asked, valid for a
 * limited time, used once. Only the SHA-256 of the link's token is stored.
 */
export const moneyIntents = sqliteTable(
  "money_intents",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tokenHash: text("token_hash").notNull(),
    /** What confirming does: "boost", "tip", ... (the confirm route dispatches on it). */
    kind: text("kind").notNull(),
    /** The GitHub account that asked: the only one who may see and confirm it. */
    githubUserId: integer("github_user_id").notNull(),
    /** The request, as JSON (amounts as decimal strings); what the confirmation page shows. */
    payload: text("payload").notNull(),
    /** Where it came from, e.g. "comment:123" (one intent per source). */
    source: text("source").notNull(),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    expiresAt: timestamp("expires_at").notNull(),
    consumedAt: timestamp("consumed_at"),
    /** What confirming produced (e.g. "boost:12"), for the answer to a repeated confirm. */
    result: text("result"),
  },
  (t) => [
    uniqueIndex("money_intents_token_idx").on(t.tokenHash),
    uniqueIndex("money_intents_source_idx").on(t.kind, t.source),
    index("money_intents_user_idx").on(t.githubUserId, t.createdAt),
  ],
);

export type MoneyIntent = typeof moneyIntents.$inferSelect;
