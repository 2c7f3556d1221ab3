import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { moneyIntents, type MoneyIntent } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { hashToken, hmacBase64url } from "../../crypto/tokens.ts";

/**
 * Money intents: consent for a payment asked for where consent cannot be given.
 *
 * A GitHub comment (`/bounty 50 XDC`, `/tip 10 XDC @login`) is public text anyone could have typed into a
 * compromised account's session or a bot: it cannot move money. The bot answers with a link instead; the
 * link opens a confirmation page in the app where the signed-in author of the comment confirms (a POST with
 * the session and the anti-forgery token). An intent is
 *   - bound to the GitHub account that asked (anyone else, signed in or not, gets 404: no hint it exists),
 *   - valid for INTENT_TTL_MS (30 min) by default, then refused with 410,
 *   - used once: the confirm that wins marks it consumed in one write transaction; any later confirm is 410.
 *     If the action itself fails, the intent is released so its author can retry (the action runs under the
 *     idempotency key `intent:<id>`, so a retry can never move money twice),
 *   - stored as the SHA-256 of its token only. The token is an HMAC of (kind, source) under the server's
 *     secret, so a replayed webhook delivery gets the same link back, not a second intent.
 *
 * API (everything takes `{ database, appSecret }` and nothing else):
 *   createMoneyIntent(deps, { kind, githubUserId, source, payload, ttlMs?, now? }) -> { id, token, expiresAt, created }
 *   intentUrl(publicUrl, token)                                                  -> `${publicUrl}/confirm/${token}`
 *   readMoneyIntent(deps, { token, githubUserId, now? })                           -> MoneyIntentView (404 / 410)
 *   confirmMoneyIntent(deps, { token, githubUserId, now? }, act)                   -> what `act(intent)` returns
 *        act receives the intent (payload parsed) and returns { result: string, value: T }; `result` is stored
 *        (e.g. "boost:12") and the intent stays consumed.
 *
 * The confirm route (api/routes/intents) dispatches on `kind` through api/services/funding/intent-kinds.ts:
 * a new kind (e.g. "tip") adds one entry there with its payload schema, its description and its action.
 */

export const INTENT_TTL_MS = 30 * 60_000;

export interface IntentDeps {
  database: { db: Database };
  appSecret: Uint8Array;
}

export interface MoneyIntentView {
  id: number;
  kind: string;
  githubUserId: number;
  payload: unknown;
  source: string;
  createdAt: Date;
  expiresAt: Date;
}

export function intentUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/confirm/${encodeURIComponent(token)}`;
}

const notFound = () => new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: "This confirmation link does not exist or is not yours." });
const expired = () => new DomainError({ code: ErrorCode.LINK_EXPIRED, error: "Link expired", message: "This confirmation link has expired. Ask again with a new comment." });
const used = () => new DomainError({ code: ErrorCode.LINK_USED, error: "Link already used", message: "This confirmation link has already been used." });

function view(row: MoneyIntent): MoneyIntentView {
  return { id: row.id, kind: row.kind, githubUserId: row.githubUserId, payload: JSON.parse(row.payload), source: row.source, createdAt: row.createdAt, expiresAt: row.expiresAt };
}

function tokenFor(deps: IntentDeps, kind: string, source: string): Promise<string> {
  return hmacBase64url(deps.appSecret, `money-intent:v1:${kind}:${source}`);
}

/**
 * A new intent, or the existing one of the same (kind, source): `created` says which. A replay gets the same
 * token (and so the same link) but not a fresh expiry.
 */
export async function createMoneyIntent(
  deps: IntentDeps,
  input: { kind: string; githubUserId: number; source: string; payload: unknown; ttlMs?: number; now?: number },
): Promise<{ id: number; token: string; expiresAt: Date; created: boolean }> {
  const now = input.now ?? Date.now();
  const token = await tokenFor(deps, input.kind, input.source);
  const tokenHash = hashToken(token);
  const inserted = await deps.database.db
    .insert(moneyIntents)
    .values({
      tokenHash,
      kind: input.kind,
      githubUserId: input.githubUserId,
      source: input.source,
      payload: JSON.stringify(input.payload),
      createdAt: new Date(now),
      expiresAt: new Date(now + (input.ttlMs ?? INTENT_TTL_MS)),
    })
    .onConflictDoNothing()
    .returning({ id: moneyIntents.id, expiresAt: moneyIntents.expiresAt });
  if (inserted[0]) return { id: inserted[0].id, token, expiresAt: inserted[0].expiresAt, created: true };
  const [existing] = await deps.database.db.select().from(moneyIntents).where(eq(moneyIntents.tokenHash, tokenHash)).limit(1);
  if (!existing) throw new Error("money intent: conflict without a row");
  return { id: existing.id, token, expiresAt: existing.expiresAt, created: false };
}

async function findOwned(db: Database, token: string, githubUserId: number): Promise<MoneyIntent> {
  if (!token || token.length > 200) throw notFound();
  const [row] = await db.select().from(moneyIntents).where(eq(moneyIntents.tokenHash, hashToken(token))).limit(1);
  if (!row || row.githubUserId !== githubUserId) throw notFound();
  return row;
}

/** The intent its author is about to confirm (the confirmation page). */
export async function readMoneyIntent(deps: IntentDeps, input: { token: string; githubUserId: number; now?: number }): Promise<MoneyIntentView> {
  const row = await findOwned(deps.database.db, input.token, input.githubUserId);
  if (row.consumedAt) throw used();
  if (row.expiresAt.getTime() <= (input.now ?? Date.now())) throw expired();
  return view(row);
}

/**
 * Consumes the intent and carries it out. The consumption commits before `act` runs, so two confirms at once
 * cannot both act; if `act` throws, the intent is released (its idempotency key keeps a retry harmless).
 */
export async function confirmMoneyIntent<T>(
  deps: IntentDeps,
  input: { token: string; githubUserId: number; now?: number },
  act: (intent: MoneyIntentView) => Promise<{ result: string; value: T }>,
): Promise<T> {
  const now = input.now ?? Date.now();
  const row = await findOwned(deps.database.db, input.token, input.githubUserId);
  if (row.consumedAt) throw used();
  if (row.expiresAt.getTime() <= now) throw expired();
  const taken = await deps.database.db
    .update(moneyIntents)
    .set({ consumedAt: new Date(now) })
    .where(and(eq(moneyIntents.id, row.id), isNull(moneyIntents.consumedAt)))
    .returning({ id: moneyIntents.id });
  if (taken.length === 0) throw used();
  try {
    const { result, value } = await act(view(row));
    await deps.database.db.update(moneyIntents).set({ result }).where(eq(moneyIntents.id, row.id));
    return value;
  } catch (err) {
    await deps.database.db.update(moneyIntents).set({ consumedAt: null }).where(eq(moneyIntents.id, row.id));
    throw err;
  }
}
