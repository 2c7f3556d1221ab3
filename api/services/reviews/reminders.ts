/**
 * Review deadlines, the pass and the contributor's request (issue 39, item 5).
 *
 * The "review-deadlines" pass (api/schedule.ts) looks at the pull requests still waiting for a maintainer
 * (waits.ts) and, for each whose bounty is still open:
 *   - past the repository's deadline: one reminder to its pool manager (e-mail), and the sponsor's record counts
 *     one more review past deadline;
 *   - past twice the deadline: one more reminder, saying the contributor may now ask for release.
 * Each reminder goes out once: the level is raised by a conditional write before the e-mail leaves, so two
 * processes, a pass run twice or a restart never send it twice (a crash between the two loses that e-mail, as the
 * awaiting-decision notices do). The pass takes `now` (tests drive it with a fake clock).
 *
 * Past twice the deadline, the pull request's author may ask for release (POST
 * /api/reviews/{repoId}/pulls/{number}/release-request): the pool manager is told, once. The request decides
 * nothing about money: whether money is due, and to whom, stays with the one payout decision
 * (api/services/payouts/decision.ts), which the pool manager's release by hand asks.
 */
import { and, asc, eq, gt, inArray, isNull, lt, or } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { bounties, pullRequestWaits, repositories, reviewSettings, users, type PullRequestWait, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, forbidden, notFound } from "../../errors.ts";
import { formatExact } from "../../../lib/money-format.ts";
import { releaseRequestMail, reviewReminderMail } from "../../mail/review-templates.ts";
import { addToReviewRecord, deadlineHoursOf, hoursToMs, REVIEW_DEADLINE_MAX_HOURS, REVIEW_DEADLINE_MIN_HOURS } from "./waits.ts";

type Deps = Pick<AppContext, "env" | "database" | "log" | "mailer">;

/** The pass's interval: reminders go out within this of their deadline. */
export const REVIEW_DEADLINE_PASS_MS = 5 * 60_000;
/** Waits looked at per statement. */
const BATCH = 200;

/** The pool manager who registered the repository, with the address they gave. */
async function poolManagerOf(db: Database, repoId: number) {
  const [row] = await db
    .select({ email: users.email, username: users.username, fullName: repositories.fullName, isPrivate: repositories.isPrivate })
    .from(repositories)
    .innerJoin(users, eq(users.id, repositories.registeredByUserId))
    .where(eq(repositories.githubRepoId, repoId))
    .limit(1);
  return row;
}

/** The open bounties among a wait's issues (a paid or cancelled one no longer makes anyone wait). */
async function openBountiesOf(db: Database, wait: PullRequestWait) {
  const numbers = JSON.parse(wait.issueNumbers) as number[];
  if (!numbers.length) return [];
  return db
    .select({ issueNumber: bounties.issueNumber, issueTitle: bounties.issueTitle, amount: bounties.amount, currency: bounties.currency })
    .from(bounties)
    .where(and(eq(bounties.githubRepoId, wait.githubRepoId), eq(bounties.status, "open"), inArray(bounties.issueNumber, numbers)));
}

/** Where a wait stands at `now`: 0 within the deadline, 1 past it, 2 past twice it. */
/** What both mails to the pool manager say about the pull request and the bounties it closes. */
function aboutThePull(ctx: Deps, wait: PullRequestWait, open: Awaited<ReturnType<typeof openBountiesOf>>, manager: { fullName: string }) {
  return {
    repository: manager.fullName,
    pullNumber: wait.pullNumber,
    pullTitle: wait.title,
    pullUrl: wait.htmlUrl,
    author: wait.authorLogin,
    waitingSince: wait.waitingSince,
    bounties: open.map((b) => ({ issueNumber: b.issueNumber, title: b.issueTitle, amount: `${formatExact(b.amount, b.currency)} ${b.currency}` })),
    pageUrl: `${ctx.env.PUBLIC_URL}/repos/${manager.fullName}`,
  };
}

export function levelAt(wait: Pick<PullRequestWait, "waitingSince">, deadlineMs: number, now: number): 0 | 1 | 2 {
  const waited = now - wait.waitingSince.getTime();
  return waited >= 2 * deadlineMs ? 2 : waited >= deadlineMs ? 1 : 0;
}

