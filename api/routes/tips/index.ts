import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { declareRoute, IdempotencyHeaders, json, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { Amount, Timestamp, Token, TxHash } from "../../openapi/shapes.ts";
import { validate } from "../../validate.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { idempotencyKeyFor } from "../../middleware/idempotency.ts";
import { giveTip, myTips } from "../../services/tips/tips.ts";

/**
 * Tips (api/services/tips): the Tip button on a profile, and the signed-in user's tips.
 * POST /api/tips   { login, amount, currency }  Idempotency-Key recommended -> TipView (held when they have no wallet yet)
 * GET  /api/tips                                 -> { given, received }
 * (`/tip` in a comment goes through a money intent: /api/intents.)
 */
const TipBody = z.object({ login: z.string().min(1).max(40), amount: z.union([z.string().max(40), z.number()]), currency: Token.default("XDC") });

export const TIP_RATE_LIMIT = { name: "tip", perIp: 60, perUser: 30, windowMs: 3600 * 1000 };

export function tipRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .post("/", rateLimit(ctx, TIP_RATE_LIMIT), validate("json", TipBody), async (c) => {
      const { user } = requireSession(c);
      const body = c.req.valid("json");
      const idempotencyKey = await idempotencyKeyFor(ctx, c, user.id);
      return c.json(await giveTip(ctx, { user, login: body.login, amount: body.amount, currency: body.currency, source: "profile", idempotencyKey }));
    })
    .get("/", async (c) => {
      const user = requireUser(c);
      c.header("Cache-Control", "private, no-store");
      return c.json(await myTips(ctx, user));
    });
}

export const TipView = z
  .object({
    id: z.number().int(),
    from: z.string(),
    to: z.string(),
    currency: Token,
    amount: Amount.meta({ description: "What the tipper gave" }),
    fee: Amount.meta({ description: "The contract's fee (0.5 %), taken from the amount: the recipient gets amount - fee" }),
    status: z
      .enum(["held", "pending", "queued", "confirmed", "failed"])
      .meta({ description: "held: until the recipient registers (then sent); queued: the contract queued its payout as an outflow (over a cap), paid when the queue runs" }),
    transactionHash: z.union([TxHash, z.null()]),
    explorerUrl: z.string().nullable(),
    createdAt: Timestamp,
    message: z.string(),
  })
  .openapi("Tip");

export const tipsApi = [
  declareRoute({
    method: "post", path: "/api/tips", operationId: "giveTip", tags: ["wallet"], security: SESSION_WRITE,
    errors: ["already_paid", "below_minimum", "chain_unavailable", "github_unavailable", "idempotency_conflict", "idempotency_key_required",
      "insufficient_balance", "insufficient_gas", "invalid_amount", "invalid_recipient", "not_found", "rate_limited", "validation_failed",
      "wallet_required"],
    summary: "Tips a GitHub person from the signed-in user's wallet (held until they register when they have no wallet)",
    request: { headers: IdempotencyHeaders, body: { content: { "application/json": { schema: TipBody } }, required: true } },
    responses: { 200: json("The tip", TipView) },
  }),
  declareRoute({
    method: "get", path: "/api/tips", operationId: "listMyTips", tags: ["wallet"], security: USER,
    summary: "The signed-in user's tips, given and received, newest first",
    responses: { 200: json("Tips", z.object({ given: z.array(TipView), received: z.array(TipView) })) },
  }),
];
