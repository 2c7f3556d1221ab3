import type { AppContext } from "../context.ts";
import type { User } from "../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../errors.ts";
import { userGitHubToken } from "../services/auth/github-sign-in.ts";
import { createGitHubClient, GitHubApiError } from "./client.ts";

/** The repository fields the platform reads (GitHub's REST shape). */
export interface GitHubRepo {
  id: number;
  name: string;
  full_name: string;
  description: string | null;
  html_url: string;
  private: boolean;
  stargazers_count: number;
  forks_count: number;
  /** GitHub's primary language (null when GitHub detected none). */
  language?: string | null;
  created_at: string | null;
  updated_at: string | null;
  pushed_at: string | null;
  owner: { login: string; id: number; type?: string };
  permissions?: { admin: boolean; maintain?: boolean; push: boolean; triage?: boolean; pull: boolean };
}

export const githubUnavailable = (cause?: unknown) =>
  new DomainError({ code: ErrorCode.GITHUB_UNAVAILABLE, error: "GitHub Unavailable", message: "Failed to fetch repository details from GitHub", cause });

/**
 * A repository as the signed-in user sees it on GitHub, with their
 * permissions. A repository they cannot see is 404, as on GitHub.
 */
export async function repositoryAsUser(ctx: Pick<AppContext, "env" | "keyring">, user: User, fullName: string): Promise<GitHubRepo> {
  const token = await userGitHubToken(ctx, user);
  if (!token) throw new DomainError({ code: ErrorCode.GITHUB_SIGN_IN_REQUIRED, error: "Unauthorized", message: "Sign in with GitHub again to continue." });
  try {
    return await createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token }).get<GitHubRepo>(`/repos/${encodeFullName(fullName)}`);
  } catch (err) {
    if (err instanceof GitHubApiError && err.status === 404) {
      throw new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: "Repository not found." });
    }
    if (err instanceof GitHubApiError && err.status === 401) {
      throw new DomainError({ code: ErrorCode.GITHUB_SIGN_IN_REQUIRED, error: "Unauthorized", message: "Your GitHub sign-in has expired. Sign in again." });
    }
    throw githubUnavailable();
  }
}

/** `owner/name` with each part URL-encoded; anything else is refused. */
export function encodeFullName(fullName: string): string {
  const match = /^([A-Za-z0-9-]{1,39})\/([A-Za-z0-9._-]{1,100})$/.exec(fullName);
  if (!match) throw new DomainError({ code: ErrorCode.INVALID_REPOSITORY, error: "Invalid repository", message: "Repository owner and name are required" });
  return `${encodeURIComponent(match[1]!)}/${encodeURIComponent(match[2]!)}`;
}
