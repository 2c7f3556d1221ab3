import { and, eq, inArray, isNull, lt } from "drizzle-orm";
import { erc20Abi, parseEventLogs, type Address, type Hex } from "viem";
import type { AppContext } from "../../context.ts";
import { cashouts, users, type CashoutStatus } from "../../../db/schema/index.ts";
import { parseAddress } from "../../chain/address.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { hashToken } from "../../crypto/tokens.ts";
import { forgetBalances } from "../money/balances.ts";
import { cashoutEndedMail } from "../../mail/cashout-templates.ts";
import { SELL_STATUS, SellOrder, sellOrderStatus, SellApiUnavailable } from "../onramp/sell-api.ts";
import { advanceCashout, orderProblem } from "./orders.ts";
import { parseWebhookBody, processOnrampDelivery } from "../onramp/deliveries.ts";

/**
 * A cash-out after its order (issue 40): the provider's word, by signed webhook or by the status poll, moves it
 * one way only:
 *
 *   initiated -> crypto_received -> fiat_sent -> completed
 *        \              \               \-> failed -> refunded      (the crypto back, checked on the chain)
 *         \-> cancelled (nothing left the wallet)
 *
 * never back, never out of completed, refunded or cancelled; a late or repeated report changes nothing (the
 * update is a compare-and-set on the status read). A refund counts only once its transaction is on the chain,
 * successful, and moves exactly the cash-out's amount back to the wallet. Webhook deliveries are logged in
 * webhook_deliveries (source `onramp`, `sell:{orderId}:{status}:{hash of the body}`) before they are applied, so
 * a replay is a duplicate.
 */
type Deps = Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "appSecret" | "mailer">;
type Row = typeof cashouts.$inferSelect;

const RANK: Record<CashoutStatus, number> = { initiated: 0, crypto_received: 1, fiat_sent: 2, failed: 3, completed: 4, refunded: 4, cancelled: 4 };
const FINAL: CashoutStatus[] = ["completed", "refunded", "cancelled"];
export const OPEN_STATUSES: CashoutStatus[] = ["initiated", "crypto_received", "fiat_sent", "failed"];

export type Outcome = "processed" | "duplicate" | "unmatched" | "ignored";

/** The status a provider code stands for, given what our transfer did; undefined for "nothing new". */
function statusOf(code: number, sendLeft: boolean): CashoutStatus | undefined {
  switch (code) {
    case SELL_STATUS.awaitingDeposit:
      return undefined;
    case SELL_STATUS.cryptoReceived:
      return "crypto_received";
    case SELL_STATUS.fiatSent:
      return "fiat_sent";
    case SELL_STATUS.completed:
      return "completed";
    case SELL_STATUS.payoutFailed:
      return "failed";
    case SELL_STATUS.refunded:
      return "refunded";
    case SELL_STATUS.expired:
      // Expired before the deposit arrived: if ours went out, the provider owes it back; if not, nothing moved.
      return sendLeft ? "failed" : "cancelled";
    default:
      return undefined;
  }
}

/** Whether our transfer may have left (an outbox row that is not failed). */
async function sendMayHaveLeft(ctx: Pick<AppContext, "outbox">, row: Row): Promise<boolean> {
  const tx = await ctx.outbox.findByKey(null, `cashout:${row.id}`);
  return Boolean(tx && tx.status !== "failed" && tx.status !== "reverted");
}

/**
 * Checks on the chain that the refund moved exactly this cash-out's amount back to its wallet. Not mined yet:
 * throws (asked again later); mined but not a refund of this: a reason.
 */