/** One pass: the reminders due at `now`. Returns how many e-mails were handed to the mailer. */
export async function remindOverdueReviews(ctx: Deps, options: { now?: number } = {}): Promise<number> {
  const db = ctx.database.db;
  const now = options.now ?? Date.now();
  const deadlines = new Map<number, number>();
  const deadlineOf = async (repoId: number) => {
    if (!deadlines.has(repoId)) deadlines.set(repoId, hoursToMs((await deadlineHoursOf(db, repoId)).hours));
    return deadlines.get(repoId)!;
  };
  let sent = 0;
  let after: { repoId: number; number: number } = { repoId: 0, number: 0 };
  for (;;) {
    // Waiting, not yet reminded twice, and started at least the shortest deadline ago; keyset by primary key.
    const rows = await db
      .select()
      .from(pullRequestWaits)
      .where(
        and(
          isNull(pullRequestWaits.firstReviewAt),
          isNull(pullRequestWaits.closedAt),
          lt(pullRequestWaits.remindedLevel, 2),
          lt(pullRequestWaits.waitingSince, new Date(now - hoursToMs(REVIEW_DEADLINE_MIN_HOURS) + 1)),
          or(gt(pullRequestWaits.githubRepoId, after.repoId), and(eq(pullRequestWaits.githubRepoId, after.repoId), gt(pullRequestWaits.pullNumber, after.number))),
        ),
      )
      .orderBy(asc(pullRequestWaits.githubRepoId), asc(pullRequestWaits.pullNumber))
      .limit(BATCH);
    if (!rows.length) break;
    for (const wait of rows) {
      const level = levelAt(wait, await deadlineOf(wait.githubRepoId), now);
      if (level !== 0 && level > wait.remindedLevel && (await remind(ctx, wait, level, await deadlineOf(wait.githubRepoId), now))) sent++;
    }
    const last = rows.at(-1)!;
    after = { repoId: last.githubRepoId, number: last.pullNumber };
    if (rows.length < BATCH) break;
  }
  return sent;
}

/** Raises one wait's level (once, whichever process gets there first) and tells the pool manager. */
async function remind(ctx: Deps, wait: PullRequestWait, level: 1 | 2, deadlineMs: number, now: number): Promise<boolean> {
  const db = ctx.database.db;
  const open = await openBountiesOf(db, wait);
  if (!open.length) return false;
  const claimed = await db
    .update(pullRequestWaits)
    .set({ remindedLevel: level, remindedAt: new Date(now) })
    .where(
      and(
        eq(pullRequestWaits.githubRepoId, wait.githubRepoId),
        eq(pullRequestWaits.pullNumber, wait.pullNumber),
        lt(pullRequestWaits.remindedLevel, level),
        isNull(pullRequestWaits.firstReviewAt),
        isNull(pullRequestWaits.closedAt),
      ),
    )
    .returning();
  if (!claimed.length) return false; // another process reminded, or a maintainer answered meanwhile
  // Counted once per pull request on the sponsor's record, whichever reminder came first.
  const counted = await db
    .update(pullRequestWaits)
    .set({ pastDeadline: true })
    .where(and(eq(pullRequestWaits.githubRepoId, wait.githubRepoId), eq(pullRequestWaits.pullNumber, wait.pullNumber), eq(pullRequestWaits.pastDeadline, false)))
    .returning({ n: pullRequestWaits.pullNumber });
  if (counted.length) await addToReviewRecord(db, wait.githubRepoId, { pastDeadline: true });
  const manager = await poolManagerOf(db, wait.githubRepoId);
  ctx.log.info("review deadline passed", { repoId: wait.githubRepoId, pr: wait.pullNumber, level });
  if (!manager?.email) return false;
  try {
    await ctx.mailer.send(
      reviewReminderMail({
        ...aboutThePull(ctx, wait, open, manager),
        to: manager.email,
        deadlineHours: deadlineMs / 3_600_000,
        level,
      }),
    );
    return true;
  } catch (err) {
    ctx.log.warn("review reminder not sent", { repoId: wait.githubRepoId, pr: wait.pullNumber, err: (err as Error).message });
    return false;
  }
}

/** What the API answers about one pull request's wait. */
export async function waitView(ctx: DatabaseDeps, repoId: number, pullNumber: number, now = Date.now()) {
  const db = ctx.database.db;
  const [row] = await db
    .select({ wait: pullRequestWaits, isPrivate: repositories.isPrivate })
    .from(pullRequestWaits)
    .innerJoin(repositories, eq(repositories.githubRepoId, pullRequestWaits.githubRepoId))
    .where(and(eq(pullRequestWaits.githubRepoId, repoId), eq(pullRequestWaits.pullNumber, pullNumber)))
    .limit(1);
  if (!row || row.isPrivate) throw notFound("No bountied pull request waits for review here.");
  const { wait } = row;
  const { hours } = await deadlineHoursOf(db, repoId);
  const deadlineMs = hoursToMs(hours);
  const answered = wait.firstReviewAt !== null || wait.closedAt !== null;
  return {
    repoId,
    pullNumber,
    author: wait.authorLogin,
    issueNumbers: JSON.parse(wait.issueNumbers) as number[],
    deadlineHours: hours,
    waitingSince: wait.waitingSince.toISOString(),
    deadlineAt: new Date(wait.waitingSince.getTime() + deadlineMs).toISOString(),
    releaseRequestableFrom: new Date(wait.waitingSince.getTime() + 2 * deadlineMs).toISOString(),
    firstReviewAt: wait.firstReviewAt?.toISOString() ?? null,
    firstReviewKind: wait.firstReviewKind ?? null,
    state: wait.mergedAt ? ("merged" as const) : wait.closedAt ? ("closed" as const) : wait.firstReviewAt ? ("reviewed" as const) : (["waiting", "past_deadline", "release_requestable"] as const)[levelAt(wait, deadlineMs, now)],
    pastDeadline: wait.pastDeadline || (!answered && levelAt(wait, deadlineMs, now) > 0),
    releaseRequestedAt: wait.releaseRequestedAt?.toISOString() ?? null,
  };
}

