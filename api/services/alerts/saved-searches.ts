import { and, desc, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { digestOptOuts, savedSearches, type SavedSearch, type User } from "../../../db/schema/index.ts";
import { ErrorCode, notFound, refused } from "../../errors.ts";
import { constantTimeEqualStrings, hmacBase64url, randomToken } from "../../crypto/tokens.ts";
import { canonicalQuery, describeSearch, parseSearch } from "./search.ts";
import { controlCharacterRefused } from "../explore/search-params.ts";
import { CONTROL_CHARACTER } from "../../../lib/text-input.ts";

/** A name with a control character is refused like a search parameter with one (issue 36). */
function checkedName(name: string | undefined): string | undefined {
  if (name !== undefined && CONTROL_CHARACTER.test(name)) throw controlCharacterRefused("name");
  return name;
}

/**
 * Saved explore searches (issue 30): each belongs to one user; anybody else's is a 404. A new search starts its
 * digest from the moment it is saved (bounties that existed then are not "new").
 */
export const MAX_SAVED_SEARCHES = 25;

type Deps = Pick<AppContext, "database">;

export async function saveSearch(deps: Deps, user: User, input: { name?: string; query: string; digest?: boolean }, now = Date.now()): Promise<SavedSearch> {
  checkedName(input.name);
  const search = parseSearch(input.query);
  const query = canonicalQuery(search);
  const db = deps.database.db;
  const mine = await db.select({ id: savedSearches.id, query: savedSearches.query }).from(savedSearches).where(eq(savedSearches.userId, user.id));
  if (mine.some((s) => s.query === query)) throw refused(ErrorCode.ALREADY_SAVED, "You already saved this search.");
  if (mine.length >= MAX_SAVED_SEARCHES) throw refused(ErrorCode.QUOTA_EXCEEDED, `At most ${MAX_SAVED_SEARCHES} saved searches.`);
  const [row] = await db
    .insert(savedSearches)
    .values({
      id: `ss_${randomToken(12)}`,
      userId: user.id,
      name: input.name?.trim() || describeSearch(search),
      query,
      digest: input.digest ?? true,
      notifiedUntil: new Date(now),
      createdAt: new Date(now),
    })
    .returning();
  if (row!.digest) await digestBackOn(deps, user.id);
  return row!;
}

/** A digest turned on again (a saved search's, by its owner): an earlier unsubscribe from every digest is over. */
async function digestBackOn(deps: Deps, userId: number): Promise<void> {
  await deps.database.db.delete(digestOptOuts).where(eq(digestOptOuts.userId, userId));
}

export function listSavedSearches(deps: Deps, user: User): Promise<SavedSearch[]> {
  return deps.database.db.select().from(savedSearches).where(eq(savedSearches.userId, user.id)).orderBy(desc(savedSearches.createdAt));
}

async function ownedSearch(deps: Deps, user: User, id: string): Promise<SavedSearch> {
  const [row] = await deps.database.db
    .select()
    .from(savedSearches)
    .where(and(eq(savedSearches.id, id), eq(savedSearches.userId, user.id)))
    .limit(1);
  if (!row) throw notFound("Saved search not found.");
  return row;
}

export async function updateSavedSearch(deps: Deps, user: User, id: string, input: { name?: string; digest?: boolean }, now = Date.now()): Promise<SavedSearch> {
  const before = await ownedSearch(deps, user, id);
  checkedName(input.name);
  const [row] = await deps.database.db
    .update(savedSearches)
    .set({
      ...(input.name?.trim() ? { name: input.name.trim() } : {}),
      ...(input.digest !== undefined ? { digest: input.digest } : {}),
      // Turned back on: "new" starts now, not at the last digest before it was off.
      ...(input.digest && !before.digest ? { notifiedUntil: new Date(now) } : {}),
    })
    .where(and(eq(savedSearches.id, id), eq(savedSearches.userId, user.id)))
    .returning();
  if (input.digest) await digestBackOn(deps, user.id);
  return row!;
}

export async function deleteSavedSearch(deps: Deps, user: User, id: string): Promise<void> {
  await ownedSearch(deps, user, id);
  await deps.database.db.delete(savedSearches).where(and(eq(savedSearches.id, id), eq(savedSearches.userId, user.id)));
}

export function savedSearchView(row: SavedSearch) {
  return { id: row.id, name: row.name, query: row.query, digest: row.digest, createdAt: row.createdAt.toISOString() };
}

/**
 * The one-click unsubscribe token of a user's digest (RFC 8058): `<user id>.<HMAC>` under the server's secret.
 * It authenticates the POST by itself (mail clients send it without cookies); it only ever turns digests off.
 */
export async function unsubscribeToken(appSecret: Uint8Array, userId: number): Promise<string> {
  return `${userId}.${await hmacBase64url(appSecret, `digest-unsubscribe:${userId}`)}`;
}

/** The user a token names, or undefined when it is not one the server signed. */
export async function verifyUnsubscribeToken(appSecret: Uint8Array, token: string): Promise<number | undefined> {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{20,100})$/.exec(token);
  if (!match) return undefined;
  const userId = Number(match[1]);
  return constantTimeEqualStrings(await unsubscribeToken(appSecret, userId), token) ? userId : undefined;
}

/**
 * The digest's unsubscribe link: turns every saved search's digest of the user off and stops the daily digest
 * altogether, the pool manager's list of pull requests waiting past their review deadline included (issue 39;
 * their once-per-deadline reminders still go). Returns how many searches' digests were on.
 */
export async function unsubscribeDigests(deps: Deps, userId: number, now = Date.now()): Promise<number> {
  return deps.database.db.transaction(async (tx) => {
    const rows = await tx
      .update(savedSearches)
      .set({ digest: false })
      .where(and(eq(savedSearches.userId, userId), eq(savedSearches.digest, true)))
      .returning({ id: savedSearches.id });
    await tx.insert(digestOptOuts).values({ userId, at: new Date(now) }).onConflictDoNothing();
    return rows.length;
  });
}