async function refundProblem(ctx: Pick<AppContext, "chain">, row: Row, hash: Hex): Promise<string | undefined> {
  const receipt = await ctx.chain.client.getTransactionReceipt({ hash }).catch(() => undefined);
  if (!receipt) throw new Error(`the refund ${hash} is not on the chain yet`);
  if (receipt.status !== "success") return "the refund transaction reverted";
  const wallet = row.walletAddress.toLowerCase();
  if (row.currency === "XDC") {
    const tx = await ctx.chain.client.getTransaction({ hash });
    if (tx.to?.toLowerCase() !== wallet || tx.value !== row.amount) return "the refund does not return this amount to the wallet";
    return undefined;
  }
  const token = ctx.chain.config.contracts.usdc.toLowerCase();
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).filter(
    (log) => log.address.toLowerCase() === token && log.args.to.toLowerCase() === wallet && log.args.value === row.amount,
  );
  return transfers.length ? undefined : "the refund does not return this amount to the wallet";
}

/** Applies the provider's report of an order to its cash-out. */
export async function applySellOrder(ctx: Deps, order: SellOrder): Promise<{ outcome: Exclude<Outcome, "duplicate">; note?: string }> {
  const db = ctx.database.db;
  let [row] = await db.select().from(cashouts).where(eq(cashouts.merchantReference, order.merchantRecognitionId));
  if (!row) return { outcome: "unmatched", note: "unknown merchant reference" };
  const problem = orderProblem(row, order);
  if (problem) return { outcome: "ignored", note: problem };
  // The order's answer was lost (a crash, a timeout) and its first webhook tells us: record it, then send.
  if (!row.providerOrderId && row.status === "initiated") {
    await db
      .update(cashouts)
      .set({ providerOrderId: order.orderId, depositAddress: parseAddress(order.depositAddress)!, updatedAt: new Date() })
      .where(and(eq(cashouts.id, row.id), isNull(cashouts.providerOrderId)));
    row = await advanceCashout(ctx, row.id);
  }
  const next = statusOf(order.status, await sendMayHaveLeft(ctx, row));
  if (!next || next === row.status) return { outcome: "processed" };
  if (FINAL.includes(row.status)) return { outcome: "ignored", note: `the cash-out is already ${row.status}` };
  if (RANK[next] <= RANK[row.status]) return { outcome: "ignored", note: `stale: ${next} after ${row.status}` };
  if (next === "refunded" && row.status !== "failed" && row.status !== "fiat_sent" && row.status !== "crypto_received") {
    return { outcome: "ignored", note: `a refund of a cash-out that is ${row.status}` };
  }
  if (next === "cancelled" && (await sendMayHaveLeft(ctx, row))) return { outcome: "ignored", note: "our transfer may have left: not cancelled" };

  const change: Partial<Row> = { status: next, providerStatus: order.status, lastEventAt: new Date(), updatedAt: new Date() };
  if (order.payoutReference) change.payoutReference = order.payoutReference;
  if (next === "failed" || next === "cancelled") change.failureReason = order.reason ?? (next === "failed" ? "the INR payout failed" : "the order expired");
  if (next === "refunded") {
    if (!order.refundTransactionHash) return { outcome: "ignored", note: "a refund without its transaction" };
    const why = await refundProblem(ctx, row, order.refundTransactionHash as Hex);
    if (why) return { outcome: "ignored", note: why };
    change.refundTxHash = order.refundTransactionHash;
    // A refund reported without the failure before it keeps the provider's reason.
    change.failureReason = row.failureReason ?? order.reason ?? "the INR payout failed";
  }
  const [updated] = await db
    .update(cashouts)
    .set(change)
    .where(and(eq(cashouts.id, row.id), eq(cashouts.status, row.status)))
    .returning();
  // Another report moved it meanwhile: this one is applied again on the retry or the next poll.
  if (!updated) throw new Error(`cash-out ${row.id} changed while a report was applied`);
  ctx.log.info("cash-out moved on", { cashoutId: row.id, from: row.status, to: next });
  if (next === "refunded") forgetBalances(ctx.chain, row.walletAddress as Address);
  if (next === "completed" || next === "refunded" || next === "cancelled") await mailEnding(ctx, updated);
  return { outcome: "processed" };
}

