import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * One-time codes of the editor sign-in (docs/vscode.md). When a signed-in
 * browser finishes a sign-in the extension started, the platform issues a
 * code bound to that start: the extension's state, its PKCE challenge (S256)
 * and its redirect URI. The code travels to the editor in the vscode:// URI;
 * the extension trades it, with its verifier, for a token exactly once and
 * within a couple of minutes. Only the SHA-256 of the code (and of the state)
 * is stored, so a database leak hands out nothing usable.
 */
export const vscodeCodes = sqliteTable(
  "vscode_codes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    codeHash: text("code_hash").notNull(),
    stateHash: text("state_hash").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    expiresAt: timestamp("expires_at").notNull(),
    consumedAt: timestamp("consumed_at"),
  },
  (t) => [uniqueIndex("vscode_codes_hash_idx").on(t.codeHash), index("vscode_codes_expires_idx").on(t.expiresAt)],
);

export type VscodeCode = typeof vscodeCodes.$inferSelect;
