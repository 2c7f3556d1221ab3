import { declareRoute, json, z } from "../../openapi/declare.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { SIGNATURE_HEADER } from "../../services/onramp/provider.ts";
import { invalidSignature, receiveOnrampWebhook } from "../../services/onramp/webhook.ts";
import { BodyGate, readSignedBody } from "../../middleware/signed-body.ts";
import { receiveSellWebhook } from "../../services/cashout/progress.ts";
import { SELL_EVENT_TYPE } from "../../services/onramp/sell-api.ts";

function isSellEvent(rawBody: string): boolean {
  try {
    return (JSON.parse(rawBody) as { eventType?: unknown }).eventType === SELL_EVENT_TYPE;
  } catch {
    return false;
  }
}

/**
 * POST /api/webhooks/onramp: the on-ramp provider's signed status updates.
 * Authenticated by the body's HMAC (no session, no anti-forgery token); the
 * raw body is hashed while it streams in (api/middleware/signed-body.ts) and
 * refused at its last byte when the HMAC does not match; a missing or
 * malformed signature is refused before a byte is read.
 * 200 { received, outcome } for anything signed and well-formed (also
 * duplicates and unknown orders, so the provider stops retrying them);
 * 401 for a bad signature; 500 asks the provider to retry.
 */
export function onrampWebhookRoutes(ctx: AppContext) {
  const gate = new BodyGate(2);
  return new Hono<AppBindings>().post("/", async (c) => {
    const signature = c.req.header(SIGNATURE_HEADER)?.trim() ?? "";
    if (!/^[0-9a-fA-F]{128}$/.test(signature)) throw invalidSignature();
    const body = await readSignedBody(c.req.raw, { algorithm: "sha512", secret: ctx.env.ONRAMP_APP_SECRET, signatureHex: signature, maxBytes: ctx.env.MAX_BODY_BYTES, gate, invalid: invalidSignature });
    const rawBody = new TextDecoder().decode(body);
    // The sell side's cash-out orders (issue 40) arrive at the same address, told apart by their event type.
    const result = isSellEvent(rawBody)
      ? await receiveSellWebhook(ctx, { rawBody })
      : await receiveOnrampWebhook(ctx, { rawBody, signature: c.req.header(SIGNATURE_HEADER) });
    return c.json({ received: true, ...result });
  });
}

export const onrampWebhookApi = [
  declareRoute({
    method: "post", path: "/api/webhooks/onramp", operationId: "receiveOnrampWebhook", tags: ["webhooks"],
    // A cash-out's delivery takes the order on (its refund sends through the outbox): what that can raise is retried.
    errors: ["already_paid", "chain_unavailable", "idempotency_conflict", "insufficient_balance", "insufficient_gas", "invalid_address", "invalid_amount", "invalid_currency", "invalid_signature", "kyc_pending", "kyc_rejected", "kyc_required", "overloaded", "provider_refused", "provider_unavailable", "quote_expired", "transaction_failed", "validation_failed", "wallet_required"],
    security: [{ onrampSignature: [] }],
    summary: "The on-ramp provider's signed order updates",
    request: { body: { content: { "application/json": { schema: z.record(z.string(), z.unknown()) } }, required: true } },
    responses: {
      200: json("Received (also duplicates and unknown orders, so the provider stops retrying)", z.object({
        received: z.literal(true), outcome: z.enum(["processed", "duplicate", "unmatched", "ignored"]), deliveryId: z.string().optional(),
      })),
    },
  }),
];
