/**
 * Tips that waited for their recipient: sent once the recipient registers a wallet (held by the platform, or in the
 * contract's escrow), and tips whose transaction was dropped, sent again under the same key.
 */
/**
 * Tips (issue 29, item 5; docs/design.md, "Tips"): a signed-in user gives
 * XDC, ROXN or USDC to any GitHub person, from a `/tip 10 XDC @login`
 * comment (confirmed in the app through a money intent, tip-intent.ts) or
 * the Tip button on a profile (POST /api/tips).
 *
 *   recipient with a wallet  -> sending: `tipXdc`/`tipToken` (contract v3:
 *                               straight to them, less the 0.5 % fee) in
 *                               the outbox under the tipper's key `tip:<id>`
 *                               -> sent
 *   recipient without one    -> held: `escrowTipXdc`/`escrowTipToken` puts
 *                               it in the contract's escrow under their
 *                               GitHub id (key `tip:<id>`); when they
 *                               register, the operator's `payTip` (key
 *                               `tip-pay:<id>`) sends it to their wallet
 *                               -> sent. A payTip the contract queued and
 *                               the guardian dropped is paid again, once
 *                               per drop (`tip-pay:<id>:dropped:<outflow>`).
 *                               Unclaimed for 30 days, the tipper
 *                               can take it back (the contract's refundTip).
 * Tokens need an allowance: an approval (key `tip-approve:<id>`) goes first.
 * Exactly once: one tip row per (tipper, request key), one outbox row per
 * step (its key; the contract refuses to pay a tip twice), and a pass
 * (releaseHeldTips) finishes a tip whose row exists but whose next step was
 * never queued (a crash in between).
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { encodeFunctionData, type Address } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { chainEvents, chainTransactions, tips, users, wallets } from "../../../db/schema/index.ts";
import { walletOfGitHubUser } from "../wallets/custodial.ts";
import { type TipDeps, escrowedTipId, sendTip } from "./tips.ts";

/**
 * Finishes tips: a tip whose row exists without its transaction (a crash in between) is sent or escrowed; an
 * escrowed tip whose recipient now has a wallet is paid to it by the operator (`payTip`), once. Only
 * `githubUserId`'s when given. Run on registration and on each webhook pass.
 */
