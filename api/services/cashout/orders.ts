import { and, desc, eq } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import { cashoutQuotes, cashouts, chainTransactions, users, type CashoutStatus, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { parseAddress, toXdcAddress } from "../../chain/address.ts";
import { parseAmount, toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { randomToken } from "../../crypto/tokens.ts";
import { forgetBalances } from "../money/balances.ts";
import { checkSend, parseSendAmount, sendGuard, sendRequest } from "../wallets/send.ts";
import { audit } from "../audit.ts";
import {
  createSellOrder,
  kycStatus,
  requestSellQuote,
  sellApiConfigured,
  sellOrderStatus,
  SellApiRefusal,
  SellApiUnavailable,
  type KycStatus,
  type SellOrder,
} from "../onramp/sell-api.ts";
import { customerIdOf, parseCashoutCurrency, parseUpiId, rememberUpiId } from "./settings.ts";

/**
 * Cash-out to UPI (issue 40, item 1): a reward in the wallet sold for INR through the provider's sell-side API.
 *
 *   quote     the provider's quote plus ours (the network fee of our transfer, no platform fee), kept as a row,
 *             valid until the provider's time; the KYC state the provider reports comes with it
 *   confirm   one cash-out per quote (a unique index: a double confirmation finds the first); then `advance`
 *   advance   the provider's order under our reference (`ipc_…`, idempotent at the provider), its deposit address
 *             recorded, then the crypto queued in the outbox as a send to that address under the key
 *             `cashout:{id}`: at most once, whatever retries, crashes or passes come after
 * The order then moves on through the provider's signed webhooks and the status poll (progress.ts). Each step
 * can be taken again: after a crash the poll pass finds an `initiated` cash-out and advances it from where the
 * records say it stands (docs/wallet.md, "Cash out to UPI").
 */
type Deps = Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "appSecret">;

export interface CashoutQuoteView {
  id: string;
  currency: "XDC" | "USDC";
  amount: string;
  /** INR per whole coin. */
  rate: string;
  providerFee: string;
  platformFee: string;
  /** The network fee of our transfer to the provider, in XDC. */
  gasFee: string;
  fiatAmount: string;
  fiatCurrency: "INR";
  expiresAt: string;
  kyc: { status: KycStatus; url: string | null };
}

export interface CashoutView {
  id: string;
  currency: "XDC" | "USDC";
  amount: string;
  fiatAmount: string;
  rate: string;
  providerFee: string;
  platformFee: string;
  gasFee: string;
  upiId: string;
  status: CashoutStatus;
  trigger: "manual" | "auto";
  orderId: string | null;
  depositAddress: string | null;
  transactionHash: string | null;
  explorerUrl: string | null;
  refundTransactionHash: string | null;
  refundExplorerUrl: string | null;
  payoutReference: string | null;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Where the estimate of a transfer's fee sends it before the provider names its deposit address (no one's key). */
const ESTIMATE_RECIPIENT: Address = "0x000000000000000000000000000000000000dEaD";
/** The network fee is shown in XDC with this many decimals at most. */

export const providerUnavailable = (cause?: unknown) =>
  new DomainError({
    code: ErrorCode.PROVIDER_UNAVAILABLE,
    error: "Cash-out unavailable",
    message: "The cash-out provider cannot be reached right now. Nothing was sent: try again in a few minutes.",
    cause,
  });

const KYC_TEXT: Record<Exclude<KycStatus, "approved">, { code: ErrorCode; error: string; message: string }> = {
  required: {
    code: ErrorCode.KYC_REQUIRED,
    error: "Identity check required",
    message: "The provider must verify your identity before paying INR to you. Complete the check on the provider's page, then confirm again. Nothing was sent.",
  },
  pending: {
    code: ErrorCode.KYC_PENDING,
    error: "Identity check in review",
    message: "The provider is still reviewing your identity check. Try again once it is approved. Nothing was sent.",
  },
  rejected: {
    code: ErrorCode.KYC_REJECTED,
    error: "Identity check declined",
    message: "The provider declined your identity check, so it cannot pay INR to you. Your crypto stays in your wallet; contact the provider's support to resolve it.",
  },
};

export function kycRefusal(status: Exclude<KycStatus, "approved">, url: string | null): DomainError {
  const text = KYC_TEXT[status];
  return new DomainError({ ...text, details: { kycStatus: status, kycUrl: url } });
}

/** The provider's refusal as our error (its KYC and quote codes mapped; anything else with its own sentence). */
function refusalError(err: SellApiRefusal): DomainError {
  if (err.code === "quote_expired") return quoteExpired();
  const kyc = /^kyc_(required|pending|rejected)$/.exec(err.code)?.[1] as Exclude<KycStatus, "approved"> | undefined;
  if (kyc) return kycRefusal(kyc, typeof err.details.kycUrl === "string" ? err.details.kycUrl : null);
  return new DomainError({ code: ErrorCode.PROVIDER_REFUSED, error: "Cash-out refused", message: `The provider refused this cash-out: ${err.message}`, details: { providerCode: err.code } });
}

const quoteExpired = () => new DomainError({ code: ErrorCode.QUOTE_EXPIRED, error: "Quote expired", message: "This quote has expired: ask for a new one. Nothing was sent." });

function requireProvider(ctx: Pick<AppContext, "env">): void {
  if (!sellApiConfigured(ctx.env)) {
    throw new DomainError({ code: ErrorCode.PROVIDER_UNAVAILABLE, error: "Cash-out unavailable", message: "Cash-out to UPI is not set up on this platform." });
  }
}

/** A provider call, its failures as our errors. */
async function provider<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof SellApiRefusal) throw refusalError(err);
    if (err instanceof SellApiUnavailable) throw providerUnavailable(err);
    throw err;
  }
}

