import { eq } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../context.ts";
import { githubCache } from "../../db/schema/index.ts";
import { GitHubApiError } from "./client.ts";

/** The spec's cache ages (section 7, "Caching"). */
export const CACHE_AGE = {
  publicPageDetails: 60_000,
  codeHostRepositoryList: 5 * 60_000,
  other: 5 * 60_000,
} as const;

/** The signed-in user's repository list (services/repositories/user-repos.ts; installing the app forgets it). */
export const userRepositoriesCacheKey = (userId: number) => `user:${userId}:repos`;

export interface CachedValue<T> {
  data: T;
  /** True when GitHub failed and this is the last good copy. */
  stale: boolean;
  fetchedAt: Date;
}

const inflight = new Map<string, Promise<CachedValue<unknown>>>();

/**
 * GitHub data through the database cache: a fresh copy is returned as is;
 * otherwise one request per key goes to GitHub (concurrent callers share
 * it). When GitHub cannot answer (unreachable, 5xx, rate limited) the last
 * good copy is served, marked stale. A definite "no" (404, 403, 401) is not
 * papered over: the copy is dropped, so a repository that became private or
 * was deleted stops being shown.
 */
export async function cachedGitHub<T>(ctx: Pick<AppContext, "database" | "log">, key: string, maxAgeMs: number, fetch: () => Promise<T>): Promise<CachedValue<T>> {
  const db = ctx.database.db;
  const [row] = await db.select().from(githubCache).where(eq(githubCache.key, key)).limit(1);
  const now = Date.now();
  if (row && row.expiresAt.getTime() > now) return { data: JSON.parse(row.body) as T, stale: false, fetchedAt: row.fetchedAt };

  const pending = inflight.get(key);
  if (pending) return pending as Promise<CachedValue<T>>;
  const work = (async (): Promise<CachedValue<T>> => {
    try {
      const data = await fetch();
      const body = JSON.stringify(data);
      const fetchedAt = new Date();
      const set = { body, fetchedAt, expiresAt: new Date(fetchedAt.getTime() + maxAgeMs) };
      await db.insert(githubCache).values({ key, ...set }).onConflictDoUpdate({ target: githubCache.key, set });
      return { data, stale: false, fetchedAt };
    } catch (err) {
      const definite = err instanceof GitHubApiError && (err.status === 404 || err.status === 401 || (err.status === 403 && !err.rateLimited));
      if (definite) {
        await db.delete(githubCache).where(eq(githubCache.key, key));
        throw err;
      }
      if (row) {
        ctx.log.warn("github unavailable, serving the last good copy", { key, err: (err as Error).message });
        return { data: JSON.parse(row.body) as T, stale: true, fetchedAt: row.fetchedAt };
      }
      throw err;
    }
  })();
  inflight.set(key, work);
  try {
    return await work;
  } finally {
    inflight.delete(key);
  }
}

/** Drops a cached copy (after a webhook or an action says the data changed). */
export async function forgetCached(ctx: DatabaseDeps, key: string): Promise<void> {
  await ctx.database.db.delete(githubCache).where(eq(githubCache.key, key));
}
