import { declareRoute, IdempotencyHeaders, json, orNull, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { Amount, Timestamp, Token, TransactionResult, TxHash } from "../../openapi/shapes.ts";
import { CodeSent } from "./export.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { idempotencyKeyFor } from "../../middleware/idempotency.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { clientAddress } from "../../middleware/client-address.ts";
import { bountyHistory } from "../../services/wallets/bounty-history.ts";
import { listSends, quoteMaxSend, quoteSend, requestSendCode, sendFromWallet } from "../../services/wallets/send.ts";

// Field values are checked by the service, which explains each problem in words; here only their shape.
const amountField = z.union([z.string().max(80), z.number()]);
const SendFields = z.object({ token: z.string().max(10), to: z.string().max(100), amount: amountField });
const SendBody = SendFields.extend({ otp: z.string().trim().regex(/^\d{6}$/, "Enter the 6-digit code from the e-mail.").optional() });
const MaxQuery = z.object({ token: z.string().max(10), to: z.string().max(100).optional() });
const Limit = z.object({ limit: z.coerce.number().int().min(1).max(50).default(10) });

export const SEND_RATE_LIMIT = { name: "wallet-send", perIp: 120, perUser: 60, windowMs: 3600 * 1000 };
export const SEND_CODE_RATE_LIMIT = { name: "wallet-send-code", perIp: 30, windowMs: 3600 * 1000 };

/**
 * GET  /api/wallet/send-quote?token&to&amount   the checks and the fee, nothing sent -> { token, to, amount, fee, feeCurrency, total, otpRequired, otpThreshold }
 * GET  /api/wallet/send-max?token&to?                    the Max button: balance − 0.1 XDC reserve − fee (XDC) -> { token, amount, fee, reserve }
 * POST /api/wallet/send-code  { token, to, amount }         e-mails a code for this send (above the threshold) -> { success, message, expiresAt }
 * POST /api/wallet/send       { token, to, amount, otp? }   Idempotency-Key required -> { id, transactionHash, status, message, explorerUrl, token, to, amount }
 * GET  /api/wallet/sends?limit=10                            -> { sends: [...] }
 * GET  /api/wallet/bounty-history?limit=10                   rewards received, pool withdrawals, bounties refunded to the user's pools -> { entries: [...] }
 */
export function sendRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/send-quote", validate("query", SendFields), async (c) => {
      const user = requireUser(c);
      return c.json(await quoteSend(ctx, user, c.req.valid("query")));
    })
    .get("/send-max", validate("query", MaxQuery), async (c) => {
      const user = requireUser(c);
      return c.json(await quoteMaxSend(ctx, user, c.req.valid("query")));
    })
    .post("/send-code", rateLimit(ctx, SEND_CODE_RATE_LIMIT), validate("json", SendFields), async (c) => {
      const { user } = requireSession(c);
      return c.json(await requestSendCode(ctx, { user, send: c.req.valid("json"), ip: clientAddress(c, ctx.env.TRUST_PROXY) }));
    })
    .post("/send", rateLimit(ctx, SEND_RATE_LIMIT), validate("json", SendBody), async (c) => {
      const { user } = requireSession(c);
      const { otp, ...send } = c.req.valid("json");
      return c.json(
        await sendFromWallet(ctx, { user, send, otp, idempotencyKey: await idempotencyKeyFor(ctx, c, user.id), ip: clientAddress(c, ctx.env.TRUST_PROXY) }),
      );
    })
    .get("/sends", validate("query", Limit), async (c) => {
      const user = requireUser(c);
      return c.json({ sends: await listSends(ctx, user, c.req.valid("query").limit) });
    })
    .get("/bounty-history", validate("query", Limit), async (c) => {
      const user = requireUser(c);
      c.header("Cache-Control", "private, no-store");
      return c.json({ entries: await bountyHistory(ctx, user, c.req.valid("query").limit) });
    });
}

