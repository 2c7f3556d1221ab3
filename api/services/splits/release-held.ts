/**
 * Split shares that waited for their person (no wallet when the split was released): paid once they register,
 * from the platform's hold or the contract's escrow, and shares whose payout was dropped, paid again under the same key.
 */
/**
 * The release of splits whose window is over (open.ts has the whole story).
 * Crash-safe and exactly once:
 *   1. the split is claimed with one conditional write (window -> releasing),
 *      so a pool manager's late change and the release cannot both win;
 *   2. the shares' amounts are computed from the bounty's amount on-chain
 *      then (boosts may have added to it; shares.ts: they sum to it, the
 *      remainder to the author) and written with the payout's outbox row;
 *   3. the payout is ONE contract call (`payBountySplit`, contract v3: it
 *      pays the whole bounty at once) under the key
 *      `split-payout:<repo>:<issue>` and the kind `pay_bounty`, so the
 *      outbox's one-live-payout-per-issue index holds for splits too: a
 *      rerun after a crash finds the row instead of sending again (a new
 *      attempt only after the last one failed or reverted, which moved
 *      nothing), and the contract refuses to pay a bounty twice;
 *   4. a person without a wallet does not hold up the others: the payout is
 *      `payBountySplitHeld`, which pays the people with a wallet and puts
 *      each other share in the contract's escrow for its GitHub user id
 *      (a held tip; share status `escrowed`). When they register, the
 *      operator's `payTip` (outbox key `split-share:<repo>:<issue>:<user>`,
 *      payEscrowedShares) sends it to their wallet, once: the key finds the
 *      row after a crash and the contract refuses to pay a tip twice.
 *      Unclaimed for TIP_REFUND_DELAY (30 days), the pool manager may return
 *      it to the repository's pool (never to anyone else). Only when nobody
 *      with a share has a wallet does the whole split wait (`held`, nothing
 *      sent) until the first registers; the pool manager may still change
 *      the shares of such a split (set-shares.ts).
 * The pass is leased, so one process at a time runs it; within a pass, the
 * splits of different bounties are released side by side (each split is one
 * bounty: its claim and its lock are its own).
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { parseEventLogs, type Address, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import type { AppContext } from "../../context.ts";
import { chainEvents, chainTransactions, payoutSplits, payoutSplitShares, users, wallets, type PayoutSplitShare } from "../../../db/schema/index.ts";
import { heldSharePayData } from "./chain.ts";
import { heldShareEvent } from "./held-share-return-time.ts";
import { type Deps, releaseSplit, sharesWhere } from "./release.ts";

/**
 * Pays what waited for a registration (only `githubUserId`'s when given): the escrowed shares of people who now
 * have a wallet (payEscrowedShares), and the splits held whole because nobody with a share had one. Run on
 * registration and each webhook pass.
 */
export async function releaseHeldShares(deps: Deps, only?: { githubUserId: number }): Promise<number> {
  return (await payEscrowedShares(deps, only)) + (await repayDroppedShares(deps, only)) + (await releaseHeldSplits(deps, only));
}

/**
 * A held share's payTip that the contract queued (over the repository's cap, or its money younger than the payout
 * delay, or a first payment to a new address above the threshold: usual for a wallet just registered) and the guardian
 * dropped (cancelOutflow: the share is held in the escrow again, its recipient cleared) is paid again to the person's
 * registered wallet, as a dropped tip is (tips.ts): under `split-share:<repo>:<issue>:<user>:dropped:<outflow id>`, so
 * once per drop whatever is retried, and only for a drop of the share's current payTip. Found from the indexed
 * OutflowCancelled events of escrow outflows (repository 0, the escrow id as the issue number: few rows).
 */
