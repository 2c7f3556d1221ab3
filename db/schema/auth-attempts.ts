import { sql } from "drizzle-orm";
import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/**
 * One GitHub sign-in in flight. The browser holds the state in a short-lived
 * cookie; the server keeps the PKCE verifier (sealed) and marks the attempt
 * consumed, so a state works once and only in the browser that started it.
 */
export const authAttempts = sqliteTable("auth_attempts", {
  id: text("id").primaryKey(), // sha256(state), hex
  codeVerifierSealed: text("code_verifier_sealed").notNull(),
  returnTo: text("return_to").notNull(),
  source: text("source", { enum: ["web", "vscode"] }).notNull(),
  createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  expiresAt: timestamp("expires_at").notNull(),
  consumedAt: timestamp("consumed_at"),
});
