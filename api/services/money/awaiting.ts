/**
 * Bounties awaiting the pool manager's decision (issue 11). A platform
 * state: on-chain the bounty stays open, the database remembers that nobody
 * will be paid from it by the normal path, so the pool manager decides:
 *
 *   open | claimed --issue closed as completed, no payout or hold--> awaiting
 *   claimed        --issue closed as not planned-----------------> awaiting
 *   awaiting       --release (claimant, PR author, any login)-----> paid | held
 *   awaiting       --cancel---------------------------------------> cancelled (back to the pool)
 *   awaiting       --issue reopened-------------------------------> open | claimed
 *
 * (An issue closed as not planned with nobody on it is cancelled at once:
 * api/services/github-events/issues.ts.) The pool manager hears of it on the
 * repository page, on the profile dashboard and by one e-mail, sent by the
 * webhook worker's after-pass (not inline), so that a merged pull request's
 * payout, whose webhook can be processed after the issue's, settles first: a
 * bounty paid or held by then is no longer awaiting and no e-mail goes out.
 */
import { recordBountyEvent } from "../notify/events.ts";
import { liveSplit } from "../splits/live.ts";
import { and, eq, inArray, isNull, lt, ne, notInArray } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import {
  awaitingDecisions,
  bounties,
  chainTransactions,
  heldPayouts,
  repositories,
  users,
  type AwaitingReason,
} from "../../../db/schema/index.ts";
import { formatExact } from "../../../lib/money-format.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { awaitingDecisionMail } from "../../mail/templates.ts";

/** An e-mail waits this long after the issue closed, so a merge processed just after it can pay first. */
export const AWAITING_NOTICE_DELAY_MS = 5_000;