/**
 * The pull request's author asks the pool manager for release: allowed past twice the deadline with no response
 * from a maintainer, once (a repeat answers the first request and sends nothing). Tells the pool manager; moves
 * no money and decides nothing about it.
 */
export async function requestRelease(ctx: Deps, input: { user: Pick<User, "id" | "githubId" | "username">; repoId: number; pullNumber: number; now?: number }) {
  const db = ctx.database.db;
  const now = input.now ?? Date.now();
  const [row] = await db
    .select({ wait: pullRequestWaits, isPrivate: repositories.isPrivate })
    .from(pullRequestWaits)
    .innerJoin(repositories, eq(repositories.githubRepoId, pullRequestWaits.githubRepoId))
    .where(and(eq(pullRequestWaits.githubRepoId, input.repoId), eq(pullRequestWaits.pullNumber, input.pullNumber)))
    .limit(1);
  // Someone else's pull request of a private repository does not exist for this user.
  if (!row || (row.isPrivate && row.wait.authorGithubId !== input.user.githubId)) throw notFound("No bountied pull request waits for review here.");
  const { wait } = row;
  if (wait.authorGithubId !== input.user.githubId) throw forbidden("Only the pull request's author can ask for its release.");
  if (wait.releaseRequestedAt) return { ...(await waitView(ctx, input.repoId, input.pullNumber, now)), poolManagerNotified: false };
  if (wait.closedAt) throw new DomainError({ code: ErrorCode.CONFLICT, error: "Pull request closed", message: wait.mergedAt ? "This pull request was merged: its payout follows the merge." : "This pull request was closed." });
  if (wait.firstReviewAt) throw new DomainError({ code: ErrorCode.CONFLICT, error: "Already answered", message: `A maintainer (${wait.firstReviewer}) responded on ${wait.firstReviewAt.toISOString().slice(0, 10)}: reply on the pull request.` });
  const deadlineMs = hoursToMs((await deadlineHoursOf(db, input.repoId)).hours);
  const from = new Date(wait.waitingSince.getTime() + 2 * deadlineMs);
  if (now < from.getTime()) {
    throw new DomainError({ code: ErrorCode.NOT_DUE, error: "Not yet", message: `You can ask for release from ${from.toISOString()} (twice the repository's review deadline without a response).`, details: { releaseRequestableFrom: from.toISOString() } });
  }
  const open = await openBountiesOf(db, wait);
  if (!open.length) throw new DomainError({ code: ErrorCode.NO_OPEN_BOUNTY, error: "No open bounty", message: "The bounties this pull request closes are no longer open." });
  const claimed = await db
    .update(pullRequestWaits)
    .set({ releaseRequestedAt: new Date(now) })
    .where(and(eq(pullRequestWaits.githubRepoId, input.repoId), eq(pullRequestWaits.pullNumber, input.pullNumber), isNull(pullRequestWaits.releaseRequestedAt)))
    .returning();
  let notified = false;
  if (claimed.length) {
    const manager = await poolManagerOf(db, input.repoId);
    if (manager?.email) {
      try {
        await ctx.mailer.send(
          releaseRequestMail({
            ...aboutThePull(ctx, wait, open, manager),
            to: manager.email,
          }),
        );
        notified = true;
      } catch (err) {
        ctx.log.warn("release request not mailed", { repoId: input.repoId, pr: input.pullNumber, err: (err as Error).message });
      }
    }
    ctx.log.info("release requested", { repoId: input.repoId, pr: input.pullNumber, userId: input.user.id });
  }
  return { ...(await waitView(ctx, input.repoId, input.pullNumber, now)), poolManagerNotified: notified };
}

