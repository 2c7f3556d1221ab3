/**
 * Bounties held for a pull request author who had no Issuepool wallet when
 * their fix was merged (issue 11). The bounty stays open on-chain; the
 * platform remembers whom it is owed to, the bot's comment tells them to sign
 * in, and when that GitHub user registers it is paid, exactly once:
 *
 *   merged, author without a wallet -> held (a row here)
 *   the author registers            -> payout in the outbox, row released
 *
 * The payout uses the merge path's own key (`merge-payout:<repo>:<issue>`)
 * and request, so a redelivered merge webhook after registration, a second
 * registration attempt, or two processes releasing at once all find the one
 * outbox row; the outbox's one-live-payout-per-issue index and the contract
 * refuse a second payment besides. Release runs right after registration
 * and again on every pass of the webhook worker, so a crash between the two
 * delays the payout by one pass, never loses it.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { heldPayouts, users, wallets } from "../../../db/schema/index.ts";
import { ErrorCode, hasCode } from "../../errors.ts";
import { withBountyLock } from "../money/pool-guard.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";
import { mergePayoutKey, payBounty } from "../payouts/pay.ts";
// The hold itself lives in holds.ts (money/bounties.ts holds too, and this file pays through it): re-exported for callers.
export { holdPayout } from "./holds.ts";

export { mergePayoutKey };

/** The unreleased holds of one repository's issue, if any (for the bot's comment and the pages). */
export async function heldFor(ctx: DatabaseDeps, repoId: number, issueNumber: number) {
  const [row] = await ctx.database.db
    .select()
    .from(heldPayouts)
    .where(and(eq(heldPayouts.githubRepoId, repoId), eq(heldPayouts.issueNumber, issueNumber), isNull(heldPayouts.releasedAt)))
    .limit(1);
  return row;
}

/**
 * Pays every held bounty whose GitHub user now has a wallet (only `githubUserId`'s when given). Returns how
 * many payouts it put in the outbox.
 */
export async function releaseHeldPayouts(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "changes">, only?: { githubUserId: number }): Promise<number> {
  const db = ctx.database.db;
  const due = await db
    .select({ hold: heldPayouts, address: wallets.address })
    .from(heldPayouts)
    .innerJoin(users, eq(users.githubId, heldPayouts.githubUserId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(and(isNull(heldPayouts.releasedAt), only ? eq(heldPayouts.githubUserId, only.githubUserId) : undefined));
  let released = 0;
  for (const { hold, address } of due) {
    const person = { id: hold.githubUserId, login: hold.githubLogin };
    // The one payout decision, under the bounty's lock: still held for this person, still open, nothing on its way.
    const queued = await withBountyLock(ctx, hold.githubRepoId, hold.issueNumber, async (lock) => {
      const decision = decide(await bountyFacts(ctx, hold.githubRepoId, hold.issueNumber), { kind: "held", person });
      if (!decision.ok) {
        ctx.log.info("held bounty not paid: the payout decision refused", { repoId: hold.githubRepoId, issue: hold.issueNumber, login: hold.githubLogin, code: decision.refusal.code });
        return undefined;
      }
      try {
        return await payBounty(ctx, {
          userId: null,
          idempotencyKey: mergePayoutKey(hold.githubRepoId, hold.issueNumber),
          request: { repoId: hold.githubRepoId, issueNumber: hold.issueNumber, to: address },
          repoId: hold.githubRepoId,
          issueNumber: hold.issueNumber,
          to: address as Address,
          reason: `held for @${hold.githubLogin} (${hold.pullNumber === null ? "chosen by the pool manager" : `pull request #${hold.pullNumber}`}) until they registered`,
          queueOnly: true,
          fence: lock.fence,
        });
      } catch (err) {
        // Paid or being paid already (a concurrent release, or by hand): the hold is done all the same.
        if (!hasCode(err, ErrorCode.ALREADY_PAID, ErrorCode.IDEMPOTENCY_CONFLICT)) throw err;
        return undefined;
      }
    });
    if (queued) {
      released++;
      await ctx.outbox.untilBroadcast(queued);
    }
    await db
      .update(heldPayouts)
      .set({ releasedAt: new Date() })
      .where(and(eq(heldPayouts.githubRepoId, hold.githubRepoId), eq(heldPayouts.issueNumber, hold.issueNumber), isNull(heldPayouts.releasedAt)));
    ctx.changes.publish([`repo:${hold.githubRepoId}`, `bounty:${hold.githubRepoId}:${hold.issueNumber}`]);
  }
  return released;
}
