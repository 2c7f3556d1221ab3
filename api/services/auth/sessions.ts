import { and, eq, gt, lt, sql } from "drizzle-orm";
import { preparedQuery } from "../../../db/prepared.ts";
import type { Database } from "../../../db/client.ts";
import { sessions, users, type Session, type User } from "../../../db/schema/index.ts";
import { hashToken, randomToken } from "../../crypto/tokens.ts";

/** A session lives 7 days past its last use, and never more than 30 days. */
export const SESSION_IDLE_MS = 7 * 24 * 3600 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
/** Sliding expiry is written at most this often per session, not on every request. */
export const SESSION_EXTEND_EVERY_MS = 3600 * 1000;

export interface SessionWithUser {
  session: Session;
  user: User;
}

/** Creates a session and returns its token (for the cookie); the database keeps only the hash. */
export async function createSession(
  db: Database,
  userId: number,
  meta: { ip?: string; userAgent?: string } = {},
  now = Date.now(),
): Promise<{ token: string; session: Session }> {
  const token = randomToken(32);
  const [session] = await db
    .insert(sessions)
    .values({
      id: hashToken(token),
      userId,
      createdAt: new Date(now),
      expiresAt: new Date(now + SESSION_IDLE_MS),
      absoluteExpiresAt: new Date(now + SESSION_ABSOLUTE_MS),
      ip: meta.ip,
      userAgent: meta.userAgent?.slice(0, 256),
    })
    .returning();
  return { token, session: session! };
}

const sessionWithUser = preparedQuery((db) =>
  db.select({ session: sessions, user: users }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(eq(sessions.id, sql.placeholder("id"))).limit(1).prepare(),
);

/** The session and user behind a cookie token, extending the idle expiry; null when unknown or expired. */
export async function validateSessionToken(db: Database, token: string, now = Date.now()): Promise<SessionWithUser | null> {
  if (!/^[a-z2-7]{20,64}$/.test(token)) return null;
  const id = hashToken(token);
  const row = await sessionWithUser(db).get({ id });
  if (!row) return null;
  const { session } = row;
  if (session.expiresAt.getTime() <= now || session.absoluteExpiresAt.getTime() <= now) {
    await db.delete(sessions).where(eq(sessions.id, id));
    return null;
  }
  const extended = Math.min(now + SESSION_IDLE_MS, session.absoluteExpiresAt.getTime());
  if (extended - session.expiresAt.getTime() >= SESSION_EXTEND_EVERY_MS) {
    session.expiresAt = new Date(extended);
    await db.update(sessions).set({ expiresAt: session.expiresAt }).where(eq(sessions.id, id));
  }
  return row;
}

export async function invalidateSession(db: Database, sessionId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, sessionId));
}

export async function invalidateSessionToken(db: Database, token: string): Promise<void> {
  await invalidateSession(db, hashToken(token));
}

export async function invalidateUserSessions(db: Database, userId: number): Promise<void> {
  await db.delete(sessions).where(eq(sessions.userId, userId));
}

export async function deleteExpiredSessions(db: Database, now = Date.now()): Promise<void> {
  await db.delete(sessions).where(lt(sessions.expiresAt, new Date(now)));
}

export async function countSessions(db: Database, userId: number, now = Date.now()): Promise<number> {
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, new Date(now))));
  return rows.length;
}
