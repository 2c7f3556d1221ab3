import type { AppContext } from "../../context.ts";
import type { Repository } from "../../../db/schema/index.ts";
import { installationClient } from "../../github/app-auth.ts";
import { GitHubApiError, type GitHubClient } from "../../github/client.ts";
import { encodeFullName } from "../../github/repositories.ts";
import { pullPeople, type GitHubLookup, type GitHubPerson, type PullPeople } from "./co-authors.ts";

/** GitHub lists at most 250 commits of a pull request; 3 pages of 100 cover them. */
const COMMIT_PAGES = 3;

/** The GitHub questions of co-authors.ts, asked with a client (the installation's, or a signed-in user's). */
export function githubLookup(client: GitHubClient): GitHubLookup {
  return {
    async userByLogin(login) {
      try {
        const found = await client.get<{ id: number; login: string; type?: string }>(`/users/${encodeURIComponent(login)}`);
        return { id: found.id, login: found.login, type: found.type };
      } catch (err) {
        if (err instanceof GitHubApiError && err.status === 404) return null;
        throw err;
      }
    },
    async usersByEmail(email) {
      const found = await client.get<{ items: { id: number; login: string; type?: string }[] }>(`/search/users?q=${encodeURIComponent(`${email} in:email`)}&per_page=2`);
      return found.items.map((u) => ({ id: u.id, login: u.login, type: u.type }));
    },
  };
}

/**
 * The people a merged pull request pays: its author and its commits' co-authors (co-authors.ts), asked of
 * GitHub with the repository's installation. Throws when GitHub cannot be asked: the webhook is retried, and
 * "nobody co-authored it" is never concluded from an outage.
 */
export async function peopleOfPullRequest(
  ctx: Pick<AppContext, "env">,
  repository: Pick<Repository, "installationId" | "fullName">,
  pull: { number: number; author: GitHubPerson },
): Promise<PullPeople> {
  const client = await installationClient(ctx, repository.installationId!);
  const messages: string[] = [];
  for (let page = 1; page <= COMMIT_PAGES; page++) {
    const commits = await client.get<{ commit: { message: string } }[]>(`/repos/${encodeFullName(repository.fullName)}/pulls/${pull.number}/commits?per_page=100&page=${page}`);
    messages.push(...commits.map((c) => c.commit.message));
    if (commits.length < 100) break;
  }
  return pullPeople(pull.author, messages, githubLookup(client));
}
