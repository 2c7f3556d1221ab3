/**
 * What GitHub says of a pull request that may fix a bountied issue, for the payout decision (decision.ts):
 * whether and when it was merged, whether it closes the issue (GitHub's closing references), whether the
 * issue is closed and was not reopened after the merge, and who wrote it (author and `Co-authored-by:`
 * co-authors). Asked fresh, never taken from a webhook payload or a client: a redelivered webhook or a claim
 * with an old pull request is judged by what is true now. Every question throws when GitHub cannot be asked:
 * "nobody is owed this bounty" is never concluded from an outage.
 */
import type { GitHubClient } from "../../github/client.ts";
import { GitHubApiError } from "../../github/client.ts";
import { encodeFullName } from "../../github/repositories.ts";
import { pullPeople, type CoAuthorTrailer, type GitHubPerson } from "../splits/co-authors.ts";
import { githubLookup } from "../splits/pull-people.ts";

export interface RepositoryRef {
  githubRepoId: number;
  /** owner/name as GitHub spells it now. */
  fullName: string;
}

export interface FixFacts {
  number: number;
  /** The pull request's page as GitHub reports it. */
  url: string;
  author: GitHubPerson & { type?: string };
  merged: boolean;
  mergedAt: Date | null;
  /** The pull request closes the issue (its closing references name it, in this repository). */
  closesIssue: boolean;
  issueState: "open" | "closed";
  /** The issue was reopened after the pull request was merged: a new merge is needed. */
  reopenedAfterMerge: boolean;
}

interface PullJson {
  number: number;
  html_url: string;
  merged?: boolean;
  merged_at: string | null;
  user: { id: number; login: string; type?: string } | null;
}

const CLOSING = `query($owner:String!,$name:String!,$number:Int!){ repository(owner:$owner,name:$name){ pullRequest(number:$number){ closingIssuesReferences(first:50){ nodes{ number repository{ databaseId } } } } } }`;

/** GitHub's timeline of an issue: this many pages of 100 cover any issue a bounty is on. */
const TIMELINE_PAGES = 5;

/**
 * The issues of this repository that the pull request closes, as GitHub decides them (keywords in its description),
 * via GraphQL: the one reading of closing references (the merge webhook, the payout decision's facts, the payout
 * preview and the review deadlines all use it). Null: GitHub answered nothing about the pull request.
 */
export async function closingIssueNumbers(client: GitHubClient, repository: RepositoryRef, pullNumber: number): Promise<number[] | null> {
  const [owner, name] = repository.fullName.split("/") as [string, string];
  const result = await client.post<{ data?: { repository?: { pullRequest?: { closingIssuesReferences?: { nodes: { number: number; repository: { databaseId: number } }[] } } } }; errors?: { message: string }[] }>(
    "/graphql",
    { query: CLOSING, variables: { owner, name, number: pullNumber } },
  );
  if (result.errors?.length) throw new Error(`GitHub GraphQL: ${result.errors.map((e) => e.message).join("; ")}`);
  const nodes = result.data?.repository?.pullRequest?.closingIssuesReferences?.nodes;
  return nodes ? nodes.filter((n) => n.repository.databaseId === repository.githubRepoId).map((n) => n.number) : null;
}

/**
 * The facts of pull request `pullNumber` about issue `issueNumber` of the repository. Null: no such pull request.
 * `closing`: the pull request's closing references (closingIssueNumbers) when this same piece of work asked GitHub
 * for them a moment ago (the merge's delivery does, to find the issues it closes): not asked twice.
 */
