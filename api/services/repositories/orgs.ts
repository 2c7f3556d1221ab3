/**
 * Organisations on the original product's my-repos screen (GET
 * /api/github/user/orgs, GET /api/github/orgs/{org}/repos): the user's
 * active admin memberships and, per organisation, the repositories they
 * administer, each with whether it is registered here. Read through the
 * user's own GitHub token, cached like the other per-user GitHub lists
 * (5 minutes).
 */
import { inArray } from "drizzle-orm";
import type { AppContext, GitHubDeps } from "../../context.ts";
import { repositories, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, forbidden } from "../../errors.ts";
import { createGitHubClient, GitHubApiError, type GitHubClient } from "../../github/client.ts";
import type { GitHubRepo } from "../../github/repositories.ts";
import { CACHE_AGE, cachedGitHub } from "../../github/cache.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";

interface Membership {
  state: string;
  role: string;
  organization: { login: string; avatar_url: string };
}

export interface AdminOrg {
  login: string;
  avatar_url: string;
}

export interface OrgRepository {
  id: number;
  name: string;
  full_name: string;
  description: string | null;
  private: boolean;
  html_url: string;
  updated_at: string | null;
  isRegistered: boolean;
}

async function clientFor(ctx: Pick<AppContext, "env" | "keyring">, user: User): Promise<GitHubClient> {
  const token = await userGitHubToken(ctx, user);
  if (!token) throw new DomainError({ code: ErrorCode.GITHUB_SIGN_IN_REQUIRED, error: "Unauthorized", message: "GitHub token not available: sign in with GitHub again." });
  return createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token });
}

const failed = (err: unknown) =>
  new DomainError({
    code: err instanceof GitHubApiError && err.status === 401 ? ErrorCode.GITHUB_SIGN_IN_REQUIRED : ErrorCode.GITHUB_UNAVAILABLE,
    error: "Failed to fetch GitHub organizations",
    message: "Failed to fetch GitHub organizations",
  });

/** The user's active admin memberships (none when GitHub refuses to list them, e.g. a token without read:org). */
export async function adminOrganizations(ctx: GitHubDeps, user: User): Promise<AdminOrg[]> {
  const client = await clientFor(ctx, user);
  try {
    const cached = await cachedGitHub(ctx, `user:${user.id}:orgs`, CACHE_AGE.codeHostRepositoryList, async () => {
      const memberships = await client.paginate<Membership>("/user/memberships/orgs", { state: "active" }, 5).catch((err) => {
        if (err instanceof GitHubApiError && (err.status === 403 || err.status === 404)) return [] as Membership[];
        throw err;
      });
      return memberships
        .filter((m) => m.state === "active" && m.role === "admin")
        .map((m) => ({ login: m.organization.login, avatar_url: m.organization.avatar_url }));
    });
    return cached.data;
  } catch (err) {
    throw failed(err);
  }
}

/** The organisation's repositories the user administers (up to 100, latest updated first). 403 unless an admin of it. */
export async function adminOrganizationRepositories(ctx: GitHubDeps, user: User, org: string): Promise<OrgRepository[]> {
  const orgs = await adminOrganizations(ctx, user);
  if (!orgs.some((o) => o.login.toLowerCase() === org.toLowerCase())) throw forbidden("You must be an admin of this organization", ErrorCode.ADMIN_REQUIRED);
  const client = await clientFor(ctx, user);
  let repos: Omit<OrgRepository, "isRegistered">[];
  try {
    repos = (
      await cachedGitHub(ctx, `user:${user.id}:org:${org.toLowerCase()}:repos`, CACHE_AGE.codeHostRepositoryList, async () => {
        const list = await client.get<GitHubRepo[]>(`/orgs/${encodeURIComponent(org)}/repos`, { sort: "updated", per_page: "100" });
        return list
          .filter((r) => r.permissions?.admin)
          .map((r) => ({ id: r.id, name: r.name, full_name: r.full_name, description: r.description, private: r.private, html_url: r.html_url, updated_at: r.updated_at }));
      })
    ).data;
  } catch (err) {
    throw failed(err);
  }
  const ids = repos.map((r) => r.id);
  const registered = ids.length
    ? new Set((await ctx.database.db.select({ id: repositories.githubRepoId }).from(repositories).where(inArray(repositories.githubRepoId, ids))).map((r) => r.id))
    : new Set<number>();
  return repos.map((r) => ({ ...r, isRegistered: registered.has(r.id) }));
}