export const SendQuote = z.object({
  token: Token, to: z.string(), amount: Amount, fee: Amount, feeCurrency: z.literal("XDC"),
  total: orNull(Amount), otpRequired: z.boolean(), otpThreshold: Amount,
});
export const SendMax = z.object({ token: Token, amount: Amount, fee: Amount, reserve: Amount });
export const SendResult = TransactionResult.extend({ id: z.string(), token: Token, to: z.string(), amount: Amount });
export const BountyHistoryEntry = z.object({
  id: z.string(), kind: z.enum(["reward", "held", "withdrawal", "refund", "funding"]),
  direction: z.enum(["in", "out", "none"]).meta({ description: "Which way the money went for this wallet: in, out, or neither (a cancelled bounty goes back to the pool, not to the wallet)" }),
  currency: Token, amount: Amount.meta({ description: "What moved; a funding: what left the wallet, fee included" }),
  fee: Amount.nullable().meta({ description: "The platform's fee within amount (a funding); null otherwise" }),
  repository: z.string().nullable(), issueNumber: z.number().int().nullable(), issueTitle: z.string().nullable(), issueUrl: z.string().nullable(),
  transactionHash: TxHash, explorerUrl: z.string().nullable(), createdAt: Timestamp,
});
export const SentTransaction = z.object({
  id: z.string(), token: Token, to: z.string(), amount: Amount,
  status: z.enum(["pending", "confirmed", "failed"]), transactionHash: z.string().nullable(), explorerUrl: z.string().nullable(), createdAt: Timestamp,
});

export const sendApi = [
  declareRoute({
    method: "get", path: "/api/wallet/send-quote", operationId: "quoteSend", tags: ["wallet"], security: USER,
    errors: ["chain_unavailable", "insufficient_balance", "insufficient_gas", "invalid_address", "invalid_amount", "invalid_currency",
      "transaction_failed", "validation_failed", "wallet_required"],
    summary: "Runs every send check and estimates the fee; nothing is sent",
    request: { query: SendFields },
    responses: { 200: json("The quote", SendQuote) },
  }),
  declareRoute({
    method: "get", path: "/api/wallet/send-max", operationId: "quoteMaxSend", tags: ["wallet"], security: USER,
    errors: ["chain_unavailable", "invalid_currency", "transaction_failed", "validation_failed", "wallet_required"],
    summary: "The most that can be sent (the form's Max)",
    request: { query: MaxQuery },
    responses: { 200: json("The maximum", SendMax) },
  }),
  declareRoute({
    method: "post", path: "/api/wallet/send-code", operationId: "requestSendCode", tags: ["wallet"], security: SESSION_WRITE,
    errors: ["chain_unavailable", "code_not_needed", "email_required", "insufficient_balance", "insufficient_gas", "invalid_address",
      "invalid_amount", "invalid_currency", "mail_unavailable", "rate_limited", "transaction_failed", "validation_failed", "wallet_required"],
    summary: "E-mails a code bound to this send (above the threshold)",
    request: { body: { content: { "application/json": { schema: SendFields } }, required: true } },
    responses: { 200: json("Code sent", CodeSent) },
  }),
  declareRoute({
    method: "post", path: "/api/wallet/send", operationId: "sendFromWallet", tags: ["wallet"], security: SESSION_WRITE,
    errors: ["already_paid", "chain_unavailable", "code_required", "idempotency_conflict", "idempotency_key_required", "insufficient_balance",
      "insufficient_gas", "invalid_address", "invalid_amount", "invalid_code", "invalid_currency", "rate_limited", "transaction_failed",
      "transaction_queued", "validation_failed", "wallet_required"],
    summary: "Sends XDC, ROXN or USDC from the custodial wallet",
    request: { headers: IdempotencyHeaders, body: { content: { "application/json": { schema: SendBody } }, required: true } },
    responses: { 200: json("Submitted (or the first result, replayed)", SendResult) },
  }),
  declareRoute({
    method: "get", path: "/api/wallet/sends", operationId: "listSends", tags: ["wallet"], security: USER,
    errors: ["validation_failed"],
    summary: "The wallet's latest sends, newest first",
    request: { query: Limit },
    responses: { 200: json("The sends", z.object({ sends: z.array(SentTransaction) })) },
  }),
  declareRoute({
    method: "get", path: "/api/wallet/bounty-history", operationId: "listBountyHistory", tags: ["wallet"], security: USER,
    errors: ["validation_failed"],
    summary: "Rewards received, pool withdrawals, the wallet's pool fundings and bounties refunded to the user's pools, newest first",
    request: { query: Limit },
    responses: { 200: json("The entries", z.object({ entries: z.array(BountyHistoryEntry) })) },
  }),
];