export async function releaseHeldTips(ctx: TipDeps, only?: { githubUserId: number }): Promise<number> {
  const db = ctx.database.db;
  const unsent = await db
    .select()
    .from(tips)
    .where(and(isNull(tips.txId), inArray(tips.status, ["sending", "held"]), only ? eq(tips.toGithubId, only.githubUserId) : undefined))
    .limit(100);
  for (const tip of unsent) {
    try {
      await sendTip(ctx, tip, tip.escrowed ? undefined : await walletOfGitHubUser(ctx.database.db, tip.toGithubId));
    } catch (err) {
      ctx.log.warn("tip not sent yet; retried on the next pass", { tipId: tip.id, err: (err as Error).message });
    }
  }
  const due = await db
    .select({ tip: tips, address: wallets.address })
    .from(tips)
    .innerJoin(users, eq(users.githubId, tips.toGithubId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(and(eq(tips.status, "held"), eq(tips.escrowed, true), isNull(tips.payTxId), sql`${tips.txId} is not null`, only ? eq(tips.toGithubId, only.githubUserId) : undefined))
    .limit(100);
  let paid = 0;
  for (const { tip, address } of due) {
    try {
      const tipId = await escrowedTipId(ctx, tip);
      if (tipId === undefined) continue; // the escrow is not confirmed yet: the next pass
      const { tx } = await ctx.outbox.submitOnce({
        userId: null,
        idempotencyKey: `tip-pay:${tip.id}`,
        request: { tipId: tip.id, chainTipId: tipId.toString() },
        kind: "pay_tip",
        intent: { tipId: tip.id, chainTipId: tipId.toString(), currency: tip.currency, to: address, toLogin: tip.toLogin, amount: (tip.amount - tip.fee).toString() },
        signer: { kind: "operator" },
        to: ctx.chain.config.contracts.rewards,
        data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payTip", args: [tipId, address as Address] }),
      });
      await db.update(tips).set({ status: "sent", payTxId: tx.id, sentAt: new Date() }).where(eq(tips.id, tip.id));
      ctx.changes.publish([`tips:${tip.toGithubId}`]);
      paid++;
    } catch (err) {
      ctx.log.warn("held tip not paid yet; retried on the next pass", { tipId: tip.id, err: (err as Error).message });
    }
  }
  return paid + (await repayDroppedTips(ctx, only));
}

/**
 * A payTip the contract queued and the guardian dropped (cancelOutflow: the tip is Held in the escrow again, its
 * recipient cleared) is paid again, as a dropped bounty payout opens its bounty again to be paid: a new payTip to
 * the recipient's registered wallet, through the outbox under `tip-pay:<id>:dropped:<outflow id>`, so once per
 * drop whatever is retried (a second drop of the new payout is a new outflow id, paid once more). Only a drop of
 * the tip's current payTip counts: one the platform already paid again is done. Found from the indexed
 * OutflowCancelled events of tips (repository 0, the tip's escrow id as the issue number: few rows).
 */
async function repayDroppedTips(ctx: TipDeps, only?: { githubUserId: number }): Promise<number> {
  const db = ctx.database.db;
  const cancelled = await db
    .select({ args: chainEvents.args, chainTipId: chainEvents.issueNumber })
    .from(chainEvents)
    .where(and(eq(chainEvents.repoId, 0), eq(chainEvents.name, "OutflowCancelled"), isNull(chainEvents.oldChain)));
  if (!cancelled.length) return 0;
  const candidates = await db
    .select({ tip: tips, payHash: chainTransactions.txHash, address: wallets.address })
    .from(tips)
    .innerJoin(chainTransactions, eq(chainTransactions.id, tips.payTxId))
    .innerJoin(users, eq(users.githubId, tips.toGithubId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(
      and(
        eq(tips.escrowed, true),
        eq(tips.status, "sent"),
        inArray(tips.chainTipId, [...new Set(cancelled.map((c) => String(c.chainTipId)))]),
        only ? eq(tips.toGithubId, only.githubUserId) : undefined,
      ),
    );
  let sent = 0;
  for (const { tip, payHash, address } of candidates) {
    if (!payHash) continue;
    const [queued] = await db
      .select({ args: chainEvents.args })
      .from(chainEvents)
      .where(and(eq(chainEvents.txHash, payHash), eq(chainEvents.name, "OutflowQueued"), isNull(chainEvents.oldChain)))
      .limit(1);
    const outflow = queued ? (JSON.parse(queued.args) as { id: string }).id : undefined;
    if (!outflow || !cancelled.some((c) => String(c.chainTipId) === tip.chainTipId && (JSON.parse(c.args) as { id: string }).id === outflow)) continue;
    try {
      const { tx } = await ctx.outbox.submitOnce({
        userId: null,
        idempotencyKey: `tip-pay:${tip.id}:dropped:${outflow}`,
        request: { tipId: tip.id, chainTipId: tip.chainTipId, dropped: outflow },
        kind: "pay_tip",
        intent: { tipId: tip.id, chainTipId: tip.chainTipId, currency: tip.currency, to: address, toLogin: tip.toLogin, amount: (tip.amount - tip.fee).toString(), droppedOutflow: outflow },
        signer: { kind: "operator" },
        to: ctx.chain.config.contracts.rewards,
        data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payTip", args: [BigInt(tip.chainTipId!), address as Address] }),
      });
      await db.update(tips).set({ payTxId: tx.id, sentAt: new Date() }).where(eq(tips.id, tip.id));
      ctx.log.info("tip paid again after the guardian dropped its queued payout", { tipId: tip.id, outflow });
      ctx.changes.publish([`tips:${tip.toGithubId}`]);
      sent++;
    } catch (err) {
      ctx.log.warn("dropped tip not paid again yet; retried on the next pass", { tipId: tip.id, err: (err as Error).message });
    }
  }
  return sent;
}