/** The pool manager sets the repository's review deadline (hours). */
export async function setReviewDeadline(ctx: DatabaseDeps, input: { user: Pick<User, "id">; repoId: number; hours: number }) {
  const db = ctx.database.db;
  const [repository] = await db.select().from(repositories).where(eq(repositories.githubRepoId, input.repoId)).limit(1);
  if (!repository || (repository.isPrivate && repository.registeredByUserId !== input.user.id)) throw notFound("Repository not found.");
  if (repository.registeredByUserId !== input.user.id) throw forbidden("Only the pool manager who registered this repository can set its review deadline.");
  if (!Number.isInteger(input.hours) || input.hours < REVIEW_DEADLINE_MIN_HOURS || input.hours > REVIEW_DEADLINE_MAX_HOURS) {
    throw new DomainError({ code: ErrorCode.VALIDATION_FAILED, error: "Invalid deadline", message: `The review deadline is a whole number of hours from ${REVIEW_DEADLINE_MIN_HOURS} to ${REVIEW_DEADLINE_MAX_HOURS}.` });
  }
  const values = { deadlineHours: input.hours, updatedByUserId: input.user.id, updatedAt: new Date() };
  await db.insert(reviewSettings).values({ githubRepoId: input.repoId, ...values }).onConflictDoUpdate({ target: reviewSettings.githubRepoId, set: values });
  return { repoId: input.repoId, deadlineHours: input.hours, isDefault: false };
}

/** A repository's review deadline (public: contributors see how long they may wait). */
export async function reviewDeadlineOf(ctx: DatabaseDeps, repoId: number) {
  const [repository] = await ctx.database.db.select({ isPrivate: repositories.isPrivate }).from(repositories).where(eq(repositories.githubRepoId, repoId)).limit(1);
  if (!repository || repository.isPrivate) throw notFound("Repository not found.");
  const { hours, isDefault } = await deadlineHoursOf(ctx.database.db, repoId);
  return { repoId, deadlineHours: hours, isDefault };
}

/**
 * The daily digest's entry for a pool manager: their repositories' pull requests waiting past the deadline (the
 * digest worker lists them beside the saved searches' bounties, and sends a digest for them alone when needed).
 */
export async function overdueReviewsFor(db: Database, userIds: number[], now: number): Promise<Map<number, { repository: string; pullNumber: number; title: string | null; url: string | null; author: string; waitingSince: Date; releaseRequested: boolean }[]>> {
  const out = new Map<number, { repository: string; pullNumber: number; title: string | null; url: string | null; author: string; waitingSince: Date; releaseRequested: boolean }[]>();
  if (!userIds.length) return out;
  const rows = await db
    .select({ wait: pullRequestWaits, userId: repositories.registeredByUserId, fullName: repositories.fullName, deadlineHours: reviewSettings.deadlineHours })
    .from(pullRequestWaits)
    .innerJoin(repositories, eq(repositories.githubRepoId, pullRequestWaits.githubRepoId))
    .leftJoin(reviewSettings, eq(reviewSettings.githubRepoId, pullRequestWaits.githubRepoId))
    .where(and(inArray(repositories.registeredByUserId, userIds), isNull(pullRequestWaits.firstReviewAt), isNull(pullRequestWaits.closedAt)))
    .orderBy(asc(pullRequestWaits.waitingSince));
  for (const r of rows) {
    const deadlineMs = hoursToMs(r.deadlineHours ?? (await deadlineHoursOf(db, r.wait.githubRepoId)).hours);
    if (levelAt(r.wait, deadlineMs, now) === 0 || r.userId === null) continue;
    if (!(await openBountiesOf(db, r.wait)).length) continue;
    const list = out.get(r.userId) ?? [];
    list.push({ repository: r.fullName, pullNumber: r.wait.pullNumber, title: r.wait.title, url: r.wait.htmlUrl, author: r.wait.authorLogin, waitingSince: r.wait.waitingSince, releaseRequested: r.wait.releaseRequestedAt !== null });
    out.set(r.userId, list);
  }
  return out;
}

/** Pool managers (with an address) who have a pull request waiting past its deadline at `now`: the digest's extra subscribers. */
export async function poolManagersWithOverdueReviews(db: Database, now: number): Promise<number[]> {
  const rows = await db
    .selectDistinct({ userId: repositories.registeredByUserId })
    .from(pullRequestWaits)
    .innerJoin(repositories, eq(repositories.githubRepoId, pullRequestWaits.githubRepoId))
    .innerJoin(users, eq(users.id, repositories.registeredByUserId))
    .where(and(isNull(pullRequestWaits.firstReviewAt), isNull(pullRequestWaits.closedAt), lt(pullRequestWaits.waitingSince, new Date(now - hoursToMs(REVIEW_DEADLINE_MIN_HOURS)))));
  const ids = rows.map((r) => r.userId).filter((id): id is number => id !== null);
  const overdue = await overdueReviewsFor(db, ids, now);
  return [...overdue.keys()];
}
