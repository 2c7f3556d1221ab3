import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { repositories, type Repository, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { clientForRepository } from "../../github/data.ts";
import { GitHubApiError } from "../../github/client.ts";
import { encodeFullName, githubUnavailable, type GitHubRepo } from "../../github/repositories.ts";
import { openIssue } from "../money/bounty-lookups.ts";

export interface IssueRef {
  repoId: number;
  owner: string;
  name: string;
  issueNumber: number;
  title: string;
  url: string;
  body?: string | null;
}

/**
 * An open issue anyone may fund, asked of GitHub: on a registered repository through its installation; on
 * any other repository through the signed-in user's token (or anonymously), public repositories only. The
 * repository's GitHub id is the key on-chain and here, whether or not it is registered.
 */
export async function fundableIssue(
  ctx: AppContext,
  input: { owner: string; name: string; issueNumber: number; user?: User | null },
): Promise<IssueRef & { repository: Repository | null }> {
  const fullName = `${input.owner}/${input.name}`;
  const encoded = encodeFullName(fullName);
  const [repository] = await ctx.database.db.select().from(repositories).where(eq(repositories.fullNameKey, fullName.toLowerCase())).limit(1);
  const client = await clientForRepository(ctx, repository, input.user);
  let repoId = repository?.githubRepoId;
  let canonical = repository?.fullName ?? fullName;
  if (!repository) {
    try {
      const repo = await client.get<GitHubRepo>(`/repos/${encoded}`);
      if (repo.private) throw new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: "Repository not found." });
      repoId = repo.id;
      canonical = repo.full_name;
    } catch (err) {
      if (err instanceof DomainError) throw err;
      if (err instanceof GitHubApiError && err.status === 404) throw new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: "Repository not found." });
      throw githubUnavailable(err);
    }
  }
  const issue = await openIssue(client, canonical, input.issueNumber);
  const [owner, name] = canonical.split("/") as [string, string];
  return { repoId: repoId!, owner, name, issueNumber: input.issueNumber, title: issue.title, url: issue.html_url, body: (issue as { body?: string | null }).body ?? null, repository: repository ?? null };
}