async function mailEnding(ctx: Pick<AppContext, "database" | "log" | "mailer" | "env">, row: Row): Promise<void> {
  const [user] = await ctx.database.db.select({ email: users.email }).from(users).where(eq(users.id, row.userId));
  if (!user?.email) return;
  try {
    await ctx.mailer.send(
      cashoutEndedMail({
        to: user.email,
        outcome: row.status as "completed" | "refunded" | "cancelled",
        amount: toDecimalString(row.amount, DECIMALS[row.currency]),
        currency: row.currency,
        fiat: row.fiatAmount,
        upiId: row.upiId,
        reason: row.failureReason,
        walletUrl: `${ctx.env.PUBLIC_URL}/wallet`,
      }),
    );
  } catch (err) {
    ctx.log.warn("cash-out mail not sent", { cashoutId: row.id, err: (err as Error).message });
  }
}

/**
 * A signed webhook of the sell side (the route has checked its HMAC while it streamed in, and dispatched it here
 * by its event type). Logged before it is applied; a replay finds its row and changes nothing.
 */
export async function receiveSellWebhook(ctx: Deps, input: { rawBody: string; now?: number }): Promise<{ outcome: Outcome; deliveryId: string }> {
  const order = parseWebhookBody(input.rawBody, SellOrder);
  const deliveryId = `sell:${order.orderId}:${order.status}:${hashToken(input.rawBody).slice(0, 32)}`;
  const now = input.now ?? Date.now();
  return processOnrampDelivery(ctx, { deliveryId, event: "offramp_payout", action: String(order.status), rawBody: input.rawBody, now, label: "sell webhook" }, () =>
    applySellOrder(ctx, order),
  );
}

export async function hasOpenCashouts(ctx: Pick<AppContext, "database">): Promise<boolean> {
  return (await ctx.database.db.select({ id: cashouts.id }).from(cashouts).where(inArray(cashouts.status, OPEN_STATUSES)).limit(1)).length > 0;
}

/**
 * One pass over the open cash-outs (the poll, schedule.ts): each `initiated` one not touched for `minAgeMs` is
 * advanced from where its records stand (a crash left it there), and each with an order is asked about at the
 * provider, its answer applied like a webhook. A transfer that failed before it left cancels its cash-out.
 */
export async function pollOpenCashouts(ctx: Deps, options: { minAgeMs: number; now?: number; limit?: number }): Promise<number> {
  const db = ctx.database.db;
  const now = options.now ?? Date.now();
  const open = await db
    .select()
    .from(cashouts)
    .where(and(inArray(cashouts.status, OPEN_STATUSES), lt(cashouts.updatedAt, new Date(now - options.minAgeMs))))
    .limit(options.limit ?? 100);
  let moved = 0;
  for (const stale of open) {
    try {
      let row = stale;
      if (row.status === "initiated") row = await advanceCashout(ctx, row.id);
      if (row.status === "initiated" && row.sendTransactionId) {
        const tx = await ctx.outbox.get(row.sendTransactionId);
        if (tx.status === "failed" || tx.status === "reverted") {
          // Never signed or refused by the node: nothing left the wallet (a reverted transfer moved no value either).
          await db
            .update(cashouts)
            .set({ status: "cancelled", failureReason: `our transfer to the provider failed: ${tx.error ?? "not sent"}`, updatedAt: new Date() })
            .where(and(eq(cashouts.id, row.id), eq(cashouts.status, "initiated")));
          moved++;
          continue;
        }
      }
      if (!row.providerOrderId || FINAL.includes(row.status)) continue;
      const order = await sellOrderStatus(ctx.env, row.merchantReference);
      if (!order) continue;
      const before = row.status;
      await applySellOrder(ctx, order);
      const [after] = await db.select({ status: cashouts.status }).from(cashouts).where(eq(cashouts.id, row.id));
      if (after?.status !== before) moved++;
    } catch (err) {
      if (!(err instanceof SellApiUnavailable)) ctx.log.warn("cash-out poll: one cash-out could not be brought up to date", { cashoutId: stale.id, err: (err as Error).message });
    }
  }
  return moved;
}

