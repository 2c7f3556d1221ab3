import { and, desc, eq, inArray } from "drizzle-orm";
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
  const pools = await db
    .select()
    .from(repositoryPools)
    .where(and(inArray(repositoryPools.githubRepoId, rows.map((r) => r.id))));
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
