/**
 * Review deadlines (issue 39, item 5): which pull requests wait for a repository's maintainers, and since when.
 *
 * A pull request waits when it closes (GitHub's closing references) an issue with an open bounty. The wait starts
 * when it is opened, or marked ready for review, or when the issue's bounty was set, whichever is later; drafts do
 * not wait. It ends with the first response of a maintainer: a submitted review (pull_request_review) or a comment
 * on it (issue_comment) by an account GitHub calls OWNER, MEMBER or COLLABORATOR of the repository (not the pull
 * request's author, not a bot), or its merge or close by someone other than its author. GitHub's own times are
 * used (the review's `submitted_at`, the comment's `created_at`), so a redelivered webhook changes nothing.
 *
 * The time from the wait's start to the first response goes on the sponsor's review record (a histogram, like the
 * merge-to-paid time: api/services/reliability/record.ts), once per pull request.
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { bounties, pullRequestWaits, repositories, repositoryReviewRecords, reviewSettings, type Repository } from "../../../db/schema/index.ts";
import { bucketOf, PAID_AFTER_BUCKETS_MS } from "../reliability/record.ts";
import { closingReferences } from "../github-events/pull-requests.ts";

const HOUR = 3_600_000;
/** The review deadline when the pool manager has not set one (72 hours, as the best peers' review bots give). */
export const REVIEW_DEADLINE_DEFAULT_HOURS = 72;
/** What a pool manager may set: an hour to 30 days. */
export const REVIEW_DEADLINE_MIN_HOURS = 1;
export const REVIEW_DEADLINE_MAX_HOURS = 720;

/** GitHub's author associations that speak for the repository. */
const MAINTAINER_ASSOCIATIONS = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

interface GitHubUser {
  id: number;
  login: string;
  type?: string;
}
interface PullPayload {
  number: number;
  title?: string;
  html_url?: string;
  draft?: boolean;
  merged?: boolean;
  created_at?: string;
  updated_at?: string;
  merged_at?: string | null;
  closed_at?: string | null;
  user: GitHubUser;
}

/** The repository's deadline in hours (the pool manager's setting, or the default). */
export async function deadlineHoursOf(db: Database, repoId: number): Promise<{ hours: number; isDefault: boolean }> {
  const [row] = await db.select({ hours: reviewSettings.deadlineHours }).from(reviewSettings).where(eq(reviewSettings.githubRepoId, repoId)).limit(1);
  return row ? { hours: row.hours, isDefault: false } : { hours: REVIEW_DEADLINE_DEFAULT_HOURS, isDefault: true };
}

export const hoursToMs = (hours: number) => hours * HOUR;

const dateOr = (iso: string | null | undefined, fallback: Date) => {
  const ms = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(ms) ? new Date(ms) : fallback;
};

/** The registered repository of a payload, with the App (closing references need it). */
async function registeredRepository(db: Database, payload: Record<string, unknown>): Promise<Repository | undefined> {
  const id = (payload.repository as { id?: number } | undefined)?.id;
  if (!id) return undefined;
  const [repository] = await db.select().from(repositories).where(eq(repositories.githubRepoId, id)).limit(1);
  return repository;
}

/**
 * pull_request: opened, reopened, ready_for_review, edited (its closing keywords may have changed) start or update
 * the wait of a pull request that closes a bountied issue; closed ends it (a merge or close by someone other than
 * the author is the maintainers' first response). Only repositories with an open bounty ask GitHub anything.
 */
