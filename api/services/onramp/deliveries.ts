/**
 * The on-ramp provider's signed webhooks, buying (webhook.ts) and selling (cash-outs: ../cashout/progress.ts),
 * received the same way: the body read as JSON against its schema, stored once per delivery id, taken by one
 * process at a time (a lease, so a crashed taker's delivery is taken again), applied, and its outcome recorded. A
 * failure leaves it "failed" and rethrows: the route answers 500 and the provider's retry applies it again (every
 * step of an application is idempotent).
 */
import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { z } from "zod";
import type { AppContext } from "../../context.ts";
import { webhookDeliveries } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";

export type WebhookOutcome = "processed" | "duplicate" | "unmatched" | "ignored";
export type Applied = { outcome: Exclude<WebhookOutcome, "duplicate">; note?: string };

/** How long a taker holds a delivery before another process may take it again. */
const DELIVERY_LEASE_MS = 60_000;

/** The body as JSON, checked against `schema` (malformed_json, validation_failed). */
export function parseWebhookBody<T>(rawBody: string, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    throw new DomainError({ code: ErrorCode.MALFORMED_JSON, error: "Malformed JSON", message: "The request body is not valid JSON." });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new DomainError({ code: ErrorCode.VALIDATION_FAILED, error: "Invalid input", message: `${first?.path.join(".") ?? "body"}: ${first?.message ?? "invalid"}` });
  }
  return parsed.data;
}

/** Stores the delivery once, takes it unless another process holds it or it was applied, applies it, records the outcome. */
export async function processOnrampDelivery(
  ctx: Pick<AppContext, "database" | "log">,
  delivery: { deliveryId: string; event: string; action: string; rawBody: string; now: number; label: string },
  apply: () => Promise<Applied>,
): Promise<{ outcome: WebhookOutcome; deliveryId: string }> {
  const { deliveryId, now } = delivery;
  const db = ctx.database.db;
  await db.insert(webhookDeliveries).values({ source: "onramp", deliveryId, event: delivery.event, action: delivery.action, payload: delivery.rawBody }).onConflictDoNothing();
  const [claimed] = await db
    .update(webhookDeliveries)
    .set({ status: "processing", leaseUntil: new Date(now + DELIVERY_LEASE_MS), attempts: sql`${webhookDeliveries.attempts} + 1` })
    .where(
      and(
        eq(webhookDeliveries.source, "onramp"),
        eq(webhookDeliveries.deliveryId, deliveryId),
        or(
          inArray(webhookDeliveries.status, ["pending", "failed"]),
          and(eq(webhookDeliveries.status, "processing"), or(isNull(webhookDeliveries.leaseUntil), lt(webhookDeliveries.leaseUntil, new Date(now)))),
        ),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  if (!claimed) return { outcome: "duplicate", deliveryId };
  try {
    const result = await apply();
    await db
      .update(webhookDeliveries)
      .set({ status: result.outcome === "processed" ? "done" : result.outcome, lastError: result.note ?? null, leaseUntil: null, processedAt: new Date() })
      .where(eq(webhookDeliveries.id, claimed.id));
    if (result.outcome !== "processed") ctx.log.warn(`${delivery.label} not applied`, { deliveryId, outcome: result.outcome, note: result.note });
    return { outcome: result.outcome, deliveryId };
  } catch (err) {
    await db
      .update(webhookDeliveries)
      .set({ status: "failed", lastError: (err as Error).message?.slice(0, 500) ?? "failed", leaseUntil: null })
      .where(eq(webhookDeliveries.id, claimed.id));
    throw err;
  }
}
