import { inArray } from "drizzle-orm";
import type { GitHubDeps } from "../../context.ts";
import { repositories, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, hasCode } from "../../errors.ts";
import { createGitHubClient, GitHubApiError } from "../../github/client.ts";
import { encodeFullName, repositoryAsUser, type GitHubRepo } from "../../github/repositories.ts";
import { clientForRepository, openIssues } from "../../github/data.ts";
import { repositoryByFullName } from "./register.ts";
import { CACHE_AGE, cachedGitHub, forgetCached, userRepositoriesCacheKey } from "../../github/cache.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";
import type { GitHubInstallation } from "./installations.ts";

export interface UserRepository {
  id: number;
  name: string;
  full_name: string;
  description: string | null;
  html_url: string;
  private: boolean;
  permissions: { admin: boolean; push: boolean; pull: boolean };
  /** The Issuepool app is installed on it. */
  appInstalled: boolean;
  installationId: number | null;
  registered: boolean;
}

/**
 * GET /api/github/user/repos: the signed-in user's repositories as GitHub
 * lists them, with their admin flag, whether the app is installed on each
 * (from the installations the user can see) and whether it is registered.
 * GitHub's part is cached for 5 minutes per user (spec: code-host list).
 */
export async function userRepositories(ctx: GitHubDeps, user: User, options: { refresh?: boolean } = {}): Promise<{ repositories: UserRepository[]; stale: boolean }> {
  if (options.refresh) await forgetCached(ctx, userRepositoriesCacheKey(user.id));
  const token = await userGitHubToken(ctx, user);
  if (!token) throw new DomainError({ code: ErrorCode.GITHUB_SIGN_IN_REQUIRED, error: "Unauthorized", message: "Sign in with GitHub again to continue." });
  const client = createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token });
  let cached;
  try {
    cached = await cachedGitHub(ctx, userRepositoriesCacheKey(user.id), CACHE_AGE.codeHostRepositoryList, async () => {
      // Through the app's user token GitHub lists only repositories the app is installed on;
      // the user's own public repositories come from their public listing (owners are admins).
      const viaApp = await client.paginate<GitHubRepo>("/user/repos", { sort: "updated", affiliation: "owner,collaborator,organization_member" }, 10);
      const owned = await client.paginate<GitHubRepo>(`/users/${encodeURIComponent(user.username)}/repos`, { type: "owner" }, 10);
      const repos = [...viaApp, ...owned.filter((o) => !viaApp.some((r) => r.id === o.id))];
      const installed = new Map<number, number>();
      const installations = await client.paginateField<GitHubInstallation>("/user/installations", "installations");
      for (const installation of installations) {
        const covered = await client.paginateField<{ id: number }>(`/user/installations/${installation.id}/repositories`, "repositories");
        for (const repo of covered) installed.set(repo.id, installation.id);
      }
      return repos.map((r) => ({
        id: r.id,
        name: r.name,
        full_name: r.full_name,
        description: r.description,
        html_url: r.html_url,
        private: r.private,
        permissions: { admin: Boolean(r.permissions?.admin), push: Boolean(r.permissions?.push), pull: Boolean(r.permissions?.pull) },
        installationId: installed.get(r.id) ?? null,
      }));
    });
  } catch (err) {
    throw new DomainError({
      code: err instanceof GitHubApiError && err.status === 401 ? ErrorCode.GITHUB_SIGN_IN_REQUIRED : ErrorCode.GITHUB_UNAVAILABLE,
      error: "Failed to fetch GitHub repositories",
      message: "Failed to fetch GitHub repositories",
    });
  }
  const ids = cached.data.map((r) => r.id);
  const registered = ids.length
    ? new Set((await ctx.database.db.select({ id: repositories.githubRepoId }).from(repositories).where(inArray(repositories.githubRepoId, ids))).map((r) => r.id))
    : new Set<number>();
  return {
    repositories: cached.data.map((r) => ({ ...r, appInstalled: r.installationId !== null, registered: registered.has(r.id) })),
    stale: cached.stale,
  };
}

export const failedFromGitHub = () =>
  new DomainError({ code: ErrorCode.GITHUB_UNAVAILABLE, error: "Failed to fetch repository details from GitHub", message: "Failed to fetch repository details from GitHub" });

/**
 * GET /api/github/repos/{owner}/{name}: a repository as the signed-in user
 * sees it on GitHub (private ones included, with their admin right), its
 * open issues and whether it is registered.
 */
export async function repositoryForUser(ctx: GitHubDeps, user: User | null, fullName: string) {
  const repo = user
    ? await repositoryAsUser(ctx, user, fullName).catch((err) => {
        if (hasCode(err, ErrorCode.GITHUB_UNAVAILABLE)) throw failedFromGitHub();
        throw err;
      })
    : await publicRepositoryOnGitHub(ctx, fullName);
  const registered = await repositoryByFullName(ctx, repo.full_name);
  const client = await clientForRepository(ctx, registered, user);
  const issues = await openIssues(ctx, repo.full_name, repo.id, client).catch((err) => {
    if (err instanceof GitHubApiError) throw failedFromGitHub();
    throw err;
  });
  return {
    repo: {
      id: repo.id,
      name: repo.name,
      full_name: repo.full_name,
      description: repo.description,
      html_url: repo.html_url,
      private: repo.private,
      permissions: { admin: Boolean(repo.permissions?.admin) },
    },
    issues: issues.data,
    registered: Boolean(registered),
    stale: issues.stale,
  };
}

export type RepositoryForUser = Awaited<ReturnType<typeof repositoryForUser>>;

/**
 * A repository as an anonymous visitor may see it (spec section 7: public repositories are readable signed
 * out): read with the app's installation when registered (the platform's quota), else anonymously; a private
 * repository is 404 whatever credential could read it.
 */
async function publicRepositoryOnGitHub(ctx: GitHubDeps, fullName: string): Promise<GitHubRepo> {
  const registered = await repositoryByFullName(ctx, fullName);
  const client = await clientForRepository(ctx, registered?.isPrivate ? null : registered, null);
  const notFound = () => new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: "Repository not found." });
  const repo = await client.get<GitHubRepo>(`/repos/${encodeFullName(fullName)}`).catch((err) => {
    if (err instanceof GitHubApiError && err.status === 404) throw notFound();
    throw failedFromGitHub();
  });
  if (repo.private) throw notFound();
  return { ...repo, permissions: undefined };
}
