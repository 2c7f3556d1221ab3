import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, notExists, or, sql, type SQL } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { communityBounties, repositories, repositoryVisibility, users, type RepositoryVisibilityReason, type User } from "../../../db/schema/index.ts";
import { createGitHubClient, GitHubApiError } from "../../github/client.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";

/**
 * Community bounties follow their repository's visibility (issue 36, item 6): a repository that turns private, is
 * deleted or can no longer be read takes its community bounties out of every public answer (the list, the detail,
 * the leaderboard), as a registered repository's bounties leave the public pages.
 *
 * How the platform learns it:
 * - a registered repository with the App installed: from the `repository` webhook (privatized, deleted), which keeps
 *   `repositories.is_private` (github-events/repository.ts). That flag decides for it.
 * - any other repository (never registered, or its App uninstalled: then its `is_private` follows the answer, so
 *   the pages that read it drop it too): no webhook comes, so GitHub is asked again
 *   (`GET /repositories/{id}`: by id, so a rename or transfer is followed) when its answer is older than
 *   VISIBILITY_MAX_AGE_MS, by the reads that serve community bounties, a few repositories per read and within a
 *   deadline (the read never waits long for GitHub), each repository asked by one read at a time in a process. The
 *   answer is kept in `repository_visibility`. Asked as the bounty's creator (their GitHub token, 5,000 calls an
 *   hour, GitHub's own rule for what they may see), anonymously when the platform has no token of theirs.
 *   200 and public: shown; 200 and private, or 404: hidden; GitHub unreachable, rate-limited or failing: the last
 *   answer stays (a repository already checked is not hidden by an outage, nor shown again by one), asked again
 *   after the cache's age.
 * A repository never asked yet counts as public: its community bounty was created on a public repository
 * (fundableIssue refuses private ones), and the first read after it asks.
 */
export const VISIBILITY_MAX_AGE_MS = 10 * 60_000;
/** Repositories asked about by one read at most (the oldest answers first); the others wait for the next read. */
export const VISIBILITY_CHECKS_PER_READ = 10;
/** How long a read waits for those answers; a slower answer is still kept, for the next read. */
export const VISIBILITY_READ_DEADLINE_MS = 3_000;

type Deps = Pick<AppContext, "env" | "database" | "log" | "keyring" | "changes">;

/** The repositories whose visibility only GitHub can tell (no App installation among the registered ones). */
const watchedByWebhook = (repoId: SQL | typeof communityBounties.githubRepoId) =>
  sql`exists (select 1 from repositories r where r.github_repo_id = ${repoId} and r.installation_id is not null)`;

/**
 * The condition a community bounty's row must meet to be shown: its repository is not known to be private (the
 * webhook's flag for registered repositories; GitHub's last answer for the others).
 */
export function communityBountyShown(): SQL {
  const repoId = communityBounties.githubRepoId;
  return sql`not exists (select 1 from repositories r where r.github_repo_id = ${repoId} and r.is_private = 1)
    and (${watchedByWebhook(repoId)} or not exists (select 1 from repository_visibility v where v.github_repo_id = ${repoId} and v.public = 0))`;
}

const inFlight = new Map<number, Promise<void>>();

/**
 * Asks GitHub again about the repositories of community bounties whose answer is missing or older than `maxAgeMs`
 * (at most VISIBILITY_CHECKS_PER_READ, oldest first; `repoIds` narrows to those), waiting at most the deadline.
 */
