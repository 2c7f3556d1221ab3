import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { repositories, repositoryPools, type Currency } from "../../../db/schema/index.ts";

export interface PublicRepository {
  id: number;
  githubRepoFullName: string;
  description: string | null;
  /** Unallocated pool per currency, in the smallest unit. */
  pools: Record<Currency, bigint>;
  registeredAt: Date;
}

/**
 * Registered public repositories with their pools, newest first. Private
 * repositories never leave this function. `activeOnly`: without the ones
 * their pool manager marked inactive (the /repos list; the repository keeps
 * its page, pools and bounties).
 */
export async function listPublicRepositories(db: Database, options: { activeOnly?: boolean } = {}): Promise<PublicRepository[]> {
  const rows = await db
    .select({
      id: repositories.githubRepoId,
      fullName: repositories.fullName,
      description: repositories.description,
      registeredAt: repositories.registeredAt,
    })
    .from(repositories)
    .where(options.activeOnly ? and(eq(repositories.isPrivate, false), eq(repositories.isActive, true)) : eq(repositories.isPrivate, false))
    .orderBy(desc(repositories.registeredAt), desc(repositories.githubRepoId));
  if (rows.length === 0) return [];
  // By slices: SQLite limits the bound parameters of one statement.
  const pools: (typeof repositoryPools.$inferSelect)[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    pools.push(...(await db.select().from(repositoryPools).where(inArray(repositoryPools.githubRepoId, rows.slice(i, i + 500).map((r) => r.id)))));
  }
  const byRepo = new Map<number, Record<Currency, bigint>>();
  for (const p of pools) {
    const entry = byRepo.get(p.githubRepoId) ?? { XDC: 0n, ROXN: 0n, USDC: 0n };
    entry[p.currency] = p.balance;
    byRepo.set(p.githubRepoId, entry);
  }
  return rows.map((r) => ({
    id: r.id,
    githubRepoFullName: r.fullName,
    description: r.description,
    pools: byRepo.get(r.id) ?? { XDC: 0n, ROXN: 0n, USDC: 0n },
    registeredAt: r.registeredAt,
  }));
}

/** Repositories a user registered, for their /my-repos page. */
export async function listRegisteredBy(db: Database, userId: number) {
  return db
    .select({ githubRepoId: repositories.githubRepoId, fullName: repositories.fullName, description: repositories.description })
    .from(repositories)
    .where(eq(repositories.registeredByUserId, userId))
    .orderBy(desc(repositories.registeredAt));
}

/**
 * A page of the listed repositories (public and active), newest first, for new clients
 * (GET /api/repositories/public?limit=&cursor=): keyset on (registeredAt, id) by repositories_listed_idx.
 */
export async function listedRepositoriesPage(db: Database, page: { limit: number; after?: { registeredAt: number; id: number } }) {
  const rows = await db
    .select({ id: repositories.githubRepoId, fullName: repositories.fullName, description: repositories.description, registeredAt: repositories.registeredAt })
    .from(repositories)
    .where(
      and(
        eq(repositories.isPrivate, false),
        eq(repositories.isActive, true),
        page.after ? sql`(${repositories.registeredAt}, ${repositories.githubRepoId}) < (${page.after.registeredAt}, ${page.after.id})` : undefined,
      ),
    )
    .orderBy(desc(repositories.registeredAt), desc(repositories.githubRepoId))
    .limit(page.limit + 1);
  const shown = rows.slice(0, page.limit);
  const pools = shown.length ? await db.select().from(repositoryPools).where(inArray(repositoryPools.githubRepoId, shown.map((r) => r.id))) : [];
  const byRepo = new Map<number, Record<Currency, bigint>>();
  for (const p of pools) {
    const entry = byRepo.get(p.githubRepoId) ?? { XDC: 0n, ROXN: 0n, USDC: 0n };
    entry[p.currency] = p.balance;
    byRepo.set(p.githubRepoId, entry);
  }
  const last = shown.at(-1);
  return {
    repositories: shown.map((r): PublicRepository => ({ id: r.id, githubRepoFullName: r.fullName, description: r.description, pools: byRepo.get(r.id) ?? { XDC: 0n, ROXN: 0n, USDC: 0n }, registeredAt: r.registeredAt })),
    next: rows.length > page.limit && last ? { registeredAt: last.registeredAt.getTime(), id: last.id } : null,
  };
}