export async function trackPullRequestWait(ctx: Pick<AppContext, "env" | "database">, payload: Record<string, unknown>): Promise<void> {
  const db = ctx.database.db;
  const pr = payload.pull_request as PullPayload | undefined;
  if (!pr?.number || !pr.user) return;
  const repository = await registeredRepository(db, payload);
  if (!repository) return;
  const key = and(eq(pullRequestWaits.githubRepoId, repository.githubRepoId), eq(pullRequestWaits.pullNumber, pr.number));
  const action = payload.action as string;

  if (action === "closed") {
    const at = dateOr(pr.merged ? pr.merged_at : pr.closed_at, new Date());
    const [wait] = await db.select().from(pullRequestWaits).where(key).limit(1);
    if (!wait) return;
    await db.update(pullRequestWaits).set(pr.merged ? { mergedAt: at, closedAt: at } : { closedAt: at }).where(key);
    const sender = payload.sender as GitHubUser | undefined;
    if (sender && sender.id !== pr.user.id && sender.type !== "Bot") await noteFirstResponse(db, wait, { at, by: sender.login, kind: pr.merged ? "merged" : "closed" });
    return;
  }
  if (!["opened", "reopened", "ready_for_review", "edited"].includes(action) || pr.draft) return;
  if (!repository.installationId) return;
  const [anyOpen] = await db
    .select({ n: bounties.issueNumber })
    .from(bounties)
    .where(and(eq(bounties.githubRepoId, repository.githubRepoId), eq(bounties.status, "open")))
    .limit(1);
  if (!anyOpen) return;
  const closes = await closingReferences(ctx, repository, pr.number);
  const bountied = closes.length
    ? await db
        .select({ issueNumber: bounties.issueNumber, allocatedAt: bounties.allocatedAt })
        .from(bounties)
        .where(and(eq(bounties.githubRepoId, repository.githubRepoId), eq(bounties.status, "open"), inArray(bounties.issueNumber, closes)))
    : [];
  if (!bountied.length) return;
  const openedAt = dateOr(pr.created_at, new Date());
  // Ready for review (or reopened) now: the wait starts now, not when the draft was opened.
  const readyAt = action === "ready_for_review" || action === "reopened" ? dateOr(pr.updated_at, new Date()) : openedAt;
  const bountySince = new Date(Math.min(...bountied.map((b) => b.allocatedAt.getTime())));
  const waitingSince = new Date(Math.max(readyAt.getTime(), bountySince.getTime()));
  const issueNumbers = JSON.stringify(bountied.map((b) => b.issueNumber).sort((a, b) => a - b));
  const values = { githubRepoId: repository.githubRepoId, pullNumber: pr.number, authorLogin: pr.user.login, authorGithubId: pr.user.id, issueNumbers, title: pr.title ?? null, htmlUrl: pr.html_url ?? null, openedAt, waitingSince };
  await db
    .insert(pullRequestWaits)
    .values(values)
    .onConflictDoUpdate({
      target: [pullRequestWaits.githubRepoId, pullRequestWaits.pullNumber],
      // Known already: the issues and title follow; a reopened pull request waits again from now unless answered.
      set: { issueNumbers, title: values.title, ...(action === "reopened" ? { closedAt: null, mergedAt: null } : {}) },
    });
}

/**
 * pull_request_review (submitted) and issue_comment (created, on a pull request): a maintainer's first response
 * ends the wait. Anything else (the author's own comment, a bot's, an outsider's) changes nothing.
 */
export async function noteReviewActivity(ctx: Pick<AppContext, "database">, event: "pull_request_review" | "issue_comment", payload: Record<string, unknown>): Promise<void> {
  const db = ctx.database.db;
  const repoId = (payload.repository as { id?: number } | undefined)?.id;
  if (!repoId) return;
  let number: number | undefined;
  let author: GitHubUser | undefined;
  let response: { user?: GitHubUser; author_association?: string; at?: string } | undefined;
  if (event === "pull_request_review") {
    if (payload.action !== "submitted") return;
    const review = payload.review as { user?: GitHubUser; author_association?: string; submitted_at?: string; state?: string } | undefined;
    const pr = payload.pull_request as PullPayload | undefined;
    if (!review || !pr || review.state === "pending") return;
    number = pr.number;
    author = pr.user;
    response = { user: review.user, author_association: review.author_association, at: review.submitted_at };
  } else {
    if (payload.action !== "created") return;
    const issue = payload.issue as { number?: number; pull_request?: unknown; user?: GitHubUser } | undefined;
    const comment = payload.comment as { user?: GitHubUser; author_association?: string; created_at?: string } | undefined;
    if (!issue?.pull_request || !issue.number || !comment) return;
    number = issue.number;
    author = issue.user;
    response = { user: comment.user, author_association: comment.author_association, at: comment.created_at };
  }
  const by = response.user;
  if (!by || by.type === "Bot" || !MAINTAINER_ASSOCIATIONS.has(response.author_association ?? "")) return;
  if (author && by.id === author.id) return;
  const [wait] = await db
    .select()
    .from(pullRequestWaits)
    .where(and(eq(pullRequestWaits.githubRepoId, repoId), eq(pullRequestWaits.pullNumber, number)))
    .limit(1);
  if (!wait) return;
  await noteFirstResponse(db, wait, { at: dateOr(response.at, new Date()), by: by.login, kind: event === "pull_request_review" ? "review" : "comment" });
}

