import { and, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { users, vscodeTokens, type User } from "../../../db/schema/index.ts";
import { hashToken, randomToken } from "../../crypto/tokens.ts";

/**
 * Tokens for the VS Code extension. Handed over once, in the answer to the
 * code exchange (vscode-sign-in.ts), never in a URL; short-lived (24 h), bound
 * to one user, revocable, stored as SHA-256. They authenticate read-only API
 * calls from the editor (`Authorization: Bearer ipv_…`) and one write, the
 * editor's own sign-out; they carry nothing of the user's GitHub token.
 */
export const VSCODE_TOKEN_TTL_MS = 24 * 3600 * 1000;
export const VSCODE_TOKEN_PREFIX = "ipv_";

export async function issueVscodeToken(db: Database, userId: number, now = Date.now()): Promise<{ token: string; expiresAt: Date }> {
  const token = VSCODE_TOKEN_PREFIX + randomToken(32);
  const expiresAt = new Date(now + VSCODE_TOKEN_TTL_MS);
  await db.insert(vscodeTokens).values({ tokenHash: hashToken(token), userId, createdAt: new Date(now), expiresAt });
  return { token, expiresAt };
}

export async function validateVscodeToken(db: Database, token: string, now = Date.now()): Promise<User | null> {
  if (!token.startsWith(VSCODE_TOKEN_PREFIX) || token.length > 100) return null;
  const [row] = await db
    .select({ user: users, id: vscodeTokens.id })
    .from(vscodeTokens)
    .innerJoin(users, eq(users.id, vscodeTokens.userId))
    .where(and(eq(vscodeTokens.tokenHash, hashToken(token)), isNull(vscodeTokens.revokedAt), gt(vscodeTokens.expiresAt, new Date(now))))
    .limit(1);
  if (!row) return null;
  await db.update(vscodeTokens).set({ lastUsedAt: new Date(now) }).where(eq(vscodeTokens.id, row.id));
  return row.user;
}

/** Revokes every editor token of the user (sign-out from all editors). */
export async function revokeVscodeTokens(db: Database, userId: number, now = Date.now()): Promise<number> {
  const revoked = await db
    .update(vscodeTokens)
    .set({ revokedAt: new Date(now) })
    .where(and(eq(vscodeTokens.userId, userId), isNull(vscodeTokens.revokedAt)))
    .returning({ id: vscodeTokens.id });
  return revoked.length;
}

/** Revokes one editor token (the editor signing itself out); null when it was not a live token. */
export async function revokeVscodeToken(db: Database, token: string, now = Date.now()): Promise<{ userId: number } | null> {
  if (!token.startsWith(VSCODE_TOKEN_PREFIX) || token.length > 100) return null;
  const [row] = await db
    .update(vscodeTokens)
    .set({ revokedAt: new Date(now) })
    .where(and(eq(vscodeTokens.tokenHash, hashToken(token)), isNull(vscodeTokens.revokedAt), gt(vscodeTokens.expiresAt, new Date(now))))
    .returning({ userId: vscodeTokens.userId });
  return row ?? null;
}
