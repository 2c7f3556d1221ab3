import { declareRoute, json, z } from "../../openapi/declare.ts";
import { Hono, type MiddlewareHandler } from "hono";
import { and, eq } from "drizzle-orm";
import { encodeHexLowerCase } from "@oslojs/encoding";
import type { AppBindings, AppContext } from "../../context.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { webhookDeliveries } from "../../../db/schema/index.ts";
import { BodyGate, readSignedBody } from "../../middleware/signed-body.ts";
import { isAppLogin } from "../../services/github-events/commands.ts";

/** GitHub caps webhook payloads at 25 MB. */
export const GITHUB_WEBHOOK_MAX_BYTES = 25 * 1024 * 1024;

/** Large deliveries read at once by one process; more are answered 503 with Retry-After (issue 25). */
export const GITHUB_WEBHOOK_LARGE_READS = 2;

/**
 * POST /api/webhooks/github. The raw body must carry a valid
 * X-Hub-Signature-256, or nothing is stored and the answer is 401. The HMAC
 * is computed while the body streams in (api/middleware/signed-body.ts) and
 * compared in constant time as the last byte arrives; at most
 * GITHUB_WEBHOOK_LARGE_READS bodies over 1 MB are read at once. Each delivery is stored once (X-GitHub-Delivery is
 * unique, so concurrent redeliveries collapse) and answered 202 at once; the
 * webhook worker processes it.
 */
export function githubWebhookRoutes(ctx: AppContext, onReceived: () => void) {
  const invalidSignature = () =>
    new DomainError({ code: ErrorCode.INVALID_SIGNATURE, error: "Invalid signature", message: "The webhook signature is missing or does not match." });
  // Everything that can be checked without the body is checked before a byte of it is read: a request without a
  // well-formed signature is refused at once, however large (or endless) its body.
  const headersFirst: MiddlewareHandler<AppBindings> = async (c, next) => {
    if (!/^sha256=[0-9a-f]{64}$/.test(c.req.header("x-hub-signature-256") ?? "")) throw invalidSignature();
    const event = c.req.header("x-github-event");
    const deliveryId = c.req.header("x-github-delivery");
    if (!event || !deliveryId || deliveryId.length > 100) {
      throw new DomainError({ code: ErrorCode.INVALID_WEBHOOK, error: "Bad webhook", message: "X-GitHub-Event and X-GitHub-Delivery are required." });
    }
    await next();
  };
  const gate = new BodyGate(GITHUB_WEBHOOK_LARGE_READS);
  return new Hono<AppBindings>().post("/", headersFirst, async (c) => {
    const body = await readSignedBody(c.req.raw, {
      algorithm: "sha256",
      secret: ctx.env.GITHUB_WEBHOOK_SECRET,
      signatureHex: c.req.header("x-hub-signature-256")!.slice("sha256=".length),
      maxBytes: GITHUB_WEBHOOK_MAX_BYTES,
      gate,
      invalid: invalidSignature,
    });
    const event = c.req.header("x-github-event")!;
    const deliveryId = c.req.header("x-github-delivery")!;
    let payload: { action?: unknown; comment?: unknown };
    try {
      payload = JSON.parse(new TextDecoder().decode(body));
      // GitHub's payloads are objects; anything else (an array, a number, null) is not a delivery.
      if (!payload || typeof payload !== "object" || Array.isArray(payload)) throw new Error("not an object");
    } catch {
      throw new DomainError({ code: ErrorCode.MALFORMED_JSON, error: "Malformed JSON", message: "The webhook body is not a JSON object." });
    }
    // The App's own comments (the bot's bounty comments, payout previews and replies: created and edited on every
    // change) command nothing and answer no review (commands.ts, reviews/waits.ts): acknowledged, not stored, so they
    // do not queue beside the merges whose payouts wait for a lane.
    if (event === "issue_comment" && isOwnComment(payload, ctx.env.GITHUB_APP_SLUG)) return c.json({ received: true, duplicate: false }, 202);
    const inserted = await ctx.database.db
      .insert(webhookDeliveries)
      .values({
        source: "github",
        deliveryId,
        event,
        action: typeof payload.action === "string" ? payload.action : null,
        payload: new TextDecoder().decode(body),
      })
      .onConflictDoNothing({ target: [webhookDeliveries.source, webhookDeliveries.deliveryId] })
      .returning({ id: webhookDeliveries.id });
    // A redelivery (same GUID) stays one row; one the worker had given up on (its retry window over) is taken up
    // again, with a new window: an operator's "Redeliver" after a long outage is how it gets paid.
    const revived = inserted.length
      ? []
      : await ctx.database.db
          .update(webhookDeliveries)
          .set({ status: "pending", attempts: 0, nextAttemptAt: new Date(), receivedAt: new Date(), leaseUntil: null })
          .where(and(eq(webhookDeliveries.source, "github"), eq(webhookDeliveries.deliveryId, deliveryId), eq(webhookDeliveries.status, "failed")))
          .returning({ id: webhookDeliveries.id });
    if (inserted.length || revived.length) onReceived();
    return c.json({ received: true, duplicate: inserted.length === 0 }, 202);
  });
}

/** An issue_comment delivery about a comment the App itself wrote. */
function isOwnComment(payload: { comment?: unknown }, appSlug: string): boolean {
  return isAppLogin((payload.comment as { user?: { login?: unknown } } | undefined)?.user?.login, appSlug);
}

export const githubWebhookApi = [
  declareRoute({
    method: "post", path: "/api/webhooks/github", operationId: "receiveGitHubWebhook", tags: ["webhooks"],
    errors: ["invalid_signature", "invalid_webhook", "overloaded"],
    security: [{ githubSignature: [] }],
    summary: "GitHub App deliveries (signed; stored once, processed by a worker)",
    request: {
      headers: z.object({ "X-GitHub-Event": z.string(), "X-GitHub-Delivery": z.string().max(100) }),
      body: { content: { "application/json": { schema: z.record(z.string(), z.unknown()) } }, required: true },
    },
    responses: { 202: json("Stored (or a duplicate of a stored delivery)", z.object({ received: z.literal(true), duplicate: z.boolean() })) },
  }),
];
