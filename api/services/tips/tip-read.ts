/**
 * Tips as people see them: a tip's view and status (given or received), its delivery as the chain tells it (paid,
 * held in escrow, returned), the user's own tips, and the tips received for the wallet history.
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
import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { parseEventLogs, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { chainEvents, chainTransactions, tips, users, type ChainTransaction, type Currency, type Tip, type User } from "../../../db/schema/index.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { formatExact, formatFull } from "../../../lib/money-format.ts";

export interface TipView {
  id: number;
  from: string;
  to: string;
  currency: Currency;
  amount: string;
  /** The contract's fee (0.5 %), taken from the amount. */
  fee: string;
  /**
   * held (until the recipient registers), pending (on its way), queued (the contract queued its payout as an
   * outflow: over a cap, too young, or a new address above the threshold; it reaches them when the queue runs),
   * confirmed, failed.
   */
  status: "held" | "pending" | "queued" | "confirmed" | "failed";
  transactionHash: string | null;
  explorerUrl: string | null;
  createdAt: string;
  message: string;
}

/**
 * Where a confirmed payTip left an escrowed tip: paid (TipPaid: in the payTip itself, or later when the queue ran,
 * whose transaction then is the one that reached the recipient) or queued as an outflow (OutflowQueued in the
 * payTip; contract v3 queues a tip payout over a cap, younger than the payout delay or to a new address above the
 * threshold, and only executeOutflow pays it). Read from the indexed events; a payTip the indexer has not read yet
 * is judged from its receipt when a chain client is at hand, else taken as paid.
 */
export interface TipDelivery {
  /** dropped: the guardian cancelled the queued outflow (cancelOutflow): the tip is held in the escrow again. */
  state: "paid" | "queued" | "dropped";
  /** The transaction that paid the recipient (undefined while queued, or when only the payTip is known). */
  paidTxHash?: string;
  /** When the queued outflow may run (seconds since the epoch, the contract's clock). */
  readyAt?: bigint;
}

export async function tipDelivery(
  deps: { database: { db: Database }; chain?: Pick<AppContext["chain"], "client"> },
  tip: Pick<Tip, "chainTipId">,
  payTxHash: string,
): Promise<TipDelivery> {
  const events = await tipDeliveryEvents(deps.database.db, tip, payTxHash);

  const paid = events.find((e) => e.name === "TipPaid");
  if (paid) return { state: "paid", paidTxHash: paid.txHash };
  const queued = events.find((e) => e.name === "OutflowQueued" && e.txHash.toLowerCase() === payTxHash.toLowerCase());
  if (queued) {
    const outflow = (JSON.parse(queued.args) as { id: string }).id;
    // Tips' outflows carry repository 0 and the tip's id as the issue number.
    if (events.some((e) => e.name === "OutflowCancelled" && (JSON.parse(e.args) as { id: string }).id === outflow)) return { state: "dropped" };
    return { state: "queued", readyAt: BigInt((JSON.parse(queued.args) as { readyAt: string }).readyAt) };
  }
  if (events.length > 0 || !deps.chain) return { state: "paid", paidTxHash: payTxHash };
  // Not indexed yet: the payTip's own receipt says which.
  const receipt = await deps.chain.client.getTransactionReceipt({ hash: payTxHash as Hex }).catch(() => undefined);
  const logs = receipt ? parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs }) : [];
  const outflow = logs.find((l) => l.eventName === "OutflowQueued");
  if (outflow && !logs.some((l) => l.eventName === "TipPaid")) return { state: "queued", readyAt: (outflow.args as { readyAt: bigint }).readyAt };
  return { state: "paid", paidTxHash: payTxHash };
}

/**
 * The events that say where an escrowed tip's payTip left it: its TipPaid, the payTip's own events, and the
 * guardian's OutflowCancelled of a tip's outflow (repository 0, the tip's escrow id as the issue number). Each term
 * is read by an index (0019_tip_delivery_indexes: chain_events_tip_paid_idx, chain_events_tx_lower_idx,
 * chain_events_repo_idx), so a wallet history with many escrowed tips costs an index probe per tip, not a scan of
 * chain_events each (tips-queued.test.ts checks the plan).
 */
