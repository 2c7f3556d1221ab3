/**
 * Who may attempt a bounty (issue 39, item 2). Each refusal is a DomainError with its own code, saying why and what
 * lifts it:
 * - `humans_only`: the bounty is for people and the account is a bot on GitHub (type "Bot", or a `[bot]` login), or
 *   the pool manager flagged it as automated on this repository. Lifted by the pool manager (agents allowed, or the
 *   flag removed).
 * The limits count attempts that hold or wait for a place (holding, queued, applied) on exclusive and application
 * bounties; registering on an open bounty blocks nobody and stays unlimited, as before issue 39.
 * - `attempt_limit`: MAX_LIVE_ATTEMPTS such attempts already. Lifted by finishing or dropping one (`/unattempt`).
 * - `newcomer_attempt_limit`: one live attempt already, and no pull request of theirs merged on a registered
 *   repository. Lifted the same way, or by a first merged pull request.
 *
 * "Merged on a registered repository": the merges the platform saw (contributor_merges, written by the merge webhook
 * of every registered repository); before refusing a newcomer, GitHub is asked once about the repository of the
 * attempt (their closed pull requests there), so a contributor whose merges predate the app is not held back there.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { bountyAttempts, contributorMerges, repositories, type Repository } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { installationClient } from "../../github/app-auth.ts";
import { encodeFullName } from "../../github/repositories.ts";
import { MAX_LIVE_ATTEMPTS, NEWCOMER_LIVE_ATTEMPTS, type AttemptSettings } from "../../../lib/attempt-rules.ts";
import { isFlagged } from "./settings.ts";

export interface Attempter {
  githubUserId: number;
  login: string;
  /** GitHub's account type ("User", "Bot", "Organization"), when the caller knows it. */
  githubType?: string;
}

export const isBotAccount = (who: Pick<Attempter, "login" | "githubType">) => who.githubType === "Bot" || who.login.toLowerCase().endsWith("[bot]");

/** The audience rule: throws `humans_only` with the reason and what lifts it. */
export async function checkAudience(ctx: DatabaseDeps, repoId: number, settings: AttemptSettings, who: Attempter): Promise<void> {
  if (settings.audience !== "humans") return;
  if (isBotAccount(who)) {
    throw new DomainError({
      code: ErrorCode.HUMANS_ONLY,
      error: "Humans only",
      message: `This bounty is for people only, and GitHub marks @${who.login} as a bot account. The pool manager can allow automated agents on it.`,
    });
  }
  if (await isFlagged(ctx, repoId, who.login)) {
    throw new DomainError({
      code: ErrorCode.HUMANS_ONLY,
      error: "Humans only",
      message: `This bounty is for people only, and the pool manager marked @${who.login} as an automated account on this repository. Ask the pool manager to remove the mark or to allow automated agents on this bounty.`,
    });
  }
}

/** Whether the person has a pull request merged on any registered repository (the platform's record, then GitHub for `repository`). */
export async function hasMergedPull(ctx: Pick<AppContext, "env" | "database" | "log">, who: Attempter, repository?: Repository): Promise<boolean> {
  const db = ctx.database.db;
  const [known] = await db.select({ n: contributorMerges.pullNumber }).from(contributorMerges).where(eq(contributorMerges.githubUserId, who.githubUserId)).limit(1);
  if (known) return true;
  if (!repository?.installationId) return false;
  try {
    const client = await installationClient(ctx, repository.installationId);
    const closed = await client.get<{ number: number; user: { id: number } | null; pull_request?: { merged_at: string | null } }[]>(
      `/repos/${encodeFullName(repository.fullName)}/issues?state=closed&creator=${encodeURIComponent(who.login)}&per_page=100`,
    );
    const merged = closed.filter((i) => i.pull_request?.merged_at && i.user?.id === who.githubUserId);
    for (const pr of merged) await recordMerge(ctx, { githubUserId: who.githubUserId, repoId: repository.githubRepoId, pullNumber: pr.number, mergedAt: new Date(pr.pull_request!.merged_at!) });
    return merged.length > 0;
  } catch (err) {
    // GitHub not answering is no reason to refuse: the platform's own record stands (none), the limit applies.
    ctx.log.warn("could not ask GitHub for a contributor's merged pull requests", { login: who.login, err: (err as Error).message });
    return false;
  }
}

export async function recordMerge(ctx: DatabaseDeps, merge: { githubUserId: number; repoId: number; pullNumber: number; mergedAt: Date }): Promise<void> {
  await ctx.database.db
    .insert(contributorMerges)
    .values({ githubUserId: merge.githubUserId, githubRepoId: merge.repoId, pullNumber: merge.pullNumber, mergedAt: merge.mergedAt })
    .onConflictDoNothing();
}

/** The person's attempts that hold or wait for a place (what the limits count), oldest first, with their repository's name. */
export async function liveAttemptsOf(ctx: DatabaseDeps, userId: number, except?: { repoId: number; issueNumber: number }) {
  const rows = await ctx.database.db
    .select({ repoId: bountyAttempts.githubRepoId, issueNumber: bountyAttempts.issueNumber, status: bountyAttempts.status, fullName: repositories.fullName })
    .from(bountyAttempts)
    .leftJoin(repositories, eq(repositories.githubRepoId, bountyAttempts.githubRepoId))
    .where(and(eq(bountyAttempts.userId, userId), inArray(bountyAttempts.status, ["holding", "queued", "applied"])))
    .orderBy(bountyAttempts.id);
  return except ? rows.filter((r) => !(r.repoId === except.repoId && r.issueNumber === except.issueNumber)) : rows;
}

/** The limit that applies to this person now. */
export async function attemptLimitOf(ctx: Pick<AppContext, "env" | "database" | "log">, who: Attempter, repository?: Repository): Promise<{ limit: number; newcomer: boolean }> {
  const merged = await hasMergedPull(ctx, who, repository);
  return merged ? { limit: MAX_LIVE_ATTEMPTS, newcomer: false } : { limit: NEWCOMER_LIVE_ATTEMPTS, newcomer: true };
}

/** The refusal for a person at their limit, naming what they work on and what frees a place. */
export function limitRefusal(limit: { limit: number; newcomer: boolean }, live: { fullName: string | null; repoId: number; issueNumber: number }[]): DomainError {
  const names = live.map((a) => `${a.fullName ?? a.repoId}#${a.issueNumber}`).join(", ");
  return limit.newcomer
    ? new DomainError({
        code: ErrorCode.NEWCOMER_ATTEMPT_LIMIT,
        error: "One attempt at a time",
        message: `Until a pull request of yours is merged on a repository registered on Issuepool, you can attempt one bounty at a time (you are on ${names}). Drop it with /unattempt, or get a pull request merged, to take on up to ${MAX_LIVE_ATTEMPTS}.`,
        details: { limit: limit.limit, attempts: live.map((a) => `${a.fullName ?? a.repoId}#${a.issueNumber}`) },
      })
    : new DomainError({
        code: ErrorCode.ATTEMPT_LIMIT,
        error: "Too many attempts",
        message: `You already have ${live.length} attempts under way (${names}), the most one person may hold at once. Finish one or drop it with /unattempt to take on another.`,
        details: { limit: limit.limit, attempts: live.map((a) => `${a.fullName ?? a.repoId}#${a.issueNumber}`) },
      });
}
