import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { declareRoute, json, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { Timestamp } from "../../openapi/shapes.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { confirmMoneyIntent, readMoneyIntent } from "../../services/funding/intents.ts";
import { intentKind } from "../../services/funding/intent-kinds.ts";
// Each kind registers itself where it is built; importing it here makes sure it is registered.
import "../../services/funding/intent-kinds-all.ts";

/**
 * The confirmation of a money intent (api/services/funding/intents.ts): the link the bot posts opens
 * /confirm/{token} in the app, which reads and confirms through these calls.
 * GET  /api/intents/{token}           the intent, for its author only        -> { kind, title, lines, expiresAt }
 * POST /api/intents/{token}/confirm   carries it out, once                    -> { success, message, link }
 */
export const INTENT_CONFIRM_RATE_LIMIT = { name: "intent-confirm", perIp: 60, perUser: 30, windowMs: 15 * 60_000 };

const TokenParam = z.object({ token: z.string().min(16).max(200) });

function kindOf(name: string) {
  const kind = intentKind(name);
  if (!kind) throw new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: "This confirmation link does not exist or is not yours." });
  return kind;
}

export function intentRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/:token", validate("param", TokenParam), async (c) => {
      const { user } = requireSession(c);
      const intent = await readMoneyIntent(ctx, { token: c.req.valid("param").token, githubUserId: user.githubId });
      const kind = kindOf(intent.kind);
      const { title, lines } = kind.describe(kind.payload.parse(intent.payload));
      c.header("Cache-Control", "no-store");
      return c.json({ kind: intent.kind, title, lines, expiresAt: intent.expiresAt.toISOString() });
    })
    .post("/:token/confirm", rateLimit(ctx, INTENT_CONFIRM_RATE_LIMIT), validate("param", TokenParam), async (c) => {
      const { user } = requireSession(c);
      const answer = await confirmMoneyIntent(ctx, { token: c.req.valid("param").token, githubUserId: user.githubId }, async (intent) => {
        const kind = kindOf(intent.kind);
        const done = await kind.confirm(ctx, { user, payload: kind.payload.parse(intent.payload), idempotencyKey: `intent:${intent.id}` });
        return { result: done.result, value: { success: true as const, message: done.message, link: done.link } };
      });
      return c.json(answer);
    });
}

export const IntentView = z.object({
  kind: z.string(),
  title: z.string(),
  lines: z.array(z.string()),
  expiresAt: Timestamp,
});

export const intentsApi = [
  declareRoute({
    method: "get", path: "/api/intents/{token}", operationId: "getMoneyIntent", tags: ["funding"], security: USER,
    errors: ["link_expired", "link_used", "not_found", "validation_failed"],
    summary: "A payment asked for in a GitHub comment, for its author to confirm (404 for anyone else, 410 once expired or used)",
    request: { params: TokenParam },
    responses: { 200: json("What confirming does", IntentView) },
  }),
  declareRoute({
    method: "post", path: "/api/intents/{token}/confirm", operationId: "confirmMoneyIntent", tags: ["funding"], security: SESSION_WRITE,
    // Its own, and what confirming each kind (a boost, a tip) can refuse with.
    errors: [
      "link_expired", "link_used", "not_found", "rate_limited", "validation_failed",
      "already_paid", "below_minimum", "bounty_committed", "bounty_held", "bounty_settling", "bounty_shared", "chain_unavailable",
      "claim_not_needed", "claim_not_verified", "github_unavailable", "idempotency_conflict", "insufficient_allowance",
      "insufficient_balance", "insufficient_gas", "invalid_amount", "invalid_expiry", "invalid_recipient", "invalid_repository",
      "issue_closed", "limit_exceeded", "no_open_bounty", "not_an_issue", "not_due", "not_ready", "pool_bounty",
      "repository_changed", "wallet_required", "wrong_currency",
    ],
    summary: "Confirms a payment asked for in a GitHub comment (once; 410 once expired or used)",
    request: { params: TokenParam },
    responses: { 200: json("Done", z.object({ success: z.literal(true), message: z.string(), link: z.string().nullable() })) },
  }),
];