export function tipDeliveryEvents(db: Database, tip: Pick<Tip, "chainTipId">, payTxHash: string) {
  return db
    .select({ name: chainEvents.name, txHash: chainEvents.txHash, args: chainEvents.args })
    .from(chainEvents)
    .where(
      and(
        isNull(chainEvents.oldChain),
        sql`((${chainEvents.name} = 'TipPaid' and (${chainEvents.args} ->> '$.tipId') = ${tip.chainTipId ?? "-1"})
          or lower(${chainEvents.txHash}) = ${payTxHash.toLowerCase()}
          or (${chainEvents.repoId} = 0 and ${chainEvents.issueNumber} = ${Number(tip.chainTipId ?? -1)} and ${chainEvents.name} = 'OutflowCancelled'))`,
      ),
    );
}

/** The tipper's transaction failed (nothing moved), the tip is held in escrow, or its delivering transaction's state. */
const statusOf = (tip: Tip, tx: Pick<ChainTransaction, "status"> | null, delivered: Pick<ChainTransaction, "status"> | null, delivery: TipDelivery | undefined): TipView["status"] => {
  if (tip.status === "failed" || tx?.status === "failed" || tx?.status === "reverted") return "failed";
  if (tip.status === "held" || (tip.escrowed && !delivered)) return "held";
  const last = tip.escrowed ? delivered : tx;
  // A payTip that failed is tried again (submitOnce): still on its way.
  if (last?.status !== "confirmed") return "pending";
  // Dropped by the guardian: back in the escrow until the platform's next payTip (releaseHeldTips) is on its way.
  if (delivery?.state === "dropped") return "held";
  return delivery?.state === "queued" ? "queued" : "confirmed";
};

/**
 * A tip as its tipper, or (`received`) its recipient reads it (issue 38: the recipient's own history read "Tip …
 * sent to @bob"): the recipient is told who it came from and what reached their wallet.
 */