export async function refreshCommunityVisibility(
  deps: Deps,
  options: { repoIds?: number[]; maxAgeMs?: number; deadlineMs?: number; now?: number } = {},
): Promise<void> {
  const db = deps.database.db;
  const now = options.now ?? Date.now();
  const staleBefore = new Date(now - (options.maxAgeMs ?? VISIBILITY_MAX_AGE_MS));
  const stale = await db
    .selectDistinct({ repoId: communityBounties.githubRepoId, checkedAt: repositoryVisibility.checkedAt })
    .from(communityBounties)
    .leftJoin(repositoryVisibility, eq(repositoryVisibility.githubRepoId, communityBounties.githubRepoId))
    .where(
      and(
        options.repoIds ? inArray(communityBounties.githubRepoId, options.repoIds) : undefined,
        or(isNull(repositoryVisibility.checkedAt), lt(repositoryVisibility.checkedAt, staleBefore)),
        notExists(db.select({ one: sql`1` }).from(repositories).where(and(eq(repositories.githubRepoId, communityBounties.githubRepoId), isNotNull(repositories.installationId)))),
      ),
    )
    .orderBy(asc(sql`coalesce(${repositoryVisibility.checkedAt}, 0)`))
    .limit(VISIBILITY_CHECKS_PER_READ);
  if (!stale.length) return;
  const checks = stale.map(({ repoId }) => {
    let check = inFlight.get(repoId);
    if (!check) {
      check = checkRepository(deps, repoId, now)
        .catch((err: unknown) => deps.log.warn("community visibility check failed", { repoId, err: (err as Error).message }))
        .finally(() => inFlight.delete(repoId));
      inFlight.set(repoId, check);
    }
    return check;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([Promise.all(checks), new Promise<void>((done) => (timer = setTimeout(done, options.deadlineMs ?? VISIBILITY_READ_DEADLINE_MS)))]);
  clearTimeout(timer);
}

/** One repository asked, the answer (or, when GitHub cannot tell, the time it was asked) kept. */
async function checkRepository(deps: Deps, repoId: number, now: number): Promise<void> {
  const db = deps.database.db;
  // The creator of its newest community bounty asks, when the platform holds their token.
  const [creator] = await db
    .select({ user: users })
    .from(communityBounties)
    .innerJoin(users, eq(users.id, communityBounties.createdByUserId))
    .where(eq(communityBounties.githubRepoId, repoId))
    .orderBy(desc(communityBounties.createdAt))
    .limit(1);
  const answer = await askGitHub(deps, repoId, creator?.user);
  const checkedAt = new Date(now);
  if (answer === undefined) {
    // No answer: the last one stays; asked again after the cache's age.
    await db.update(repositoryVisibility).set({ checkedAt }).where(eq(repositoryVisibility.githubRepoId, repoId));
    return;
  }
  const row = { public: answer === "public", reason: answer, checkedAt };
  const [before] = await db.select().from(repositoryVisibility).where(eq(repositoryVisibility.githubRepoId, repoId)).limit(1);
  await db.insert(repositoryVisibility).values({ githubRepoId: repoId, ...row }).onConflictDoUpdate({ target: repositoryVisibility.githubRepoId, set: row });
  // A registered repository whose App is gone gets no webhook either: its flag follows GitHub's answer, so every
  // public page (explore, feeds, badges, the repository page) drops or shows it as the webhook would have made them.
  const flagged = await db
    .update(repositories)
    .set({ isPrivate: !row.public, updatedAt: checkedAt })
    .where(and(eq(repositories.githubRepoId, repoId), isNull(repositories.installationId), eq(repositories.isPrivate, row.public)))
    .returning({ id: repositories.githubRepoId });
  if ((before?.public ?? true) !== row.public || flagged.length) {
    deps.log.info("community bounties' repository visibility changed", { repoId, visibility: answer });
    deps.changes.publish(["repositories", `repo:${repoId}`]);
  }
}

async function askGitHub(deps: Deps, repoId: number, creator: User | undefined): Promise<RepositoryVisibilityReason | undefined> {
  const token = creator ? await userGitHubToken(deps, creator).catch(() => undefined) : undefined;
  for (const as of token ? [token, undefined] : [undefined]) {
    const client = createGitHubClient({ apiUrl: deps.env.GITHUB_API_URL, token: as, timeoutMs: VISIBILITY_READ_DEADLINE_MS });
    try {
      const repo = await client.get<{ id: number; private: boolean }>(`/repositories/${repoId}`);
      return repo.private ? "private" : "public";
    } catch (err) {
      if (!(err instanceof GitHubApiError)) throw err;
      if (err.status === 404 || err.status === 451) return "not_found";
      // A token GitHub no longer takes: ask anonymously. Anything else (5xx, rate limit, unreachable): no answer.
      if (err.status === 401 && as) continue;
      return undefined;
    }
  }
  return undefined;
}