/** Records the first response once (a conditional write), and its time on the sponsor's review record. */
async function noteFirstResponse(db: Database, wait: typeof pullRequestWaits.$inferSelect, response: { at: Date; by: string; kind: "review" | "comment" | "merged" | "closed" }): Promise<void> {
  const first = await db
    .update(pullRequestWaits)
    .set({ firstReviewAt: response.at, firstReviewer: response.by, firstReviewKind: response.kind })
    .where(and(eq(pullRequestWaits.githubRepoId, wait.githubRepoId), eq(pullRequestWaits.pullNumber, wait.pullNumber), isNull(pullRequestWaits.firstReviewAt)))
    .returning({ since: pullRequestWaits.waitingSince });
  if (!first.length) return;
  const waited = Math.max(0, response.at.getTime() - first[0]!.since.getTime());
  await addToReviewRecord(db, wait.githubRepoId, { bucket: bucketOf(waited) });
}

/** Moves the repository's review record: a timed first response, or one more pull request past the deadline. */
export async function addToReviewRecord(db: Database, repoId: number, change: { bucket?: number; pastDeadline?: boolean }): Promise<void> {
  await db.insert(repositoryReviewRecords).values({ githubRepoId: repoId }).onConflictDoNothing();
  if (change.pastDeadline) {
    await db
      .update(repositoryReviewRecords)
      .set({ reviewsPastDeadline: sql`${repositoryReviewRecords.reviewsPastDeadline} + 1`, updatedAt: new Date() })
      .where(eq(repositoryReviewRecords.githubRepoId, repoId));
  }
  if (change.bucket !== undefined && change.bucket >= 0) {
    // One statement: the histogram's bucket incremented in place (json_set), so concurrent writers never lose one.
    const path = `$[${change.bucket}]`;
    const empty = JSON.stringify(PAID_AFTER_BUCKETS_MS.map(() => 0));
    await db
      .update(repositoryReviewRecords)
      .set({
        firstReviewHistogram: sql`json_set(case when json_array_length(${repositoryReviewRecords.firstReviewHistogram}) = ${PAID_AFTER_BUCKETS_MS.length} then ${repositoryReviewRecords.firstReviewHistogram} else ${empty} end, ${path}, coalesce(json_extract(case when json_array_length(${repositoryReviewRecords.firstReviewHistogram}) = ${PAID_AFTER_BUCKETS_MS.length} then ${repositoryReviewRecords.firstReviewHistogram} else ${empty} end, ${path}), 0) + 1)`,
        updatedAt: new Date(),
      })
      .where(eq(repositoryReviewRecords.githubRepoId, repoId));
  }
}

/** The review records of some repositories: the first-response histogram and the count past deadline. */
export async function reviewRecordsOf(db: Database, repoIds: number[]): Promise<Map<number, { histogram: number[]; pastDeadline: number }>> {
  const out = new Map<number, { histogram: number[]; pastDeadline: number }>();
  if (!repoIds.length) return out;
  const rows = await db.select().from(repositoryReviewRecords).where(inArray(repositoryReviewRecords.githubRepoId, repoIds));
  for (const r of rows) out.set(r.githubRepoId, { histogram: JSON.parse(r.firstReviewHistogram) as number[], pastDeadline: r.reviewsPastDeadline });
  return out;
}