export async function tipView(ctx: Pick<AppContext, "database" | "chain">, tip: Tip, known?: { fromLogin?: string; received?: boolean }): Promise<TipView> {
  const db = ctx.database.db;
  const txOf = async (id: string | null) => (id ? ((await db.select().from(chainTransactions).where(eq(chainTransactions.id, id)).limit(1))[0] ?? null) : null);
  const [tx, delivered] = await Promise.all([txOf(tip.txId), txOf(tip.payTxId)]);
  const fromLogin = known?.fromLogin ?? (await db.select({ username: users.username }).from(users).where(eq(users.id, tip.fromUserId)).limit(1))[0]?.username ?? "";
  const delivery = tip.escrowed && delivered?.status === "confirmed" && delivered.txHash ? await tipDelivery(ctx, tip, delivered.txHash) : undefined;
  const status = statusOf(tip, tx, delivered, delivery);
  const amount = `${formatExact(tip.amount, tip.currency)} ${tip.currency}`;
  const paidBy = delivery?.paidTxHash ? { txHash: delivery.paidTxHash } : undefined;
  const last = tip.escrowed ? (paidBy ?? delivered ?? tx) : tx;
  const feeText = tip.fee > 0n ? ` (fee ${formatExact(tip.fee, tip.currency)} ${tip.currency})` : "";
  return {
    id: tip.id,
    from: fromLogin,
    to: tip.toLogin,
    currency: tip.currency,
    amount: toDecimalString(tip.amount, DECIMALS[tip.currency]),
    fee: toDecimalString(tip.fee, DECIMALS[tip.currency]),
    status,
    transactionHash: last?.txHash ?? null,
    explorerUrl: last?.txHash ? explorerTxUrl(ctx.chain.config.network, last.txHash) : null,
    createdAt: tip.createdAt.toISOString(),
    message: known?.received
      ? receivedMessage(tip, fromLogin, status, delivery)
      : delivery?.state === "dropped"
        ? `Tip of ${amount}${feeText} to @${tip.toLogin} held in the escrow again: the contract's guardian stopped its queued payout. Issuepool sends it to their wallet again.`
        : status === "held"
        ? `Tip of ${amount}${feeText} held for @${tip.toLogin} in the escrow: sent to their Issuepool wallet as soon as they sign in and register.`
        : status === "queued"
          ? `Tip of ${amount}${feeText} to @${tip.toLogin} queued by the contract's outflow limits: it reaches their wallet when the queue runs${delivery?.readyAt ? ` (from ${new Date(Number(delivery.readyAt) * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC)` : ""}.`
        : status === "failed"
          ? `Tip of ${amount} to @${tip.toLogin} failed: nothing was sent.`
          : `Tip of ${amount}${feeText} sent to @${tip.toLogin}.`,
  };
}

function receivedMessage(tip: Tip, from: string, status: TipView["status"], delivery: TipDelivery | undefined): string {
  const amount = `${formatFull(tip.amount, tip.currency)} ${tip.currency}`;
  const net = `${formatFull(tip.amount - tip.fee, tip.currency)} ${tip.currency}`;
  const fee = tip.fee > 0n ? ` (${amount} less the ${formatFull(tip.fee, tip.currency)} ${tip.currency} fee)` : "";
  if (delivery?.state === "dropped") return `Tip from @${from} held in the escrow again: the contract's guardian stopped its queued payout. Issuepool sends ${net} to your wallet again.`;
  if (status === "held") return `Tip from @${from} held for you in the escrow: ${net}${fee} reaches your Issuepool wallet once you sign in and register.`;
  if (status === "queued") return `Tip from @${from} queued by the contract's outflow limits: ${net}${fee} reaches your wallet when the queue runs.`;
  if (status === "failed") return `Tip from @${from} failed: nothing was sent.`;
  if (status === "pending") return `Tip from @${from} on its way: ${net}${fee} to your wallet.`;
  return `Tip from @${from}: ${net}${fee} reached your wallet.`;
}

/** GET /api/tips: the signed-in user's tips, given and received, newest first. */
export async function myTips(ctx: Pick<AppContext, "database" | "chain">, user: Pick<User, "id" | "githubId" | "username">, limit = 50): Promise<{ given: TipView[]; received: TipView[] }> {
  const db = ctx.database.db;
  const rows = (where: ReturnType<typeof eq>) =>
    db.select({ tip: tips, from: users.username }).from(tips).innerJoin(users, eq(users.id, tips.fromUserId)).where(where).orderBy(desc(tips.createdAt), desc(tips.id)).limit(limit);
  const [given, received] = await Promise.all([rows(eq(tips.fromUserId, user.id)), rows(eq(tips.toGithubId, user.githubId))]);
  const view = (received: boolean) => (r: { tip: Tip; from: string }) => tipView(ctx, r.tip, { fromLogin: r.from, received });
  return { given: await Promise.all(given.map(view(false))), received: await Promise.all(received.map(view(true))) };
}

/** Tips a GitHub user received and were confirmed on-chain, for their wallet history (wallets/transactions.ts). */
export async function receivedTipTransfers(ctx: { database: { db: Database } }, githubId: number, limit: number) {
  return ctx.database.db
    .select({ tip: tips, tx: chainTransactions })
    .from(tips)
    // The transaction that reached the recipient: the tip itself, or the operator's payTip of an escrowed one.
    .innerJoin(chainTransactions, sql`${chainTransactions.id} = case when ${tips.escrowed} then ${tips.payTxId} else ${tips.txId} end`)
    .where(and(eq(tips.toGithubId, githubId), inArray(chainTransactions.status, ["sent", "confirmed"]), sql`${chainTransactions.txHash} is not null`))
    .orderBy(desc(tips.createdAt))
    .limit(limit);
}
