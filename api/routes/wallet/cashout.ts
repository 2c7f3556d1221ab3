import { declareRoute, json, orNull, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { Amount, Timestamp, TxHash } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { CASHOUT_STATUSES } from "../../../db/schema/index.ts";
import { KYC_STATUSES } from "../../services/onramp/sell-api.ts";
import { cashoutSettingsOf, saveCashoutSettings } from "../../services/cashout/settings.ts";
import { confirmCashout, getCashout, listCashouts, quoteCashout } from "../../services/cashout/orders.ts";
import { keptRewards } from "../../services/cashout/reward-arrived.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS, type Currency } from "../../../lib/money.ts";
import { explorerTxUrl } from "../../chain/config.ts";

/**
 * Cash-out to UPI (issue 40; docs/wallet.md, "Cash out to UPI"):
 * GET  /api/wallet/cashout/settings                 -> { available, upiId, auto, currencies, kept }
 * PUT  /api/wallet/cashout/settings { upiId?, auto? } -> the same
 * POST /api/wallet/cashout/quote { currency, amount } -> the quote (provider's rate and fee, platform fee, gas, INR, validity, KYC)
 * POST /api/wallet/cashout { quoteId, upiId }        -> the cash-out (one per quote: a second confirmation returns the first)
 * GET  /api/wallet/cashouts?limit=10                  -> { cashouts: [...] }
 * GET  /api/wallet/cashouts/{id}                      -> the cash-out (another user's: 404)
 */
export const CASHOUT_RATE_LIMIT = { name: "wallet-cashout", perIp: 120, perUser: 60, windowMs: 3600 * 1000 };

const AutoFields = z.object({
  enabled: z.boolean().optional(),
  minXdc: z.union([z.string().max(80), z.null()]).optional(),
  minUsdc: z.union([z.string().max(80), z.null()]).optional(),
});
const SettingsBody = z.object({ upiId: z.union([z.string().max(300), z.null()]).optional(), auto: AutoFields.optional() });
const QuoteBody = z.object({ currency: z.string().max(10), amount: z.union([z.string().max(80), z.number()]) });
const ConfirmBody = z.object({ quoteId: z.string().uuid(), upiId: z.string().max(300) });
const Limit = z.object({ limit: z.coerce.number().int().min(1).max(50).default(10) });
const IdParam = z.object({ id: z.string().uuid() });

export function cashoutRoutes(ctx: AppContext) {
  const settings = async (userId: number) => ({
    ...(await cashoutSettingsOf(ctx, userId)),
    kept: (await keptRewards(ctx, userId)).map((k) => ({
      currency: k.currency,
      amount: toDecimalString(k.amount, DECIMALS[k.currency as Currency]),
      reason: (k.note ?? "").replace(/^kept: /, ""),
      transactionHash: k.txHash,
      explorerUrl: explorerTxUrl(ctx.chain.config.network, k.txHash),
      createdAt: k.createdAt.toISOString(),
    })),
  });
  return new Hono<AppBindings>()
    .get("/cashout/settings", async (c) => {
      const user = requireUser(c);
      return c.json(await settings(user.id));
    })
    .put("/cashout/settings", validate("json", SettingsBody), async (c) => {
      const { user } = requireSession(c);
      await saveCashoutSettings(ctx, user.id, c.req.valid("json"));
      return c.json(await settings(user.id));
    })
    .post("/cashout/quote", rateLimit(ctx, CASHOUT_RATE_LIMIT), validate("json", QuoteBody), async (c) => {
      const { user } = requireSession(c);
      return c.json(await quoteCashout(ctx, user, c.req.valid("json")));
    })
    .post("/cashout", rateLimit(ctx, CASHOUT_RATE_LIMIT), validate("json", ConfirmBody), async (c) => {
      const { user } = requireSession(c);
      const { quoteId, upiId } = c.req.valid("json");
      return c.json(await confirmCashout(ctx, { user, quoteId, upiId }));
    })
    .get("/cashouts", validate("query", Limit), async (c) => {
      const user = requireUser(c);
      return c.json({ cashouts: await listCashouts(ctx, user.id, c.req.valid("query").limit) });
    })
    .get("/cashouts/:id", validate("param", IdParam), async (c) => {
      const user = requireUser(c);
      return c.json(await getCashout(ctx, user.id, c.req.valid("param").id));
    });
}

const Inr = z.string().regex(/^\d+(\.\d+)?$/).meta({ description: "Rupees as a decimal string" });
const CashoutCurrency = z.enum(["XDC", "USDC"]);

export const CashoutSettings = z.object({
  available: z.boolean(),
  upiId: z.string().nullable(),
  auto: z.object({ enabled: z.boolean(), minXdc: orNull(Amount), minUsdc: orNull(Amount) }),
  currencies: z.array(z.object({ symbol: z.enum(["XDC", "USDC", "ROXN"]), supported: z.boolean(), reason: z.string().nullable() })),
  kept: z.array(z.object({ currency: z.string(), amount: Amount, reason: z.string(), transactionHash: TxHash, explorerUrl: z.string().nullable(), createdAt: Timestamp })),
});

export const CashoutQuote = z.object({
  id: z.string(),
  currency: CashoutCurrency,
  amount: Amount,
  rate: Inr,
  providerFee: Inr,
  platformFee: Inr,
  gasFee: Amount.meta({ description: "The network fee of the transfer to the provider, in XDC" }),
  fiatAmount: Inr,
  fiatCurrency: z.literal("INR"),
  expiresAt: Timestamp,
  kyc: z.object({ status: z.enum(KYC_STATUSES), url: z.string().nullable() }),
});

export const Cashout = z.object({
  id: z.string(),
  currency: CashoutCurrency,
  amount: Amount,
  fiatAmount: Inr,
  rate: Inr,
  providerFee: Inr,
  platformFee: Inr,
  gasFee: Amount,
  upiId: z.string(),
  status: z.enum(CASHOUT_STATUSES),
  trigger: z.enum(["manual", "auto"]),
  orderId: z.string().nullable(),
  depositAddress: z.string().nullable(),
  transactionHash: orNull(TxHash),
  explorerUrl: z.string().nullable(),
  refundTransactionHash: orNull(TxHash),
  refundExplorerUrl: z.string().nullable(),
  payoutReference: z.string().nullable(),
  failureReason: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const cashoutApi = [
  declareRoute({
    method: "get", path: "/api/wallet/cashout/settings", operationId: "getCashoutSettings", tags: ["wallet"], security: USER,
    summary: "The saved UPI id, automatic cash-out, which currencies can be cashed out, rewards kept when automatic cash-out could not start",
    responses: { 200: json("The settings", CashoutSettings) },
  }),
  declareRoute({
    method: "put", path: "/api/wallet/cashout/settings", operationId: "saveCashoutSettings", tags: ["wallet"], security: SESSION_WRITE,
    errors: ["invalid_upi_id", "upi_id_required", "threshold_required", "invalid_currency", "invalid_amount", "validation_failed"],
    summary: "Saves the UPI id and automatic cash-out (rewards above a threshold, per currency)",
    request: { body: { content: { "application/json": { schema: SettingsBody } }, required: true } },
    responses: { 200: json("The settings", CashoutSettings) },
  }),
  declareRoute({
    method: "post", path: "/api/wallet/cashout/quote", operationId: "quoteCashout", tags: ["wallet"], security: SESSION_WRITE,
    errors: ["cashout_unsupported", "chain_unavailable", "insufficient_balance", "insufficient_gas", "invalid_address", "invalid_amount", "invalid_currency", "kyc_pending", "kyc_rejected", "kyc_required", "provider_refused", "provider_unavailable", "quote_expired", "rate_limited", "transaction_failed", "validation_failed", "wallet_required"],
    summary: "A cash-out quote: the provider's rate and fee, the platform's fee, gas, the INR received, valid until expiresAt; the KYC state",
    request: { body: { content: { "application/json": { schema: QuoteBody } }, required: true } },
    responses: { 200: json("The quote", CashoutQuote) },
  }),
  declareRoute({
    method: "post", path: "/api/wallet/cashout", operationId: "confirmCashout", tags: ["wallet"], security: SESSION_WRITE,
    errors: ["already_paid", "chain_unavailable", "idempotency_conflict", "insufficient_balance", "insufficient_gas", "invalid_address", "invalid_amount", "invalid_currency", "invalid_upi_id", "kyc_pending", "kyc_rejected", "kyc_required", "not_found", "provider_refused", "provider_unavailable", "quote_expired", "rate_limited", "transaction_failed", "validation_failed", "wallet_required"],
    summary: "Confirms a quote: the provider's order, the crypto sent to its deposit address once (a second confirmation returns the first)",
    request: { body: { content: { "application/json": { schema: ConfirmBody } }, required: true } },
    responses: { 200: json("The cash-out", Cashout) },
  }),
  declareRoute({
    method: "get", path: "/api/wallet/cashouts", operationId: "listCashouts", tags: ["wallet"], security: USER,
    errors: ["validation_failed"],
    summary: "The user's cash-outs, newest first",
    request: { query: Limit },
    responses: { 200: json("The cash-outs", z.object({ cashouts: z.array(Cashout) })) },
  }),
  declareRoute({
    method: "get", path: "/api/wallet/cashouts/{id}", operationId: "getCashout", tags: ["wallet"], security: USER,
    errors: ["not_found", "validation_failed"],
    summary: "One cash-out of the user's",
    request: { params: IdParam },
    responses: { 200: json("The cash-out", Cashout) },
  }),
];