/** A decimal amount of INR or a rate, as the provider wrote it, normalised (no float ever). */
function decimalText(text: string, decimals = 8): string {
  const parsed = parseAmount(text, decimals);
  if (!parsed.ok) throw providerUnavailable(new Error(`the provider's figure ${text} is not a decimal`));
  return toDecimalString(parsed.value, decimals);
}

/** POST /api/wallet/cashout/quote */
export async function quoteCashout(ctx: Deps, user: User, input: { currency: unknown; amount: unknown }): Promise<CashoutQuoteView> {
  const currency = parseCashoutCurrency(input.currency);
  const amount = parseSendAmount(input.amount, currency);
  requireProvider(ctx);
  // The send's own rules (balance, the 0.1 XDC reserve after the fee, XDC for a token's fee) and its fee.
  const send = await checkSend(ctx, user, { token: currency, to: ESTIMATE_RECIPIENT, amount: toDecimalString(amount, DECIMALS[currency]) });
  const customerId = await customerIdOf(ctx, user.id);
  const [quote, kyc] = await provider(() => Promise.all([requestSellQuote(ctx.env, { currency, cryptoAmount: toDecimalString(amount, DECIMALS[currency]) }), kycStatus(ctx.env, customerId)]));
  const quoted = parseAmount(quote.cryptoAmount, DECIMALS[currency]);
  if (!quoted.ok || quoted.value !== amount) throw providerUnavailable(new Error(`the provider quoted ${quote.cryptoAmount} for ${amount}`));
  const id = crypto.randomUUID();
  const expiresAt = new Date(quote.expiresAt);
  const row = {
    id,
    userId: user.id,
    currency,
    amount,
    providerQuoteId: quote.quoteId,
    rate: decimalText(quote.rate),
    providerFeeInr: decimalText(quote.providerFee),
    platformFeeInr: "0",
    gasFee: send.fee,
    fiatAmount: decimalText(quote.fiatAmount),
    expiresAt,
  };
  await ctx.database.db.insert(cashoutQuotes).values(row);
  return {
    id,
    currency,
    amount: toDecimalString(amount, DECIMALS[currency]),
    rate: row.rate,
    providerFee: row.providerFeeInr,
    platformFee: row.platformFeeInr,
    gasFee: toDecimalString(send.fee, DECIMALS.XDC),
    fiatAmount: row.fiatAmount,
    fiatCurrency: "INR",
    expiresAt: expiresAt.toISOString(),
    kyc: { status: kyc.kycStatus, url: kyc.kycUrl ?? null },
  };
}

