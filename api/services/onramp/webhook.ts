import { and, eq } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { onrampTransactions, type ChainTransaction } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { parseAddress } from "../../chain/address.ts";
import { parseAmount, toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { forgetBalances } from "../money/balances.ts";
import { GAS_RESERVE } from "../money/rules.ts";
import { hashToken } from "../../crypto/tokens.ts";
import { isUniqueViolation } from "../../../db/client.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { pendingXdcBalance, unbroadcastXdc } from "../wallets/spendable.ts";
import type { OnrampMetadata } from "./metadata.ts";
import { parseWebhookBody, processOnrampDelivery, type Applied, type WebhookOutcome } from "./deliveries.ts";
import { isTerminal, OnrampWebhookPayload, STATUS_RANK, statusOfCode, verifyWebhookSignature, type OnrampStatus } from "./provider.ts";

/**
 * POST /api/webhooks/onramp. In order:
 * 1. The signature (HMAC-SHA512 of the raw body, constant-time compare):
 *    anything unsigned or forged is refused before anything is stored.
 * 2. The delivery is stored in webhook_deliveries (source "onramp") under
 *    `${orderId}:${status code}:${hash of the body}`, before it is
 *    processed: the same event delivered twice, or replayed later, finds its
 *    row and changes nothing. (Not the order and status alone: a signed event
 *    that was ignored must not shadow a later, different one.)
 * 3. The order is found by our merchant reference. Unknown references are
 *    kept as "unmatched" for review and touch no one's money. An order only
 *    moves forward (initiated, pending, processing, then success or failed),
 *    never back and never out of a final state, so late or out-of-order
 *    events cannot undo anything.
 * 4. Buys: the provider delivers the XDC itself; we record status, amounts
 *    and its transaction hash and credit nothing.
 *    Sells: when the provider says it awaits the crypto (pending or
 *    processing, with a deposit address and an amount), the XDC goes from the
 *    user's wallet to that address through the outbox, keyed by the order:
 *    once per order whatever arrives later, only for an offramp order the
 *    user started here in the last 24 hours, and only within the balance
 *    (leaving the gas reserve).
 * A failure while processing leaves the delivery "failed" and answers 500,
 * so the provider's retry processes it again; every step is idempotent.
 */
export type { WebhookOutcome } from "./deliveries.ts";
/** A sale is only sent for an order started this recently. */
export const SALE_ORDER_MAX_AGE_MS = 24 * 3600 * 1000;

export const invalidSignature = () =>
  new DomainError({ code: ErrorCode.INVALID_SIGNATURE, error: "Invalid signature", message: "The webhook signature is not valid." });

export async function receiveOnrampWebhook(
  ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox">,
  input: { rawBody: string; signature: string | undefined; now?: number },
): Promise<{ outcome: WebhookOutcome; deliveryId: string }> {
  if (!(await verifyWebhookSignature(ctx.env.ONRAMP_APP_SECRET, input.rawBody, input.signature))) throw invalidSignature();
  const payload = parseWebhookBody(input.rawBody, OnrampWebhookPayload);
  const deliveryId = `${payload.orderId}:${payload.status}:${hashToken(input.rawBody).slice(0, 32)}`;
  const now = input.now ?? Date.now();
  return processOnrampDelivery(ctx, { deliveryId, event: payload.eventType, action: String(payload.status), rawBody: input.rawBody, now, label: "on-ramp webhook" }, () =>
    applyEvent(ctx, payload, now),
  );
}

const ignored = (note: string): Applied => ({ outcome: "ignored", note });

/** A decimal amount from the provider, normalised; undefined when absent or unreadable. */
function decimal(value: string | undefined, decimals: number): string | undefined {
  if (value === undefined) return undefined;
  const parsed = parseAmount(value, decimals);
  return parsed.ok ? toDecimalString(parsed.value, decimals) : undefined;
}

async function applyEvent(ctx: Pick<AppContext, "database" | "log" | "chain" | "outbox">, payload: OnrampWebhookPayload, now: number): Promise<Applied> {
  const db = ctx.database.db;
  const [order] = await db.select().from(onrampTransactions).where(eq(onrampTransactions.merchantReference, payload.merchantRecognitionId)).limit(1);
  if (!order) return { outcome: "unmatched", note: "unknown merchant reference" };
  if (order.type !== payload.eventType) return ignored(`an ${payload.eventType} event for an ${order.type} order`);
  if (order.orderId && order.orderId !== payload.orderId) return ignored("the order id does not match the one already recorded");
  if (parseAddress(payload.walletAddress) !== order.walletAddress) return ignored("the wallet address does not match the order's");
  const status = statusOfCode(payload.status);
  if (!status) return ignored(`unknown status code ${payload.status}`);
  const current = order.status as OnrampStatus;
  if (isTerminal(current) && status !== current) return ignored(`the order is already ${current}`);
  if (STATUS_RANK[status] < STATUS_RANK[current]) return ignored(`stale: ${status} after ${current}`);

  const meta = JSON.parse(order.metadata) as OnrampMetadata;
  const cryptoAmount = decimal(payload.actualCryptoAmount ?? payload.expectedCryptoAmount, DECIMALS.XDC);
  const fiatAmount = decimal(payload.fiatAmount, 8);
  let depositAddress: Address | undefined;
  if (order.type === "offramp" && payload.depositAddress !== undefined) {
    depositAddress = parseAddress(payload.depositAddress);
    if (!depositAddress) return ignored("the deposit address is not a valid address");
    // The first instruction stands: a provider that changes where or how much to send is not followed.
    if (meta.depositAddress && meta.depositAddress !== depositAddress) return ignored("the deposit address differs from the one already given");
    if (meta.depositAddress && order.cryptoAmount && cryptoAmount && order.cryptoAmount !== cryptoAmount) return ignored("the amount differs from the one already given");
  }

  const nextMeta: OnrampMetadata = {
    ...meta,
    provider: { statusCode: payload.status, lastEventAt: new Date(now).toISOString() },
    ...(depositAddress ? { depositAddress } : {}),
  };
  let updated;
  try {
    [updated] = await db
      .update(onrampTransactions)
      .set({
        orderId: payload.orderId,
        status,
        cryptoAmount: cryptoAmount ?? order.cryptoAmount,
        fiatAmount: fiatAmount ?? order.fiatAmount,
        // Buys: the provider's delivery. Sells: our own send, which the outbox row records.
        txHash: order.type === "onramp" ? (payload.transactionHash ?? order.txHash) : order.txHash,
        metadata: JSON.stringify(nextMeta),
        updatedAt: new Date(now),
      })
      // Compare-and-set: a concurrent event for the same order makes this one fail and be retried.
      .where(and(eq(onrampTransactions.id, order.id), eq(onrampTransactions.status, current), eq(onrampTransactions.updatedAt, order.updatedAt)))
      .returning();
  } catch (err) {
    if (isUniqueViolation(err)) return ignored("the order id belongs to another transaction");
    throw err;
  }
  if (!updated) throw new Error(`on-ramp order ${order.id} changed while this event was applied`);

  if (order.type === "onramp" && status === "success") forgetBalances(ctx.chain, order.walletAddress as Address);
  if (order.type === "offramp" && (status === "pending" || status === "processing") && nextMeta.depositAddress && updated.cryptoAmount) {
    return sendSale(ctx, updated.id, now);
  }
  return { outcome: "processed" };
}

/**
 * Sends the XDC of a sale to the provider's deposit address, at most once
 * per order (the outbox key is the order's). The balance is checked inside
 * the outbox's insert transaction, against what other unbroadcast rows of
 * the wallet already spend.
 */
async function sendSale(ctx: Pick<AppContext, "database" | "log" | "chain" | "outbox">, orderRowId: string, now: number): Promise<Applied> {
  const db = ctx.database.db;
  const [order] = await db.select().from(onrampTransactions).where(eq(onrampTransactions.id, orderRowId));
  if (!order) throw new Error(`on-ramp order ${orderRowId} vanished`);
  const meta = JSON.parse(order.metadata) as OnrampMetadata;
  const depositAddress = meta.depositAddress as Address;
  const parsed = parseAmount(order.cryptoAmount, DECIMALS.XDC);
  if (!parsed.ok || parsed.value === 0n) return failSale(ctx, order.id, "the provider asked for no valid amount");
  const amount = parsed.value;

  const key = `offramp:${order.id}`;
  const existing = await ctx.outbox.findByKey(null, key);
  if (!existing) {
    if (now - order.createdAt.getTime() > SALE_ORDER_MAX_AGE_MS) return failSale(ctx, order.id, "the sell order is older than 24 hours");
    const wallet = await walletOfUser(db, order.userId);
    if (!wallet || wallet.address !== order.walletAddress) return failSale(ctx, order.id, "the order's wallet is not the user's wallet");
    const pending = await pendingXdcBalance(ctx, wallet);
    let tx: ChainTransaction;
    try {
      ({ tx } = await ctx.outbox.enqueue(
        {
          userId: null,
          idempotencyKey: key,
          request: { route: "offramp_xdc", onrampTransactionId: order.id },
          kind: "offramp_xdc",
          intent: { currency: "XDC", to: depositAddress, amount: amount.toString(), onrampTransactionId: order.id, orderId: order.orderId, userId: order.userId },
          signer: { kind: "wallet", wallet },
          to: depositAddress,
          data: "0x",
          value: amount,
        },
        async (inTx) => {
          if (pending - (await unbroadcastXdc(inTx, wallet)) < amount + GAS_RESERVE) throw new SaleRefused("not enough XDC in the wallet (the 0.1 XDC gas reserve stays)");
        },
      ));
    } catch (err) {
      if (err instanceof SaleRefused) return failSale(ctx, order.id, err.message);
      throw err;
    }
    await recordSaleSend(ctx, order.id, tx.id);
    forgetBalances(ctx.chain, wallet.address as Address);
    ctx.log.info("on-ramp sale: XDC queued for the provider", { orderId: order.orderId, outboxId: tx.id });
    return { outcome: "processed" };
  }
  // Sent (or tried) before: never again. Record it if a crash came between the send and the note.
  if (existing.toAddress !== depositAddress || existing.value !== amount) {
    ctx.log.warn("on-ramp sale: a different instruction for an order already sent", { orderId: order.orderId });
  }
  if (!meta.sendTransactionId) await recordSaleSend(ctx, order.id, existing.id);
  if (existing.status === "failed" || existing.status === "reverted") return failSale(ctx, order.id, "the XDC transfer to the provider failed");
  return { outcome: "processed" };
}

class SaleRefused extends Error {}

async function recordSaleSend(ctx: DatabaseDeps, orderRowId: string, outboxId: string): Promise<void> {
  await updateMetadata(ctx, orderRowId, (meta) => ({ ...meta, sendTransactionId: outboxId }));
}

async function failSale(ctx: DatabaseDeps, orderRowId: string, reason: string): Promise<Applied> {
  await ctx.database.db.transaction(
    async (tx) => {
      const [order] = await tx.select().from(onrampTransactions).where(eq(onrampTransactions.id, orderRowId));
      if (!order || isTerminal(order.status)) return;
      const meta = JSON.parse(order.metadata) as OnrampMetadata;
      await tx
        .update(onrampTransactions)
        .set({ status: "failed", metadata: JSON.stringify({ ...meta, failureReason: reason }), updatedAt: new Date() })
        .where(eq(onrampTransactions.id, orderRowId));
    },
    { behavior: "immediate" },
  );
  return { outcome: "processed", note: `sale not sent: ${reason}` };
}

async function updateMetadata(ctx: DatabaseDeps, orderRowId: string, change: (meta: OnrampMetadata) => OnrampMetadata): Promise<void> {
  await ctx.database.db.transaction(
    async (tx) => {
      const [order] = await tx.select().from(onrampTransactions).where(eq(onrampTransactions.id, orderRowId));
      if (!order) return;
      await tx
        .update(onrampTransactions)
        .set({ metadata: JSON.stringify(change(JSON.parse(order.metadata) as OnrampMetadata)), updatedAt: new Date() })
        .where(eq(onrampTransactions.id, orderRowId));
    },
    { behavior: "immediate" },
  );
}
