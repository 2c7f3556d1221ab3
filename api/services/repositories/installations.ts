import { and, eq, inArray, notInArray } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { githubInstallations, repositories, type User } from "../../../db/schema/index.ts";
import { notFound } from "../../errors.ts";
import { appClient, installationClient } from "../../github/app-auth.ts";
import { createGitHubClient, GitHubApiError } from "../../github/client.ts";
import { encodeFullName, githubUnavailable } from "../../github/repositories.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";
import { forgetCached, userRepositoriesCacheKey } from "../../github/cache.ts";

export interface GitHubInstallation {
  id: number;
  account: { id: number; login: string; type: string };
  repository_selection: string;
  suspended_at?: string | null;
}

/** Records (or refreshes) an installation as GitHub describes it. */
export async function upsertInstallation(ctx: DatabaseDeps, installation: GitHubInstallation): Promise<void> {
  const values = {
    accountId: installation.account.id,
    accountLogin: installation.account.login,
    accountType: installation.account.type,
    repositorySelection: installation.repository_selection,
    suspendedAt: installation.suspended_at ? new Date(installation.suspended_at) : null,
    deletedAt: null,
    updatedAt: new Date(),
  };
  await ctx.database.db
    .insert(githubInstallations)
    .values({ installationId: installation.id, ...values })
    .onConflictDoUpdate({ target: githubInstallations.installationId, set: values });
}

/**
 * Links registered repositories to the installation that covers them, and
 * unlinks those it no longer covers. Returns how many are linked to it.
 */
export async function linkInstallationRepositories(ctx: Pick<AppContext, "database" | "changes">, installationId: number, repoIds: number[]): Promise<number> {
  const db = ctx.database.db;
  const linked = repoIds.length
    ? await db
        .update(repositories)
        .set({ installationId, updatedAt: new Date() })
        .where(inArray(repositories.githubRepoId, repoIds))
        .returning({ id: repositories.githubRepoId })
    : [];
  await db
    .update(repositories)
    .set({ installationId: null, updatedAt: new Date() })
    .where(and(eq(repositories.installationId, installationId), repoIds.length ? notInArray(repositories.githubRepoId, repoIds) : undefined));
  ctx.changes.publish(["repositories", ...linked.map((r) => `repo:${r.id}`)]);
  return linked.length;
}

export async function installationRepositoryIds(ctx: Pick<AppContext, "env">, installationId: number): Promise<number[]> {
  const client = await installationClient(ctx, installationId);
  const repos = await client.paginateField<{ id: number }>("/installation/repositories", "repositories", {}, 50);
  return repos.map((r) => r.id);
}

/**
 * POST /api/github/app/finalize-installation: after GitHub sends a maintainer
 * back from the install page, record the installation, but only if GitHub
 * confirms this user can access it (an installation id in a URL proves
 * nothing). Answers how many registered repositories it now covers.
 */
export async function finalizeInstallation(ctx: Pick<AppContext, "env" | "database" | "keyring" | "changes">, user: User, installationId: number): Promise<{ count: number; installationId: number }> {
  const token = await userGitHubToken(ctx, user);
  if (!token) throw notFound("Installation not found.");
  let accessible: GitHubInstallation | undefined;
  try {
    const mine = await createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token }).paginateField<GitHubInstallation>("/user/installations", "installations");
    accessible = mine.find((i) => i.id === installationId);
  } catch (err) {
    if (err instanceof GitHubApiError && err.status < 500 && !err.rateLimited) throw notFound("Installation not found.");
    throw githubUnavailable();
  }
  if (!accessible) throw notFound("Installation not found.");
  const installation = await (await appClient(ctx)).get<GitHubInstallation>(`/app/installations/${installationId}`);
  await upsertInstallation(ctx, installation);
  // The user's repository list shows which repositories have the app: not the copy from before installing.
  await forgetCached(ctx, userRepositoriesCacheKey(user.id));
  const count = await linkInstallationRepositories(ctx, installationId, await installationRepositoryIds(ctx, installationId));
  return { count, installationId };
}

/** The installation of the app on a repository, or undefined when the app is not installed there. */
export async function installationForRepository(ctx: Pick<AppContext, "env">, fullName: string): Promise<GitHubInstallation | undefined> {
  try {
    return await (await appClient(ctx)).get<GitHubInstallation>(`/repos/${encodeFullName(fullName)}/installation`);
  } catch (err) {
    if (err instanceof GitHubApiError && err.status === 404) return undefined;
    throw githubUnavailable();
  }
}

export async function markInstallationDeleted(ctx: Pick<AppContext, "database" | "changes">, installationId: number): Promise<void> {
  const db = ctx.database.db;
  await db.update(githubInstallations).set({ deletedAt: new Date(), updatedAt: new Date() }).where(eq(githubInstallations.installationId, installationId));
  const unlinked = await db
    .update(repositories)
    .set({ installationId: null, updatedAt: new Date() })
    .where(eq(repositories.installationId, installationId))
    .returning({ id: repositories.githubRepoId });
  ctx.changes.publish(["repositories", ...unlinked.map((r) => `repo:${r.id}`)]);
}