/**
 * POST /api/wallet/cashout: confirms a quote. The same quote confirmed again (a double click, a retry after a lost
 * answer) returns the first cash-out, even after the quote's time is over. Nothing is recorded before the quote,
 * the KYC state and the balance have been checked.
 */
export async function confirmCashout(
  ctx: Deps,
  input: { user: User; quoteId: string; upiId: unknown; trigger?: "manual" | "auto"; rewardKey?: string; now?: number },
): Promise<CashoutView> {
  const db = ctx.database.db;
  const now = input.now ?? Date.now();
  const [quote] = await db.select().from(cashoutQuotes).where(and(eq(cashoutQuotes.id, input.quoteId), eq(cashoutQuotes.userId, input.user.id)));
  if (!quote) throw new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not found", message: "No such quote." });
  const [earlier] = await db.select().from(cashouts).where(eq(cashouts.quoteId, quote.id));
  if (earlier) return cashoutView(ctx, earlier);
  if (quote.expiresAt.getTime() < now) throw quoteExpired();
  const upiId = parseUpiId(input.upiId);
  requireProvider(ctx);
  const kyc = await provider(async () => kycStatus(ctx.env, await customerIdOf(ctx, input.user.id)));
  if (kyc.kycStatus !== "approved") throw kycRefusal(kyc.kycStatus, kyc.kycUrl ?? null);
  const send = await checkSend(ctx, input.user, { token: quote.currency, to: ESTIMATE_RECIPIENT, amount: toDecimalString(quote.amount, DECIMALS[quote.currency]) });

  const id = crypto.randomUUID();
  const inserted = await db
    .insert(cashouts)
    .values({
      id,
      userId: input.user.id,
      quoteId: quote.id,
      trigger: input.trigger ?? "manual",
      rewardKey: input.rewardKey ?? null,
      walletId: send.wallet.id,
      walletAddress: send.wallet.address,
      currency: quote.currency,
      amount: quote.amount,
      rate: quote.rate,
      providerFeeInr: quote.providerFeeInr,
      platformFeeInr: quote.platformFeeInr,
      gasFee: quote.gasFee,
      fiatAmount: quote.fiatAmount,
      upiId,
      merchantReference: `ipc_${randomToken(20)}`,
    })
    .onConflictDoNothing()
    .returning();
  if (!inserted[0]) {
    // Confirmed twice at once: the other request's row is the answer.
    const [first] = await db.select().from(cashouts).where(eq(cashouts.quoteId, quote.id));
    if (!first) throw new Error("cash-out: conflicting row vanished");
    return cashoutView(ctx, first);
  }
  await rememberUpiId(ctx, input.user.id, upiId);
  await audit(db, { userId: input.user.id, action: "wallet.cashout", detail: { cashoutId: id, currency: quote.currency, amount: quote.amount.toString(), trigger: input.trigger ?? "manual" } });
  const row = await advanceCashout(ctx, id, { inRequest: true });
  // Answer with the transfer's hash when it leaves at once (the outbox worker sends it otherwise).
  if (row.sendTransactionId) await ctx.outbox.untilBroadcast(await ctx.outbox.get(row.sendTransactionId), 5_000).catch(() => undefined);
  return cashoutView(ctx, (await db.select().from(cashouts).where(eq(cashouts.id, id)))[0]!);
}

/**
 * Takes an `initiated` cash-out as far as the records allow: the provider's order (found by our reference, or made
 * under it), then our transfer (found by its outbox key, or queued once). In a request a provider that cannot be
 * reached cancels the cash-out (nothing was sent: the user sees why and tries again); in the recovery pass it is
 * left for the next pass. A refusal cancels it. Returns the row as it stands.
 */
