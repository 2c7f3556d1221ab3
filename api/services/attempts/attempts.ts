/**
 * Attempts that hold a place (issue 39, item 1). The state of one person's attempt on one issue:
 *
 *   open mode         -> working ------------------------------> released (unattempt, manager) | ended (merged, closed)
 *   exclusive, first  -> holding (locked until) ---------------> released (unattempt, manager, expired) | ended
 *   exclusive, later  -> queued  -> holding when the holder goes -> …
 *   application       -> applied -> holding when the pool manager picks it -> …
 *
 * Every change runs in one immediate transaction (writers one at a time, across processes), so two first attempts
 * never both hold (and the partial unique index refuses it anyway). A holder and an open-mode worker are also in
 * bounty_claims, the platform's "working on it" that the bounty's states, cancellation and the profiles read, and
 * are recorded on-chain as claimants (recordClaimOnChain), exactly as the Contribute button and `/attempt` did
 * before; released attempts leave bounty_claims (the on-chain record stays: the contract keeps its refund delay).
 *
 * Nothing here decides who is paid: a merge pays its authors through the one payout decision whoever held the lock
 * (the merge is the maintainer's decision); the attempt of a holder overtaken by someone else's merge ends as
 * `merged_other`, and the bot says so.
 */
import { and, asc, eq, inArray, lte } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import { bountyAttempts, bountyClaims, LIVE_ATTEMPT_STATUSES, pullPreviews, repositories, type BountyAttempt, type Repository, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { recordClaimEvent } from "../notify/events.ts";
import { recordClaimOnChain } from "../money/claims.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { lockDaysText, MAX_APPLICATION_NOTE, ordinal, utcMinute, type AttemptSettings } from "../../../lib/attempt-rules.ts";
import { attemptLimitOf, checkAudience, limitRefusal, liveAttemptsOf, type Attempter } from "./eligibility.ts";
import { effectiveSettings } from "./settings.ts";
import { tellNewHolder } from "./notices.ts";

export type AttemptDeps = Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "changes" | "mailer">;

export type LiveStatus = (typeof LIVE_ATTEMPT_STATUSES)[number];

export interface AttemptOutcome {
  status: LiveStatus;
  /** Queued: 1 is next. */
  place?: number;
  lockedUntil?: Date;
  /** Queued: who holds it now. */
  holder?: string;
  /** The person had this attempt already (the answer repeats where they stand). */
  already: boolean;
  message: string;
}

/** The outcome as the API answers it (ISO time). */
export function attemptStanding(outcome: AttemptOutcome) {
  return {
    status: outcome.status,
    ...(outcome.place !== undefined ? { place: outcome.place } : {}),
    ...(outcome.lockedUntil ? { lockedUntil: outcome.lockedUntil.toISOString() } : {}),
    ...(outcome.holder ? { holder: outcome.holder } : {}),
  };
}

/** Attempts that hold or wait for a place: what the limits count. */
export const PLACE_STATUSES = ["holding", "queued", "applied"] as const;

const live = inArray(bountyAttempts.status, [...LIVE_ATTEMPT_STATUSES]);
const onIssue = (repoId: number, issueNumber: number) => and(eq(bountyAttempts.githubRepoId, repoId), eq(bountyAttempts.issueNumber, issueNumber));

/** The issue's live attempts: the holder, the queue in order, the applications, the open-mode workers. */
export async function attemptsOn(ctx: Pick<AppContext, "database">, repoId: number, issueNumber: number) {
  const rows = await ctx.database.db.select().from(bountyAttempts).where(and(onIssue(repoId, issueNumber), live)).orderBy(asc(bountyAttempts.id));
  return {
    holder: rows.find((r) => r.status === "holding"),
    queue: rows.filter((r) => r.status === "queued"),
    applications: rows.filter((r) => r.status === "applied"),
    working: rows.filter((r) => r.status === "working"),
  };
}

/** The sentence a person reads about where their attempt stands. */
export function standing(attempt: Pick<BountyAttempt, "status" | "lockedUntil">, extra: { place?: number; holder?: string; issueNumber: number }): string {
  switch (attempt.status) {
    case "holding":
      return `You hold this bounty until ${utcMinute(attempt.lockedUntil!)}: nobody else can take it before then. Open a pull request with \`Fixes #${extra.issueNumber}\` before then; \`/unattempt\` lets it go.`;
    case "queued":
      return `@${extra.holder ?? "someone"} holds this bounty for now. You are ${ordinal(extra.place ?? 1)} in the queue: you will be told when it is yours.`;
    case "applied":
      return "Your application is in: the pool manager picks who works on this bounty, and you will be told.";
    default:
      return "You're now registered to contribute to this issue.";
  }
}

async function outcomeOf(ctx: Pick<AppContext, "database">, attempt: BountyAttempt, already: boolean): Promise<AttemptOutcome> {
  if (attempt.status === "queued") {
    const { holder, queue } = await attemptsOn(ctx, attempt.githubRepoId, attempt.issueNumber);
    const place = queue.findIndex((q) => q.id === attempt.id) + 1;
    return { status: "queued", place, holder: holder?.githubLogin, already, message: standing(attempt, { place, holder: holder?.githubLogin, issueNumber: attempt.issueNumber }) };
  }
  return {
    status: attempt.status as LiveStatus,
    lockedUntil: attempt.lockedUntil ?? undefined,
    already,
    message: standing(attempt, { issueNumber: attempt.issueNumber }),
  };
}

/**
 * The person attempts the issue: the bounty's mode says whether they hold it, queue, apply or simply work on it.
 * Refused (DomainError) on a humans-only bounty for a bot or a flagged account, over the limit of live attempts,
 * or without a note on an application. Asking again answers where they stand.
 */
export async function startAttempt(
  ctx: AttemptDeps,
  input: { repository: Repository; issueNumber: number; user: User; who: Attempter; note?: string | null; now?: number },
): Promise<AttemptOutcome> {
  const { repository, issueNumber, user } = input;
  const repoId = repository.githubRepoId;
  const now = input.now ?? Date.now();
  const settings = await effectiveSettings(ctx, repoId, issueNumber);
  await checkAudience(ctx, repoId, settings, input.who);
  const db = ctx.database.db;
  const [mine] = await db.select().from(bountyAttempts).where(and(onIssue(repoId, issueNumber), eq(bountyAttempts.userId, user.id), live)).limit(1);
  if (mine) return outcomeOf(ctx, mine, true);
  const note = input.note?.trim().slice(0, MAX_APPLICATION_NOTE) || null;
  if (settings.mode === "application" && !note) {
    throw new DomainError({
      code: ErrorCode.APPLICATION_NOTE_REQUIRED,
      error: "A short note is needed",
      message: `The pool manager picks who works on this bounty: apply with a short note on how you would fix it (on GitHub: \`/attempt I would …\`).`,
    });
  }
  // The limits count attempts that hold or wait for a place (an open bounty's registration blocks nobody: unlimited, as before).
  const limit = settings.mode === "open" ? { limit: Infinity, newcomer: false } : await attemptLimitOf(ctx, input.who, repository);
  const attempt = await db.transaction(
    async (tx) => {
      const already = await tx.select().from(bountyAttempts).where(and(onIssue(repoId, issueNumber), eq(bountyAttempts.userId, user.id), live)).limit(1);
      if (already[0]) return { row: already[0], already: true };
      const others = await tx.select({ id: bountyAttempts.id }).from(bountyAttempts).where(and(eq(bountyAttempts.userId, user.id), inArray(bountyAttempts.status, [...PLACE_STATUSES])));
      if (others.length >= limit.limit) return { refused: true as const };
      const [holder] = await tx.select({ id: bountyAttempts.id }).from(bountyAttempts).where(and(onIssue(repoId, issueNumber), eq(bountyAttempts.status, "holding"))).limit(1);
      const status: LiveStatus = settings.mode === "open" ? "working" : settings.mode === "application" ? "applied" : holder ? "queued" : "holding";
      const [row] = await tx
        .insert(bountyAttempts)
        .values({
          githubRepoId: repoId,
          issueNumber,
          userId: user.id,
          githubUserId: input.who.githubUserId,
          githubLogin: input.who.login,
          status,
          note: settings.mode === "application" ? note : null,
          createdAt: new Date(now),
          ...(status === "holding" ? { heldFrom: new Date(now), lockedUntil: new Date(now + settings.lockMs), notifiedAt: new Date(now) } : {}),
        })
        .returning();
      if (status === "holding" || status === "working") {
        await tx.insert(bountyClaims).values({ githubRepoId: repoId, issueNumber, userId: user.id }).onConflictDoNothing();
      }
      return { row: row!, already: false };
    },
    { behavior: "immediate" },
  );
  if ("refused" in attempt) throw limitRefusal(limit, await liveAttemptsOf(ctx, user.id));
  if (!attempt.already && (attempt.row.status === "holding" || attempt.row.status === "working")) await claimed(ctx, attempt.row);
  ctx.changes.publish(["claims", `repo:${repoId}`, `bounty:${repoId}:${issueNumber}`]);
  return outcomeOf(ctx, attempt.row, attempt.already);
}

/** What a claim has always meant (the Contribute button, `/attempt`): the claim event, and the claimant on-chain. */
async function claimed(ctx: AttemptDeps, attempt: BountyAttempt): Promise<void> {
  await recordClaimEvent(ctx.database.db, { repoId: attempt.githubRepoId, issueNumber: attempt.issueNumber, userId: attempt.userId, login: attempt.githubLogin });
  const wallet = await walletOfUser(ctx.database.db, attempt.userId);
  if (wallet) await recordClaimOnChain(ctx, { repoId: attempt.githubRepoId, issueNumber: attempt.issueNumber, contributor: wallet.address as Address });
}

type Tx = Parameters<Parameters<AttemptDeps["database"]["db"]["transaction"]>[0]>[0];

/**
 * Ends a live attempt (inside the caller's transaction) and, when it held the bounty, hands the lock to the first in
 * the queue with a fresh lock of the bounty's duration. Returns the new holder, if any (to be told).
 */
async function endAndPromote(tx: Tx, attempt: BountyAttempt, status: "released" | "declined", reason: BountyAttempt["endReason"], settings: AttemptSettings, now: number): Promise<BountyAttempt | undefined> {
  const ended = await tx
    .update(bountyAttempts)
    .set({ status, endReason: reason, endedAt: new Date(now) })
    .where(and(eq(bountyAttempts.id, attempt.id), eq(bountyAttempts.status, attempt.status)))
    .returning();
  if (!ended.length) return undefined; // someone else ended it meanwhile
  if (attempt.status === "holding" || attempt.status === "working") {
    await tx.delete(bountyClaims).where(and(eq(bountyClaims.githubRepoId, attempt.githubRepoId), eq(bountyClaims.issueNumber, attempt.issueNumber), eq(bountyClaims.userId, attempt.userId)));
  }
  if (attempt.status !== "holding") return undefined;
  const [next] = await tx.select().from(bountyAttempts).where(and(onIssue(attempt.githubRepoId, attempt.issueNumber), eq(bountyAttempts.status, "queued"))).orderBy(asc(bountyAttempts.id)).limit(1);
  if (!next) return undefined;
  const [promoted] = await tx
    .update(bountyAttempts)
    .set({ status: "holding", heldFrom: new Date(now), lockedUntil: new Date(now + settings.lockMs), notifiedAt: null })
    .where(and(eq(bountyAttempts.id, next.id), eq(bountyAttempts.status, "queued")))
    .returning();
  if (promoted) await tx.insert(bountyClaims).values({ githubRepoId: promoted.githubRepoId, issueNumber: promoted.issueNumber, userId: promoted.userId }).onConflictDoNothing();
  return promoted;
}

async function afterMove(ctx: AttemptDeps, repository: Pick<Repository, "githubRepoId" | "fullName" | "installationId">, promoted: BountyAttempt | undefined, why: string): Promise<void> {
  if (promoted) {
    await claimed(ctx, promoted);
    await tellNewHolder(ctx, repository, promoted, why);
  }
  ctx.changes.publish(["claims", `repo:${repository.githubRepoId}`, ...(promoted ? [`bounty:${repository.githubRepoId}:${promoted.issueNumber}`] : [])]);
}

const noAttempt = (message: string) => new DomainError({ code: ErrorCode.NO_ATTEMPT, error: "No attempt", message });

/** `/unattempt` (or the page's button): the person lets their attempt go; a holder's lock passes to the queue. */
export async function stopAttempt(ctx: AttemptDeps, input: { repository: Repository; issueNumber: number; user: User; now?: number }): Promise<{ message: string }> {
  const { repository, issueNumber } = input;
  const now = input.now ?? Date.now();
  const settings = await effectiveSettings(ctx, repository.githubRepoId, issueNumber);
  const result = await ctx.database.db.transaction(
    async (tx) => {
      const [mine] = await tx.select().from(bountyAttempts).where(and(onIssue(repository.githubRepoId, issueNumber), eq(bountyAttempts.userId, input.user.id), live)).limit(1);
      if (!mine) return undefined;
      return { mine, promoted: await endAndPromote(tx, mine, "released", "unattempt", settings, now) };
    },
    { behavior: "immediate" },
  );
  if (!result) throw noAttempt(`You have no attempt on issue #${issueNumber} to drop.`);
  await afterMove(ctx, repository, result.promoted, `@${input.user.username} let it go`);
  ctx.changes.publish([`bounty:${repository.githubRepoId}:${issueNumber}`]);
  return { message: result.mine.status === "holding" ? "You let this bounty go: the next in the queue now holds it." : "Your attempt is withdrawn." };
}

/** The pool manager ends someone's attempt (a holder's lock passes to the queue). Admin rights are the caller's check. */
export async function releaseAttemptOf(ctx: AttemptDeps, input: { repository: Repository; issueNumber: number; login: string; now?: number }): Promise<{ message: string }> {
  const { repository, issueNumber } = input;
  const now = input.now ?? Date.now();
  const settings = await effectiveSettings(ctx, repository.githubRepoId, issueNumber);
  const result = await ctx.database.db.transaction(
    async (tx) => {
      const rows = await tx.select().from(bountyAttempts).where(and(onIssue(repository.githubRepoId, issueNumber), live));
      const theirs = rows.find((r) => r.githubLogin.toLowerCase() === input.login.toLowerCase());
      if (!theirs) return undefined;
      return { theirs, promoted: await endAndPromote(tx, theirs, "released", "manager", settings, now) };
    },
    { behavior: "immediate" },
  );
  if (!result) throw noAttempt(`@${input.login} has no attempt on issue #${issueNumber}.`);
  await afterMove(ctx, repository, result.promoted, `the pool manager released @${result.theirs.githubLogin}'s attempt`);
  ctx.changes.publish([`bounty:${repository.githubRepoId}:${issueNumber}`]);
  return { message: `@${result.theirs.githubLogin}'s attempt is released.` };
}

/** The pool manager picks an applicant (application mode): they hold the bounty for its lock time and are told. */
export async function pickApplicant(ctx: AttemptDeps, input: { repository: Repository; issueNumber: number; login: string; now?: number }): Promise<{ message: string; lockedUntil: Date }> {
  const { repository, issueNumber } = input;
  const now = input.now ?? Date.now();
  const settings = await effectiveSettings(ctx, repository.githubRepoId, issueNumber);
  const picked = await ctx.database.db.transaction(
    async (tx) => {
      const rows = await tx.select().from(bountyAttempts).where(and(onIssue(repository.githubRepoId, issueNumber), live));
      const holder = rows.find((r) => r.status === "holding");
      if (holder) return { lockedBy: holder };
      const applicant = rows.find((r) => r.status === "applied" && r.githubLogin.toLowerCase() === input.login.toLowerCase());
      if (!applicant) return undefined;
      const [row] = await tx
        .update(bountyAttempts)
        .set({ status: "holding", heldFrom: new Date(now), lockedUntil: new Date(now + settings.lockMs), notifiedAt: null })
        .where(and(eq(bountyAttempts.id, applicant.id), eq(bountyAttempts.status, "applied")))
        .returning();
      await tx.insert(bountyClaims).values({ githubRepoId: repository.githubRepoId, issueNumber, userId: applicant.userId }).onConflictDoNothing();
      return { row: row! };
    },
    { behavior: "immediate" },
  );
  if (!picked) throw noAttempt(`@${input.login} has not applied for issue #${issueNumber}.`);
  if ("lockedBy" in picked) {
    throw new DomainError({
      code: ErrorCode.BOUNTY_LOCKED,
      error: "Someone holds it",
      message: `@${picked.lockedBy!.githubLogin} holds this bounty until ${utcMinute(picked.lockedBy!.lockedUntil!)}: release their attempt first.`,
    });
  }
  await afterMove(ctx, repository, picked.row, "the pool manager picked your application");
  return { message: `@${picked.row.githubLogin} holds this bounty until ${utcMinute(picked.row.lockedUntil!)} (${lockDaysText(settings.lockMs)}).`, lockedUntil: picked.row.lockedUntil! };
}

/** An open pull request of the holder that closes the issue keeps their lock past its time (the webhooks' record). */
async function holderHasLinkedPull(ctx: Pick<AppContext, "database">, attempt: BountyAttempt): Promise<boolean> {
  const open = await ctx.database.db
    .select({ closes: pullPreviews.closes })
    .from(pullPreviews)
    .where(and(eq(pullPreviews.githubRepoId, attempt.githubRepoId), eq(pullPreviews.authorGithubId, attempt.githubUserId), eq(pullPreviews.state, "open")));
  return open.some((p) => (JSON.parse(p.closes) as number[]).includes(attempt.issueNumber));
}

/**
 * The lock pass (api/schedule.ts, "attempt-locks"): every lock past its time whose holder has no open pull request
 * closing the issue is released, and the first in the queue holds the bounty now (and is told). `now`: a fake clock.
 */
export async function expireLocks(ctx: AttemptDeps, now = Date.now()): Promise<{ expired: number; kept: number }> {
  const due = await ctx.database.db.select().from(bountyAttempts).where(and(eq(bountyAttempts.status, "holding"), lte(bountyAttempts.lockedUntil, new Date(now))));
  let expired = 0;
  let kept = 0;
  for (const attempt of due) {
    if (await holderHasLinkedPull(ctx, attempt)) {
      kept++;
      continue;
    }
    const settings = await effectiveSettings(ctx, attempt.githubRepoId, attempt.issueNumber);
    const promoted = await ctx.database.db.transaction((tx) => endAndPromote(tx, attempt, "released", "expired", settings, now), { behavior: "immediate" });
    expired++;
    const [repository] = await ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, attempt.githubRepoId)).limit(1);
    if (repository) await afterMove(ctx, repository, promoted, `@${attempt.githubLogin}'s lock expired without a linked pull request`);
    ctx.changes.publish([`repo:${attempt.githubRepoId}`, `bounty:${attempt.githubRepoId}:${attempt.issueNumber}`]);
  }
  return { expired, kept };
}

