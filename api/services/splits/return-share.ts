import { and, eq, sql } from "drizzle-orm";
import { encodeFunctionData, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import type { AppContext } from "../../context.ts";
import { payoutSplitShares, type User } from "../../../db/schema/index.ts";
import { conflict, ErrorCode, notFound } from "../../errors.ts";
import { requireManagedRepository } from "../money/access.ts";
import { withBountyLock } from "../money/pool-guard.ts";
import { transactionResult, type TransactionResult } from "../money/transaction-result.ts";
import { heldSharePayKey, heldShareTipId } from "./release.ts";
import { HELD_SHARE_RETURN_DELAY_MS } from "./held-share-return-time.ts";

type Deps = Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox" | "indexer" | "changes" | "log">;

/** The contract's TipStatus.Held. */
const TIP_HELD = 1;
const RETURN_WAIT_MS = 20_000;

/**
 * POST /api/splits/{repoId}/{issueNumber}/shares/{login}/return: the pool manager returns a share of a split
 * payout that was held in the escrow for a person who never registered, to the repository's pool (the contract's
 * `refundTip`, allowed TIP_REFUND_DELAY after the share was held; the money can go nowhere else). Refused while it
 * is not due (409, with the date), once its person registered and it is being paid to them, or when nothing is held.
 * Under the bounty's lock, so the release pass's payment to a person who has just registered and this return do not
 * both go out; the contract would refuse the second anyway (a held tip is paid or returned once).
 */
export async function returnHeldShare(
  ctx: Deps,
  input: { user: User; repoId: number; issueNumber: number; login: string; idempotencyKey: string },
): Promise<TransactionResult> {
  const login = input.login.replace(/^@/, "");
  const request = { route: "return_held_share", repoId: input.repoId, issueNumber: input.issueNumber, login: login.toLowerCase() };
  let tx = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (!tx) {
    await requireManagedRepository(ctx, input.user, { repoId: input.repoId, orRegisteredName: true, action: "manage" });
    // Only the row is written under the lock, fenced; it is sent after.
    const queued = await withBountyLock(ctx, input.repoId, input.issueNumber, async (lock) => {
      const earlier = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
      if (earlier) return earlier;
      const [share] = await ctx.database.db
        .select()
        .from(payoutSplitShares)
        .where(and(eq(payoutSplitShares.githubRepoId, input.repoId), eq(payoutSplitShares.issueNumber, input.issueNumber), sql`lower(${payoutSplitShares.githubLogin}) = ${login.toLowerCase()}`))
        .limit(1);
      if (!share) throw notFound(`@${login} has no share of this issue's bounty.`);
      if (share.status !== "escrowed" || !share.txId) throw conflict(`Nothing of @${login}'s share is held: it was ${share.status === "returned" ? "already returned to the pool" : "paid or is being paid"}.`, "Nothing held", ErrorCode.NOTHING_HELD);
      const payment = await ctx.outbox.findByKey(null, heldSharePayKey(share.githubRepoId, share.issueNumber, share.githubUserId));
      if (payment && payment.status !== "failed" && payment.status !== "reverted") throw conflict(`@${login} has registered: the share is being paid to them.`, "Being paid", ErrorCode.BOUNTY_SETTLING);
      const payout = await ctx.outbox.get(share.txId);
      if (payout.status !== "confirmed" || !payout.txHash || payout.blockNumber === null) throw conflict("The split's payout is not confirmed yet.", "Not held yet", ErrorCode.NOT_DUE);
      const tipId = await heldShareTipId(ctx, share, payout.txHash as Hex, payout.blockNumber);
      if (tipId === undefined) throw conflict("The contract has not held this share yet (its payout is queued).", "Not held yet", ErrorCode.NOT_DUE);
      const rewards = ctx.chain.config.contracts.rewards;
      const [tip, latest] = await Promise.all([
        ctx.chain.client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getTip", args: [tipId] }),
        ctx.chain.client.getBlock({ blockTag: "latest" }),
      ]);
      if (tip.status !== TIP_HELD) throw conflict(`Nothing of @${login}'s share is held any more.`, "Nothing held", ErrorCode.NOTHING_HELD);
      const readyAt = BigInt(tip.createdAt) * 1000n + BigInt(HELD_SHARE_RETURN_DELAY_MS);
      if (readyAt > latest.timestamp * 1000n) {
        throw conflict(`@${login}'s share can go back to the pool from ${new Date(Number(readyAt)).toISOString().slice(0, 16).replace("T", " ")} UTC, 30 days after it was held.`, "Not due yet", ErrorCode.NOT_DUE);
      }
      const { tx: submitted } = await ctx.outbox.enqueue(
        {
          userId: input.user.id,
          idempotencyKey: input.idempotencyKey,
          request,
          kind: "return_held_share",
          githubRepoId: input.repoId,
          issueNumber: input.issueNumber,
          intent: { repoId: input.repoId, issueNumber: input.issueNumber, chainTipId: tipId.toString(), login: share.githubLogin, githubUserId: share.githubUserId, amount: share.amount?.toString() ?? null },
          signer: { kind: "operator" },
          to: rewards,
          data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "refundTip", args: [tipId] }),
        },
        undefined,
        { replayChecked: true, fence: lock.fence },
      );
      return submitted;
    });
    tx = await ctx.outbox.untilBroadcast(queued);
  }
  const settled = await ctx.outbox.waitForSettled(tx, RETURN_WAIT_MS);
  if (settled.status === "confirmed") {
    // The indexer marks the share returned from HeldShareReturned (indexer-mirror.ts); caught up here so the answer's reader sees it.
    await ctx.indexer.catchUp();
    ctx.changes.publish(["repositories", `repo:${input.repoId}`, `bounty:${input.repoId}:${input.issueNumber}`]);
  }
  return transactionResult(ctx, settled, {
    pending: "Return submitted",
    confirmed: `@${login}'s unclaimed share is back in the repository's pool`,
    failedTitle: "Failed to return the share",
  });
}