async function repayDroppedShares(deps: Deps, only?: { githubUserId: number }): Promise<number> {
  const db = deps.database.db;
  const cancelled = await db
    .select({ args: chainEvents.args, chainTipId: chainEvents.issueNumber })
    .from(chainEvents)
    .where(and(eq(chainEvents.repoId, 0), eq(chainEvents.name, "OutflowCancelled"), isNull(chainEvents.oldChain)));
  if (!cancelled.length) return 0;
  const drops = new Set(cancelled.map((c) => `${c.chainTipId}:${(JSON.parse(c.args) as { id: string }).id}`));
  const candidates = await db
    .select({ share: payoutSplitShares, pay: chainTransactions, address: wallets.address })
    .from(payoutSplitShares)
    .innerJoin(chainTransactions, eq(chainTransactions.id, payoutSplitShares.txId))
    .innerJoin(users, eq(users.githubId, payoutSplitShares.githubUserId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(
      and(
        eq(payoutSplitShares.status, "paying"),
        eq(chainTransactions.kind, "pay_tip"),
        eq(chainTransactions.status, "confirmed"),
        inArray(sql`json_extract(${chainTransactions.intent}, '$.chainTipId')`, [...new Set(cancelled.map((c) => String(c.chainTipId)))]),
        only ? eq(payoutSplitShares.githubUserId, only.githubUserId) : undefined,
      ),
    );
  let sent = 0;
  for (const { share, pay, address } of candidates) {
    if (!pay.txHash || share.amount === null) continue;
    const intent = JSON.parse(pay.intent) as { chainTipId: string };
    const [queued] = await db
      .select({ args: chainEvents.args })
      .from(chainEvents)
      .where(and(eq(chainEvents.txHash, pay.txHash), eq(chainEvents.name, "OutflowQueued"), isNull(chainEvents.oldChain)))
      .limit(1);
    const outflow = queued ? (JSON.parse(queued.args) as { id: string }).id : undefined;
    if (!outflow || !drops.has(`${intent.chainTipId}:${outflow}`)) continue;
    try {
      const key = `${heldSharePayKey(share.githubRepoId, share.issueNumber, share.githubUserId)}:dropped:${outflow}`;
      const { tx } = await deps.outbox.submitOnce({
        userId: null,
        idempotencyKey: key,
        request: { repoId: share.githubRepoId, issueNumber: share.issueNumber, githubUserId: share.githubUserId, chainTipId: intent.chainTipId, dropped: outflow },
        kind: "pay_tip",
        intent: {
          repoId: share.githubRepoId,
          issueNumber: share.issueNumber,
          chainTipId: intent.chainTipId,
          share: true,
          to: address,
          toLogin: share.githubLogin,
          amount: share.amount.toString(),
          reason: "held share of a split payout, paid again after the guardian dropped its queued payment",
          droppedOutflow: outflow,
        },
        signer: { kind: "operator" },
        to: deps.chain.config.contracts.rewards,
        data: heldSharePayData(BigInt(intent.chainTipId), address as Address),
      });
      await db
        .update(payoutSplitShares)
        .set({ txId: tx.id })
        .where(and(sharesWhere(share), eq(payoutSplitShares.githubUserId, share.githubUserId), eq(payoutSplitShares.txId, pay.id)));
      deps.log.info("held split share paid again after the guardian dropped its queued payment", { repoId: share.githubRepoId, issue: share.issueNumber, login: share.githubLogin, outflow });
      deps.changes.publish([`repo:${share.githubRepoId}`, `bounty:${share.githubRepoId}:${share.issueNumber}`]);
      sent++;
    } catch (err) {
      deps.log.warn("dropped held split share not paid again yet; retried on the next pass", { repoId: share.githubRepoId, issue: share.issueNumber, login: share.githubLogin, err: (err as Error).message });
    }
  }
  return sent;
}

async function releaseHeldSplits(deps: Deps, only?: { githubUserId: number }): Promise<number> {
  const held = await deps.database.db
    .selectDistinct({ split: payoutSplits })
    .from(payoutSplitShares)
    .innerJoin(payoutSplits, and(eq(payoutSplits.githubRepoId, payoutSplitShares.githubRepoId), eq(payoutSplits.issueNumber, payoutSplitShares.issueNumber)))
    .innerJoin(users, eq(users.githubId, payoutSplitShares.githubUserId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(and(eq(payoutSplitShares.status, "held"), inArray(payoutSplits.status, ["releasing"]), only ? eq(payoutSplitShares.githubUserId, only.githubUserId) : undefined));
  let worked = 0;
  for (const { split } of held) {
    try {
      if (await releaseSplit(deps, split, Date.now())) worked++;
    } catch (err) {
      deps.log.warn("held split not paid yet; retried on the next pass", { repoId: split.githubRepoId, issue: split.issueNumber, err: (err as Error).message });
    }
  }
  return worked;
}

/** The contract's TipStatus.Refunded: for a held share, returned to its repository's pool. */
const TIP_REFUNDED = 4;

export const heldSharePayKey = (repoId: number, issueNumber: number, githubUserId: number) => `split-share:${repoId}:${issueNumber}:${githubUserId}`;

/**
 * The operator pays each escrowed share whose person now has a wallet to that wallet (`payTip`), once: one outbox
 * row per share under its key (a rerun after a crash finds it; a new attempt only after one failed or reverted,
 * which moved nothing), and the contract pays a held tip only once. A share whose payout is not confirmed yet, or
 * was queued by the contract and has not run (no BountyShareHeld yet), waits for the next pass.
 */
export async function payEscrowedShares(deps: Deps, only?: { githubUserId: number }): Promise<number> {
  const db = deps.database.db;
  const due = await db
    .select({ share: payoutSplitShares, address: wallets.address })
    .from(payoutSplitShares)
    .innerJoin(payoutSplits, and(eq(payoutSplits.githubRepoId, payoutSplitShares.githubRepoId), eq(payoutSplits.issueNumber, payoutSplitShares.issueNumber)))
    .innerJoin(users, eq(users.githubId, payoutSplitShares.githubUserId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(and(eq(payoutSplitShares.status, "escrowed"), eq(payoutSplits.status, "released"), only ? eq(payoutSplitShares.githubUserId, only.githubUserId) : undefined))
    .limit(100);
  let paid = 0;
  for (const { share, address } of due) {
    try {
      if (!share.txId || share.amount === null) continue;
      const payout = await deps.outbox.get(share.txId);
      if (payout.status !== "confirmed" || !payout.txHash || payout.blockNumber === null) continue;
      const tipId = await heldShareTipId(deps, share, payout.txHash as Hex, payout.blockNumber);
      if (tipId === undefined) continue;
      if (!(await deps.outbox.findByKey(null, heldSharePayKey(share.githubRepoId, share.issueNumber, share.githubUserId)))) {
        // Nothing sent for it yet: unclaimed past the contract's refund delay, the pool manager may have returned it to
        // the pool (HeldShareReturned). Then there is nothing to pay, and no payTip is tried (it would only revert).
        const tip = await deps.chain.client.readContract({ address: deps.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getTip", args: [tipId] });
        if (tip.status === TIP_REFUNDED) {
          await db
            .update(payoutSplitShares)
            .set({ status: "returned" })
            .where(and(sharesWhere(share), eq(payoutSplitShares.githubUserId, share.githubUserId), eq(payoutSplitShares.status, "escrowed")));
          deps.log.info("held split share was returned to the repository's pool before its person registered", { repoId: share.githubRepoId, issue: share.issueNumber, login: share.githubLogin });
          deps.changes.publish([`repo:${share.githubRepoId}`, `bounty:${share.githubRepoId}:${share.issueNumber}`]);
          continue;
        }
      }
      const { tx } = await deps.outbox.submitOnce({
        userId: null,
        idempotencyKey: heldSharePayKey(share.githubRepoId, share.issueNumber, share.githubUserId),
        request: { repoId: share.githubRepoId, issueNumber: share.issueNumber, githubUserId: share.githubUserId, chainTipId: tipId.toString() },
        kind: "pay_tip",
        intent: {
          repoId: share.githubRepoId,
          issueNumber: share.issueNumber,
          chainTipId: tipId.toString(),
          share: true,
          to: address,
          toLogin: share.githubLogin,
          amount: share.amount.toString(),
          reason: "held share of a split payout, paid on registration",
        },
        signer: { kind: "operator" },
        to: deps.chain.config.contracts.rewards,
        data: heldSharePayData(tipId, address as Address),
      });
      await db
        .update(payoutSplitShares)
        .set({ status: "paying", txId: tx.id })
        .where(and(sharesWhere(share), eq(payoutSplitShares.githubUserId, share.githubUserId), eq(payoutSplitShares.status, "escrowed")));
      deps.log.info("held split share paid to its registered wallet", { repoId: share.githubRepoId, issue: share.issueNumber, login: share.githubLogin, tx: tx.txHash });
      deps.changes.publish(["repositories", `repo:${share.githubRepoId}`, `bounty:${share.githubRepoId}:${share.issueNumber}`]);
      paid++;
    } catch (err) {
      deps.log.warn("held split share not paid yet; retried on the next pass", { repoId: share.githubRepoId, issue: share.issueNumber, login: share.githubLogin, err: (err as Error).message });
    }
  }
  return paid;
}

/**
 * The escrow's tip id of a held share: the BountyShareHeld for its person in the payout's own receipt, or, when
 * the contract queued the payout, in the transaction that ran it (the indexer's events, from the payout's block on).
 */
export async function heldShareTipId(deps: Pick<AppContext, "database" | "chain">, share: PayoutSplitShare, payoutHash: Hex, payoutBlock: number): Promise<bigint | undefined> {
  const receipt = await deps.chain.client.getTransactionReceipt({ hash: payoutHash });
  const mine = (args: { repoId: bigint; issueNumber: bigint; githubUserId: bigint }) =>
    args.repoId === BigInt(share.githubRepoId) && args.issueNumber === BigInt(share.issueNumber) && args.githubUserId === BigInt(share.githubUserId);
  const own = parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs, eventName: "BountyShareHeld" }).find((e) => mine(e.args));
  if (own) return own.args.tipId;
  const later = await heldShareEvent(deps, share, payoutBlock);
  return later ? BigInt((JSON.parse(later.args) as { tipId: string }).tipId) : undefined;
}