/** A payout of this issue sent or being sent (not failed): the bounty is on its way to someone. */
export async function hasLivePayout(ctx: DatabaseDeps, repoId: number, issueNumber: number): Promise<boolean> {
  const rows = await ctx.database.db
    .select({ id: chainTransactions.id })
    .from(chainTransactions)
    .where(
      and(
        eq(chainTransactions.kind, "pay_bounty"),
        eq(chainTransactions.githubRepoId, repoId),
        eq(chainTransactions.issueNumber, issueNumber),
        notInArray(chainTransactions.status, ["failed", "reverted"]),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

/** An unreleased hold on this issue's bounty (owed to a GitHub user who has no wallet yet). */
async function hasHold(ctx: DatabaseDeps, repoId: number, issueNumber: number): Promise<boolean> {
  const rows = await ctx.database.db
    .select({ login: heldPayouts.githubLogin })
    .from(heldPayouts)
    .where(and(eq(heldPayouts.githubRepoId, repoId), eq(heldPayouts.issueNumber, issueNumber), isNull(heldPayouts.releasedAt)))
    .limit(1);
  return rows.length > 0;
}

/**
 * Puts an open bounty in front of the pool manager. Nothing happens when the
 * mirror has no open bounty, or the bounty is already being paid or held.
 * Idempotent (a redelivered close finds the row).
 */
export async function markAwaiting(ctx: Pick<AppContext, "database" | "log" | "indexer" | "changes">, input: { repoId: number; issueNumber: number; reason: AwaitingReason }): Promise<boolean> {
  const db = ctx.database.db;
  const openBounty = async () =>
    (
      await db
        .select({ allocatedTx: bounties.allocatedTx })
        .from(bounties)
        .where(and(eq(bounties.githubRepoId, input.repoId), eq(bounties.issueNumber, input.issueNumber), eq(bounties.status, "open")))
        .limit(1)
    )[0];
  // The caller saw it open on-chain; the mirror may be a block behind.
  let bounty = await openBounty();
  if (!bounty) {
    await ctx.indexer.catchUp();
    bounty = await openBounty();
  }
  if (!bounty) return false;
  // Owed already: a payout on its way, a hold, or a split (the close's own path can open one for a merged fix just
  // before: splits/open.ts; the chain bench's log showed such bounties marked awaiting).
  if ((await hasLivePayout(ctx, input.repoId, input.issueNumber)) || (await hasHold(ctx, input.repoId, input.issueNumber))) return false;
  if (await liveSplit(ctx, input.repoId, input.issueNumber)) return false;
  const values = { githubRepoId: input.repoId, issueNumber: input.issueNumber, allocatedTx: bounty.allocatedTx, reason: input.reason };
  await db
    .insert(awaitingDecisions)
    .values(values)
    .onConflictDoUpdate({
      target: [awaitingDecisions.githubRepoId, awaitingDecisions.issueNumber],
      set: { allocatedTx: values.allocatedTx, reason: values.reason, createdAt: new Date(), notifiedAt: null },
      // The same allocation already awaiting (a redelivered close, the catch-up pass): kept, so no second e-mail.
      setWhere: ne(awaitingDecisions.allocatedTx, values.allocatedTx),
    });
  // Once per allocation, like the e-mail (a reopen and a second close of the same bounty tell integrators nothing new).
  await recordBountyEvent(db, {
    type: "bounty.awaiting_decision",
    key: `awaiting:${values.allocatedTx}`,
    repoId: input.repoId,
    issueNumber: input.issueNumber,
    data: { reason: input.reason, allocationTransactionHash: values.allocatedTx },
  });
  ctx.log.info("bounty awaiting the pool manager's decision", { repoId: input.repoId, issue: input.issueNumber, reason: input.reason });
  ctx.changes.publish(["repositories", `repo:${input.repoId}`, `bounty:${input.repoId}:${input.issueNumber}`]);
  return true;
}

/** The issue was reopened, or the pool manager decided: back to the normal rules. */
export async function clearAwaiting(ctx: Pick<AppContext, "database" | "changes">, repoId: number, issueNumber: number): Promise<void> {
  const removed = await ctx.database.db
    .delete(awaitingDecisions)
    .where(and(eq(awaitingDecisions.githubRepoId, repoId), eq(awaitingDecisions.issueNumber, issueNumber)))
    .returning();
  if (removed.length) ctx.changes.publish(["repositories", `repo:${repoId}`, `bounty:${repoId}:${issueNumber}`]);
}

/** Joins a decision to the bounty it is about: the same issue and the same allocation (a bounty set again is another). */
export const DECISION_OF_BOUNTY = and(
  eq(bounties.githubRepoId, awaitingDecisions.githubRepoId),
  eq(bounties.issueNumber, awaitingDecisions.issueNumber),
  eq(bounties.allocatedTx, awaitingDecisions.allocatedTx),
)!;

/**
 * The awaiting decisions that still stand, of some repositories (or of
 * all): the row's allocation is the bounty's current one, still open on the
 * mirror, with no payout on its way and no hold.
 */
export async function standingAwaiting(ctx: DatabaseDeps, repoIds?: number[]) {
  if (repoIds && repoIds.length === 0) return [];
  const db = ctx.database.db;
  const rows = await db
    .select({ decision: awaitingDecisions, bounty: bounties })
    .from(awaitingDecisions)
    .innerJoin(bounties, DECISION_OF_BOUNTY)
    .where(and(eq(bounties.status, "open"), repoIds ? inArray(awaitingDecisions.githubRepoId, repoIds) : undefined));
  const standing = [];
  for (const row of rows) {
    if (await hasLivePayout(ctx, row.bounty.githubRepoId, row.bounty.issueNumber)) continue;
    if (await hasHold(ctx, row.bounty.githubRepoId, row.bounty.issueNumber)) continue;
    standing.push(row);
  }
  return standing;
}

/** Is this bounty awaiting a decision right now? */
export async function isAwaiting(ctx: DatabaseDeps, repoId: number, issueNumber: number): Promise<boolean> {
  const [row] = await ctx.database.db
    .select({ decision: awaitingDecisions.reason })
    .from(awaitingDecisions)
    .innerJoin(
      bounties,
      and(
        eq(bounties.githubRepoId, awaitingDecisions.githubRepoId),
        eq(bounties.issueNumber, awaitingDecisions.issueNumber),
        eq(bounties.allocatedTx, awaitingDecisions.allocatedTx),
      ),
    )
    .where(and(eq(awaitingDecisions.githubRepoId, repoId), eq(awaitingDecisions.issueNumber, issueNumber), eq(bounties.status, "open")))
    .limit(1);
  return Boolean(row);
}

/**
 * Sends each standing decision's notice e-mail once, to the pool manager who
 * registered the repository (when they gave an address). Run after every
 * webhook pass; `notifiedAt` is set before sending, so a crash loses at most
 * one e-mail and never sends two.
 */
export async function notifyAwaitingDecisions(ctx: Pick<AppContext, "env" | "database" | "log" | "mailer">, now = Date.now()): Promise<number> {
  const db = ctx.database.db;
  const due = await db
    .select({ repoId: awaitingDecisions.githubRepoId, issueNumber: awaitingDecisions.issueNumber })
    .from(awaitingDecisions)
    .where(and(isNull(awaitingDecisions.notifiedAt), lt(awaitingDecisions.createdAt, new Date(now - AWAITING_NOTICE_DELAY_MS))));
  if (due.length === 0) return 0;
  const standing = await standingAwaiting(ctx, [...new Set(due.map((d) => d.repoId))]);
  let sent = 0;
  for (const { decision, bounty } of standing) {
    if (decision.notifiedAt) continue;
    const claimed = await db
      .update(awaitingDecisions)
      .set({ notifiedAt: new Date(now) })
      .where(and(eq(awaitingDecisions.githubRepoId, decision.githubRepoId), eq(awaitingDecisions.issueNumber, decision.issueNumber), isNull(awaitingDecisions.notifiedAt)))
      .returning();
    if (!claimed.length) continue; // another process sends it
    const [manager] = await db
      .select({ email: users.email, username: users.username, fullName: repositories.fullName })
      .from(repositories)
      .innerJoin(users, eq(users.id, repositories.registeredByUserId))
      .where(eq(repositories.githubRepoId, decision.githubRepoId))
      .limit(1);
    if (!manager?.email) continue;
    try {
      await ctx.mailer.send(
        awaitingDecisionMail({
          to: manager.email,
          repository: manager.fullName,
          issueNumber: decision.issueNumber,
          issueTitle: bounty.issueTitle,
          amount: `${formatExact(bounty.amount, bounty.currency)} ${bounty.currency}`,
          reason: decision.reason,
          pageUrl: `${ctx.env.PUBLIC_URL}/repos/${manager.fullName}`,
        }),
      );
      sent++;
    } catch (err) {
      ctx.log.warn("awaiting-decision notice not sent", { repoId: decision.githubRepoId, issue: decision.issueNumber, err: (err as Error).message });
    }
  }
  // Rows that no longer stand (paid, held or cancelled meanwhile) need no e-mail.
  for (const d of due) {
    if (standing.some((s) => s.decision.githubRepoId === d.repoId && s.decision.issueNumber === d.issueNumber)) continue;
    await db
      .update(awaitingDecisions)
      .set({ notifiedAt: new Date(now) })
      .where(and(eq(awaitingDecisions.githubRepoId, d.repoId), eq(awaitingDecisions.issueNumber, d.issueNumber), isNull(awaitingDecisions.notifiedAt)));
  }
  return sent;
}

/** GET /api/blockchain/awaiting-decisions: the standing decisions of the repositories this user registered (the profile dashboard). */
export async function awaitingForManager(ctx: DatabaseDeps, userId: number) {
  const repos = await ctx.database.db
    .select({ id: repositories.githubRepoId, fullName: repositories.fullName })
    .from(repositories)
    .where(eq(repositories.registeredByUserId, userId));
  const names = new Map(repos.map((r) => [r.id, r.fullName]));
  const standing = await standingAwaiting(ctx, repos.map((r) => r.id));
  return {
    bounties: standing
      .map(({ decision, bounty }) => ({
        repoId: decision.githubRepoId,
        repositoryFullName: names.get(decision.githubRepoId)!,
        issueNumber: decision.issueNumber,
        issueTitle: bounty.issueTitle,
        issueUrl: bounty.issueUrl,
        currency: bounty.currency,
        amount: toDecimalString(bounty.amount, DECIMALS[bounty.currency]),
        reason: decision.reason,
        since: decision.createdAt.toISOString(),
      }))
      .sort((a, b) => a.since.localeCompare(b.since)),
  };
}
