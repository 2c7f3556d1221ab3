import { GitHubApiError, type GitHubClient } from "../../github/client.ts";
import type { GitHubLookup } from "./co-authors.ts";

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
