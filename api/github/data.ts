import type { AppContext } from "../context.ts";
import type { Repository, User } from "../../db/schema/index.ts";
import { userGitHubToken } from "../services/auth/github-sign-in.ts";
import { installationClient } from "./app-auth.ts";
import { createGitHubClient, type GitHubClient } from "./client.ts";
import { encodeFullName, type GitHubRepo } from "./repositories.ts";
import { CACHE_AGE, cachedGitHub, type CachedValue } from "./cache.ts";

/** The issue fields the platform reads and returns (spec section 3, "Issue"). */
export interface GitHubIssue {
  id: number;
  number: number;
  title: string;
  state: "open" | "closed";
  state_reason?: string | null;
  html_url: string;
  body: string | null;
  labels: { id: number; name: string; color: string; description?: string | null }[];
  user: { login: string; id: number; type?: string } | null;
  comments: number;
  created_at: string;
  updated_at: string;
  pull_request?: unknown;
}

export type IssueSummary = Pick<GitHubIssue, "id" | "number" | "title" | "state" | "html_url" | "body" | "labels" | "comments" | "created_at" | "updated_at"> & {
  author: string | null;
};

/**
 * Which credential reads a repository: its installation's token when the app
 * is installed (the platform's own quota, private repositories included),
 * else the signed-in user's token, else none (public data only, GitHub's
 * anonymous quota).
 */
export async function clientForRepository(ctx: Pick<AppContext, "env" | "log" | "keyring">, repository?: Pick<Repository, "installationId"> | null, user?: User | null): Promise<GitHubClient> {
  if (repository?.installationId) {
    try {
      return await installationClient(ctx, repository.installationId);
    } catch (err) {
      ctx.log.warn("installation token unavailable, falling back", { installationId: repository.installationId, err: (err as Error).message });
    }
  }
  const token = user ? await userGitHubToken(ctx, user) : undefined;
  return createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token });
}

export function summarizeIssue(issue: GitHubIssue): IssueSummary {
  return {
    id: issue.id,
    number: issue.number,
    title: issue.title,
    state: issue.state,
    html_url: issue.html_url,
    body: issue.body,
    labels: issue.labels.map((l) => ({ id: l.id, name: l.name, color: l.color })),
    comments: issue.comments,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    author: issue.user?.login ?? null,
  };
}

/** Open issues that are not pull requests (GitHub lists both under /issues), cached with the spec's "other data" age. */
export function openIssues(ctx: Pick<AppContext, "database" | "log">, fullName: string, repoId: number, client: GitHubClient, maxAgeMs: number = CACHE_AGE.other): Promise<CachedValue<IssueSummary[]>> {
  return cachedGitHub(ctx, issuesCacheKey(repoId), maxAgeMs, async () => {
    const all = await client.paginate<GitHubIssue>(`/repos/${encodeFullName(fullName)}/issues`, { state: "open" }, 20);
    return all.filter((i) => !i.pull_request && !/\/pull\//.test(i.html_url)).map(summarizeIssue);
  });
}

export const issuesCacheKey = (repoId: number) => `repo:${repoId}:issues`;
export const repoCacheKey = (repoId: number) => `repo:${repoId}:info`;

/** GitHub's repository fields (without permissions), its owner's avatar, and how many contributors it has. */
export interface RepoPublicInfo extends Omit<GitHubRepo, "owner" | "permissions"> {
  owner: { login: string; avatar_url?: string };
  contributors_count: number | null;
}

/** A repository's public details and contributor count, cached for the public page (60 s). */
export function repositoryInfo(ctx: Pick<AppContext, "database" | "log">, fullName: string, repoId: number, client: GitHubClient): Promise<CachedValue<RepoPublicInfo>> {
  return cachedGitHub(ctx, repoCacheKey(repoId), CACHE_AGE.publicPageDetails, async () => {
    const repo = await client.get<GitHubRepo & { owner: { login: string; avatar_url?: string } }>(`/repos/${encodeFullName(fullName)}`);
    const contributors = await client
      .paginate<{ login: string }>(`/repos/${encodeFullName(fullName)}/contributors`, { anon: 1 }, 5)
      .then((list) => list.length)
      .catch(() => null);
    return {
      id: repo.id,
      name: repo.name,
      full_name: repo.full_name,
      description: repo.description,
      html_url: repo.html_url,
      private: repo.private,
      stargazers_count: repo.stargazers_count,
      forks_count: repo.forks_count,
      created_at: repo.created_at,
      updated_at: repo.updated_at,
      pushed_at: repo.pushed_at,
      owner: { login: repo.owner.login, avatar_url: repo.owner.avatar_url },
      contributors_count: contributors,
    };
  });
}
