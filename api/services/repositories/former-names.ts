/**
 * Renames and transfers, to the end (issue 39, item 6). The repository's GitHub id is the key everywhere, so a
 * renamed or transferred repository keeps its pool, bounties and payouts; its full name follows GitHub. What
 * follows the old name is here: every former `owner/name` of a registered repository is kept
 * (db/schema/repository-names.ts), and the addresses shared with it (public page, repository page, badge, embed,
 * feed) redirect to the current name, while saved searches and explore filters on the old name keep matching.
 *
 * Which repository an old name means: a registered repository that has that name now always wins (GitHub lets a
 * new repository take a freed name, and then the old redirect ends there too); otherwise the one that left the
 * name most recently. A repository that is private now is never the target of a redirect: its new name would
 * show.
 */
import { and, desc, eq, ne, sql, type SQL } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";

/** What these read (not the context: the explore search, which the indexer reaches, imports this module). */
type DatabaseDeps = { database: { db: Database } };
import { repositories, repositoryFormerNames, type Repository, type RepositoryMove } from "../../../db/schema/index.ts";

/** A redirect may be remembered by browsers and caches this long (a former name can be taken by a new repository later). */
export const MOVED_MAX_AGE_S = 3600;

/**
 * Called before a registered repository's full name is written: when GitHub's name differs from the stored one,
 * the stored one becomes a former name (once per name and repository; moving back to a former name takes it off
 * the list). Returns whether the name changed.
 */
export async function followRepositoryName(db: Database, repoId: number, newFullName: string, move: RepositoryMove, at = new Date()): Promise<boolean> {
  const [current] = await db.select({ fullName: repositories.fullName, fullNameKey: repositories.fullNameKey }).from(repositories).where(eq(repositories.githubRepoId, repoId)).limit(1);
  const newKey = newFullName.toLowerCase();
  if (!current || current.fullNameKey === newKey) return false;
  await db
    .insert(repositoryFormerNames)
    .values({ githubRepoId: repoId, fullName: current.fullName, fullNameKey: current.fullNameKey, move, movedAt: at })
    .onConflictDoUpdate({ target: [repositoryFormerNames.fullNameKey, repositoryFormerNames.githubRepoId], set: { fullName: current.fullName, move, movedAt: at } });
  await db.delete(repositoryFormerNames).where(and(eq(repositoryFormerNames.githubRepoId, repoId), eq(repositoryFormerNames.fullNameKey, newKey)));
  return true;
}

/**
 * The registered repository that `fullName` was a former name of, when no registered repository has that name now
 * (the latest to leave it). Private repositories are included: callers decide what a private one may show.
 */
export async function movedRepository(ctx: DatabaseDeps, fullName: string): Promise<Repository | undefined> {
  const key = fullName.toLowerCase();
  const db = ctx.database.db;
  const [current] = await db.select({ id: repositories.githubRepoId }).from(repositories).where(eq(repositories.fullNameKey, key)).limit(1);
  if (current) return undefined;
  const [row] = await db
    .select({ repository: repositories })
    .from(repositoryFormerNames)
    .innerJoin(repositories, eq(repositories.githubRepoId, repositoryFormerNames.githubRepoId))
    .where(and(eq(repositoryFormerNames.fullNameKey, key), ne(repositories.fullNameKey, key)))
    .orderBy(desc(repositoryFormerNames.movedAt), desc(repositoryFormerNames.id))
    .limit(1);
  return row?.repository;
}

/**
 * Where an old address of a public repository goes now: the same path with the current `owner/name` in place of
 * the old one (query kept), or undefined when `owner/name` is not a former name of a public registered repository.
 */
export async function movedAddress(ctx: DatabaseDeps, owner: string, name: string, build: (current: Repository) => string): Promise<string | undefined> {
  const moved = await movedRepository(ctx, `${owner}/${name}`);
  if (!moved || moved.isPrivate) return undefined;
  return build(moved);
}

/** The former names of a repository, latest first (the repository's history of names). */
export async function formerNamesOf(ctx: DatabaseDeps, repoId: number) {
  return ctx.database.db
    .select({ fullName: repositoryFormerNames.fullName, move: repositoryFormerNames.move, movedAt: repositoryFormerNames.movedAt })
    .from(repositoryFormerNames)
    .where(eq(repositoryFormerNames.githubRepoId, repoId))
    .orderBy(desc(repositoryFormerNames.movedAt), desc(repositoryFormerNames.id));
}

/**
 * SQL for "the GitHub id of the repository this lower-cased name means": its current name, or else the latest
 * repository that left it (saved searches and explore filters written with an old name keep matching).
 */
export function repositoryIdNamed(key: string): SQL {
  return sql`coalesce(
    (select github_repo_id from repositories where full_name_key = ${key}),
    (select f.github_repo_id from repository_former_names f where f.full_name_key = ${key} order by f.moved_at desc, f.id desc limit 1)
  )`;
}