export async function fixFacts(client: GitHubClient, repository: RepositoryRef, issueNumber: number, pullNumber: number, known: { closing?: number[] } = {}): Promise<FixFacts | null> {
  const path = `/repos/${encodeFullName(repository.fullName)}`;
  // Asked side by side: the pull request, its closing references and the issue.
  const pullAsked = client.get<PullJson>(`${path}/pulls/${pullNumber}`).catch((err) => {
    if (err instanceof GitHubApiError && err.status === 404) return null;
    throw err;
  });
  const closingAsked = known.closing ? Promise.resolve(known.closing) : closingIssueNumbers(client, repository, pullNumber);
  const issueAsked = client.get<{ state: "open" | "closed"; pull_request?: unknown }>(`${path}/issues/${issueNumber}`);
  // Handled from the start: their failures are awaited below, after the pull request's answer (or not wanted at all).
  for (const asked of [closingAsked, issueAsked]) asked.catch(() => {});
  const pull = await pullAsked;
  if (!pull) return null;
  const [closing, issue] = await Promise.all([closingAsked, issueAsked]);
  if (!closing) throw new Error("GitHub GraphQL: no answer about the pull request's closing references");
  const mergedAt = pull.merged_at ? new Date(pull.merged_at) : null;
  const merged = mergedAt !== null;
  let reopenedAfterMerge = false;
  if (merged && !issue.pull_request) {
    const events = await client.paginate<{ event: string; created_at?: string }>(`${path}/issues/${issueNumber}/timeline`, { per_page: "100" }, TIMELINE_PAGES);
    // GitHub's times have whole seconds: a reopening in the merge's own second counts as after it.
    reopenedAfterMerge = events.some((e) => e.event === "reopened" && e.created_at !== undefined && Date.parse(e.created_at) >= mergedAt.getTime());
  }
  return {
    number: pull.number,
    url: pull.html_url,
    author: { id: pull.user?.id ?? 0, login: pull.user?.login ?? "ghost", type: pull.user?.type },
    merged,
    mergedAt,
    closesIssue: !issue.pull_request && closing.includes(issueNumber),
    issueState: issue.state,
    reopenedAfterMerge,
  };
}

const CLOSED_BY = `query($owner:String!,$name:String!,$number:Int!){ repository(owner:$owner,name:$name){ issue(number:$number){ closedByPullRequestsReferences(first:25,includeClosedPrs:true){ nodes{ number merged repository{ databaseId } } } } } }`;

/** The merged pull requests of the repository that GitHub says close the issue (any time: the decision judges each). */
export async function mergedPullsClosing(client: GitHubClient, repository: RepositoryRef, issueNumber: number): Promise<number[]> {
  const [owner, name] = repository.fullName.split("/") as [string, string];
  const result = await client.post<{
    data?: { repository?: { issue?: { closedByPullRequestsReferences?: { nodes: { number: number; merged: boolean; repository: { databaseId: number } }[] } } } };
    errors?: { message: string }[];
  }>("/graphql", { query: CLOSED_BY, variables: { owner, name, number: issueNumber } });
  if (result.errors?.length) throw new Error(`GitHub GraphQL: ${result.errors.map((e) => e.message).join("; ")}`);
  const nodes = result.data?.repository?.issue?.closedByPullRequestsReferences?.nodes;
  if (!nodes) throw new Error("GitHub GraphQL: no answer about the issue's closing pull requests");
  return nodes.filter((n) => n.merged && n.repository.databaseId === repository.githubRepoId).map((n) => n.number);
}

/** GitHub lists at most 250 commits of a pull request; 3 pages of 100 cover them. */
const COMMIT_PAGES = 3;

/** The people a merged pull request pays: its author first, then its commits' co-authors (splits/co-authors.ts). */
export async function fixPeople(client: GitHubClient, repository: RepositoryRef, pull: { number: number; author: GitHubPerson }): Promise<{ people: GitHubPerson[]; unresolved: CoAuthorTrailer[] }> {
  const messages: string[] = [];
  for (let page = 1; page <= COMMIT_PAGES; page++) {
    const commits = await client.get<{ commit: { message: string } }[]>(`/repos/${encodeFullName(repository.fullName)}/pulls/${pull.number}/commits?per_page=100&page=${page}`);
    messages.push(...commits.map((c) => c.commit.message));
    if (commits.length < 100) break;
  }
  return pullPeople(pull.author, messages, githubLookup(client));
}
