import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * Tokens handed to the VS Code extension through a vscode:// redirect.
 * Short-lived, bound to one user, revocable; stored as SHA-256 only. They
 * carry nothing of the user's GitHub token.
 */
export const vscodeTokens = sqliteTable(
  "vscode_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tokenHash: text("token_hash").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    expiresAt: timestamp("expires_at").notNull(),
    revokedAt: timestamp("revoked_at"),
    lastUsedAt: timestamp("last_used_at"),
  },
  (t) => [uniqueIndex("vscode_tokens_hash_idx").on(t.tokenHash), index("vscode_tokens_user_idx").on(t.userId)],
);
