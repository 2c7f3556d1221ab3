/**
 * The repository list of the original product's signed-in /repos screen
 * (GET /api/repositories/accessible) and its pool manager's Active switch
 * (PATCH /api/repositories/{githubRepoId}/active). docs/api.md, "Clients of
 * the original product".
 */
import { and, desc, eq, inArray, or } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { repositories, repositoryPools, type Currency, type User } from "../../../db/schema/index.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { ErrorCode, forbidden, notFound } from "../../errors.ts";

export interface AccessibleRepository {
  id: number;
  githubRepoFullName: string;
  registeredAt: string;
  isPrivate: boolean;
  isActive: boolean;
  xdcPoolRewards: string;
  roxnPoolRewards: string;
  usdcPoolRewards: string;
  poolInfoError: null;
}

/**
 * Registered repositories the user may see, newest first: every active public one; a private one only when the
 * user registered it or reaches it on GitHub (`reachable`: the ids of the user's GitHub repositories, read
 * through their token, cached; asked only when private repositories are registered at all). An inactive one
 * only for the pool manager who registered it (it left everyone else's list). Pools in whole tokens, as
 * decimal strings (USDC with 6 decimals).
 */
export async function accessibleRepositories(
  deps: { database: { db: Database } },
  user: Pick<User, "id">,
  reachable: () => Promise<Set<number>>,
): Promise<AccessibleRepository[]> {
  const db = deps.database.db;
  const rows = await db
    .select()
    .from(repositories)
    .where(or(and(eq(repositories.isPrivate, false), eq(repositories.isActive, true)), eq(repositories.isPrivate, true), eq(repositories.registeredByUserId, user.id)))
    .orderBy(desc(repositories.registeredAt), desc(repositories.githubRepoId));
  const privateOthers = rows.filter((r) => r.isPrivate && r.registeredByUserId !== user.id);
  const reached = privateOthers.length ? await reachable().catch(() => new Set<number>()) : new Set<number>();
  const visible = rows.filter((r) => {
    if (r.registeredByUserId === user.id) return true;
    if (!r.isActive) return false;
    return !r.isPrivate || reached.has(r.githubRepoId);
  });
  if (visible.length === 0) return [];
  const pools = await db.select().from(repositoryPools).where(inArray(repositoryPools.githubRepoId, visible.map((r) => r.githubRepoId)));
  const poolOf = (repoId: number, currency: Currency) => pools.find((p) => p.githubRepoId === repoId && p.currency === currency)?.balance ?? 0n;
  return visible.map((r) => ({
    id: r.githubRepoId,
    githubRepoFullName: r.fullName,
    registeredAt: r.registeredAt.toISOString(),
    isPrivate: r.isPrivate,
    isActive: r.isActive,
    xdcPoolRewards: toDecimalString(poolOf(r.githubRepoId, "XDC"), DECIMALS.XDC),
    roxnPoolRewards: toDecimalString(poolOf(r.githubRepoId, "ROXN"), DECIMALS.ROXN),
    usdcPoolRewards: toDecimalString(poolOf(r.githubRepoId, "USDC"), DECIMALS.USDC),
    poolInfoError: null,
  }));
}

/**
 * Marks a repository active or inactive: only the pool manager who registered it (anyone else: 403, since which
 * repositories are registered is public). Nothing else changes: pools, bounties and payouts stay as they are.
 */
export async function setRepositoryActive(
  deps: { database: { db: Database } },
  input: { user: Pick<User, "id">; githubRepoId: number; isActive: boolean },
): Promise<{ githubRepoId: number; fullName: string; isActive: boolean; isPrivate: boolean }> {
  const db = deps.database.db;
  const [repository] = await db.select().from(repositories).where(eq(repositories.githubRepoId, input.githubRepoId)).limit(1);
  if (!repository || (repository.isPrivate && repository.registeredByUserId !== input.user.id)) throw notFound("Repository not found");
  if (repository.registeredByUserId !== input.user.id) throw forbidden("Only the pool manager who registered this repository can change whether it is active.", ErrorCode.NOT_OWNER);
  await db.update(repositories).set({ isActive: input.isActive, updatedAt: new Date() }).where(eq(repositories.githubRepoId, input.githubRepoId));
  return { githubRepoId: repository.githubRepoId, fullName: repository.fullName, isActive: input.isActive, isPrivate: repository.isPrivate };
}