export async function advanceCashout(ctx: Deps, cashoutId: string, options: { inRequest?: boolean } = {}) {
  const db = ctx.database.db;
  let [row] = await db.select().from(cashouts).where(eq(cashouts.id, cashoutId));
  if (!row) throw new Error(`cash-out ${cashoutId} not found`);
  if (row.status !== "initiated") return row;
  const key = `cashout:${row.id}`;
  const existing = await ctx.outbox.findByKey(null, key);

  if (!row.providerOrderId) {
    const [quote] = await db.select().from(cashoutQuotes).where(eq(cashoutQuotes.id, row.quoteId));
    let order: SellOrder | undefined;
    try {
      // After a crash the order may exist already (its answer was lost): ask before making one.
      order = options.inRequest ? undefined : await sellOrderStatus(ctx.env, row.merchantReference);
      order ??= await createSellOrder(ctx.env, {
        quoteId: quote!.providerQuoteId,
        merchantReference: row.merchantReference,
        customerId: await customerIdOf(ctx, row.userId),
        walletAddress: row.walletAddress,
        upiId: row.upiId,
      });
    } catch (err) {
      if (err instanceof SellApiRefusal) {
        // Our transfer can only exist if the order did: never cancel a cash-out whose crypto may be on its way.
        if (!existing) await cancelCashout(ctx, row.id, `the provider refused the order: ${err.message}`);
        if (options.inRequest) throw refusalError(err);
        return (await db.select().from(cashouts).where(eq(cashouts.id, row.id)))[0]!;
      }
      if (err instanceof SellApiUnavailable) {
        if (options.inRequest && !existing) {
          await cancelCashout(ctx, row.id, "the provider could not be reached");
          throw providerUnavailable(err);
        }
        ctx.log.warn("cash-out: the provider could not be asked; left for the next pass", { cashoutId: row.id, err: err.message });
        return row;
      }
      throw err;
    }
    const problem = orderProblem(row, order);
    if (problem) {
      ctx.log.warn("cash-out: the provider's order does not match ours", { cashoutId: row.id, problem });
      if (!existing) await cancelCashout(ctx, row.id, problem);
      return (await db.select().from(cashouts).where(eq(cashouts.id, row.id)))[0]!;
    }
    [row] = await db
      .update(cashouts)
      .set({ providerOrderId: order.orderId, depositAddress: parseAddress(order.depositAddress)!, providerStatus: order.status, updatedAt: new Date() })
      .where(and(eq(cashouts.id, row.id), eq(cashouts.status, "initiated")))
      .returning();
    if (!row) return (await db.select().from(cashouts).where(eq(cashouts.id, cashoutId)))[0]!;
  }

  if (!row.sendTransactionId || !existing) {
    let txId = existing?.id;
    if (!txId) {
      const [user] = await db.select().from(users).where(eq(users.id, row.userId));
      try {
        // A cash-out is a send: the same checks, the same outbox kinds, so it counts in the wallet's daily figures.
        const send = await checkSend(ctx, user!, { token: row.currency, to: row.depositAddress!, amount: toDecimalString(row.amount, DECIMALS[row.currency]) });
        const { tx } = await ctx.outbox.enqueue(
          sendRequest(send, { userId: null, idempotencyKey: key, request: { route: "cashout", cashoutId: row.id }, intent: { cashoutId: row.id } }),
          sendGuard(send),
        );
        txId = tx.id;
        forgetBalances(ctx.chain, send.wallet.address as Address);
      } catch (err) {
        if (err instanceof DomainError && err.code !== ErrorCode.CHAIN_UNAVAILABLE && err.code !== ErrorCode.IDEMPOTENCY_CONFLICT) {
          await cancelCashout(ctx, row.id, `the transfer was refused: ${err.message}`);
          if (options.inRequest) throw err;
          return (await db.select().from(cashouts).where(eq(cashouts.id, row.id)))[0]!;
        }
        if (options.inRequest) throw err;
        ctx.log.warn("cash-out: the transfer could not be queued; left for the next pass", { cashoutId: row.id, err: (err as Error).message });
        return row;
      }
    }
    [row] = await db.update(cashouts).set({ sendTransactionId: txId, updatedAt: new Date() }).where(eq(cashouts.id, row.id)).returning();
    ctx.log.info("cash-out: crypto queued for the provider", { cashoutId: row!.id, orderId: row!.providerOrderId, outboxId: txId });
  }
  return row!;
}