/**
 * A merged pull request closed the issue: every live attempt on it ends (`merged` for its author, `merged_other`
 * for the others, the holder among them). Returns the holder overtaken by someone else's merge, for the bot to say.
 * Who is paid is not decided here (payouts/decision.ts).
 */
export async function endAttemptsOnMerge(ctx: Pick<AppContext, "database" | "changes">, input: { repoId: number; issueNumber: number; pullNumber: number; authorGithubId: number; now?: number }): Promise<BountyAttempt | undefined> {
  const now = new Date(input.now ?? Date.now());
  const rows = await ctx.database.db.select().from(bountyAttempts).where(and(onIssue(input.repoId, input.issueNumber), live));
  let overtaken: BountyAttempt | undefined;
  for (const row of rows) {
    const own = row.githubUserId === input.authorGithubId;
    await ctx.database.db
      .update(bountyAttempts)
      .set({ status: "ended", endReason: own ? "merged" : "merged_other", endedAt: now, pullNumber: input.pullNumber })
      .where(and(eq(bountyAttempts.id, row.id), eq(bountyAttempts.status, row.status)));
    if (row.status === "holding" && !own) overtaken = row;
  }
  if (rows.length) ctx.changes.publish([`repo:${input.repoId}`, `bounty:${input.repoId}:${input.issueNumber}`]);
  return overtaken;
}