/** Why the provider's order cannot be followed (another amount, coin or wallet than ours), or undefined. */
export function orderProblem(row: typeof cashouts.$inferSelect, order: SellOrder): string | undefined {
  if (order.merchantRecognitionId !== row.merchantReference) return "the order names another reference";
  if (order.coinCode.toUpperCase() !== row.currency) return `the order is for ${order.coinCode}, not ${row.currency}`;
  const amount = parseAmount(order.cryptoAmount, DECIMALS[row.currency]);
  if (!amount.ok || amount.value !== row.amount) return `the order asks for ${order.cryptoAmount} ${row.currency}, not the amount quoted`;
  if (!parseAddress(order.depositAddress)) return "the deposit address is not an address";
  if (parseAddress(order.walletAddress) !== row.walletAddress) return "the order would refund another wallet";
  if (row.providerOrderId && row.providerOrderId !== order.orderId) return "the order id differs from the one recorded";
  if (row.depositAddress && parseAddress(order.depositAddress) !== row.depositAddress) return "the deposit address differs from the one recorded";
  return undefined;
}

/** Ends a cash-out whose crypto never left the wallet (compare-and-set from `initiated`). */
export async function cancelCashout(ctx: Pick<AppContext, "database">, id: string, reason: string): Promise<boolean> {
  const rows = await ctx.database.db
    .update(cashouts)
    .set({ status: "cancelled", failureReason: reason, updatedAt: new Date() })
    .where(and(eq(cashouts.id, id), eq(cashouts.status, "initiated")))
    .returning({ id: cashouts.id });
  return rows.length > 0;
}

export async function cashoutView(ctx: Pick<AppContext, "database" | "chain">, row: typeof cashouts.$inferSelect): Promise<CashoutView> {
  const [send] = row.sendTransactionId
    ? await ctx.database.db.select({ txHash: chainTransactions.txHash }).from(chainTransactions).where(eq(chainTransactions.id, row.sendTransactionId))
    : [];
  const hash = send?.txHash ?? null;
  const network = ctx.chain.config.network;
  return {
    id: row.id,
    currency: row.currency,
    amount: toDecimalString(row.amount, DECIMALS[row.currency]),
    fiatAmount: row.fiatAmount,
    rate: row.rate,
    providerFee: row.providerFeeInr,
    platformFee: row.platformFeeInr,
    gasFee: toDecimalString(row.gasFee, DECIMALS.XDC),
    upiId: row.upiId,
    status: row.status,
    trigger: row.trigger,
    orderId: row.providerOrderId,
    depositAddress: row.depositAddress ? toXdcAddress(row.depositAddress) : null,
    transactionHash: hash,
    explorerUrl: hash ? explorerTxUrl(network, hash) : null,
    refundTransactionHash: row.refundTxHash,
    refundExplorerUrl: row.refundTxHash ? explorerTxUrl(network, row.refundTxHash) : null,
    payoutReference: row.payoutReference,
    failureReason: row.failureReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** GET /api/wallet/cashouts */
export async function listCashouts(ctx: Pick<AppContext, "database" | "chain">, userId: number, limit: number): Promise<CashoutView[]> {
  const rows = await ctx.database.db.select().from(cashouts).where(eq(cashouts.userId, userId)).orderBy(desc(cashouts.createdAt)).limit(limit);
  return Promise.all(rows.map((row) => cashoutView(ctx, row)));
}

/** GET /api/wallet/cashouts/{id}: another user's cash-out is not found. */
export async function getCashout(ctx: Pick<AppContext, "database" | "chain">, userId: number, id: string): Promise<CashoutView> {
  const [row] = await ctx.database.db.select().from(cashouts).where(and(eq(cashouts.id, id), eq(cashouts.userId, userId)));
  if (!row) throw new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not found", message: "No such cash-out." });
  return cashoutView(ctx, row);
}
