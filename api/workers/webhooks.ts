import { and, asc, eq, inArray, isNull, lt, lte, or } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import type { Logger } from "../logger.ts";
import { Periodic } from "./periodic.ts";
import type { BackgroundWorker } from "./ports.ts";

export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
/** What became of a delivery: handled, or not something we act on. */
export type WebhookOutcome = "done" | "ignored";
export type WebhookHandler = (delivery: WebhookDelivery) => Promise<WebhookOutcome>;

/** A delivery being processed is leased this long; a crashed process's delivery is taken up again after it. */
export const WEBHOOK_LEASE_MS = 60_000;
const LEASE_MS = WEBHOOK_LEASE_MS;

/** How a failing delivery is retried: exponential from `baseMs`, at most `maxMs` apart, for `windowMs` after it arrived. */
export interface WebhookRetryPolicy {
  baseMs: number;
  maxMs: number;
  windowMs: number;
}

/** At least 72 hours, so a long GitHub (or chain) outage never loses a payout on merge; a retry at least every 10 minutes. */
export const DEFAULT_WEBHOOK_RETRY: WebhookRetryPolicy = { baseMs: 1_000, maxMs: 10 * 60_000, windowMs: 72 * 3_600_000 };

/** When the delivery that failed its `attempts`-th time is tried again. */
export function nextWebhookAttempt(policy: WebhookRetryPolicy, attempts: number, now: number): number {
  return now + Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
}

/**
 * Processes stored webhook deliveries: one at a time per delivery (leased,
 * so several processes can run it), retried with capped exponential backoff
 * when a handler throws (GitHub down, the chain busy) for as long as the
 * retry window (72 hours by default) after the delivery arrived, then kept
 * as "failed" for review (the GitHub catch-up pass still looks at its issue:
 * api/services/github-events/catch-up.ts). Handlers must be idempotent: a
 * delivery can be retried after a crash. Redeliveries are stored once per
 * delivery id (the route's unique index), so a retry is never a second row.
 */
export class WebhookWorker implements BackgroundWorker {
  private readonly worker = new Periodic(
    () => this.runOnce(),
    (err) => this.deps.log.warn("webhook worker pass failed", { err: (err as Error).message }),
  );

  constructor(
    private readonly deps: {
      db: Database;
      log: Logger;
      handlers: Partial<Record<WebhookDelivery["source"], WebhookHandler>>;
      /** Work that follows from deliveries and is retried on every pass (held bounties of users who registered since). */
      afterPass?: () => Promise<unknown>;
      retry?: WebhookRetryPolicy;
      /** The clock (tests move it instead of waiting). */
      now?: () => number;
    },
  ) {}

  /** Processes every due delivery once; returns how many it took. */
  async runOnce(limit = 20): Promise<number> {
    const { db } = this.deps;
    const now = new Date(this.now());
    const due = await db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        and(
          inArray(webhookDeliveries.status, ["pending", "processing"]),
          inArray(webhookDeliveries.source, Object.keys(this.deps.handlers) as WebhookDelivery["source"][]),
          lte(webhookDeliveries.nextAttemptAt, now),
          or(isNull(webhookDeliveries.leaseUntil), lt(webhookDeliveries.leaseUntil, now)),
        ),
      )
      .orderBy(asc(webhookDeliveries.id))
      .limit(limit);
    for (const { id } of due) await this.process(id);
    await this.deps.afterPass?.();
    return due.length;
  }

  async process(id: number): Promise<void> {
    const { db, log } = this.deps;
    const now = this.now();
    const [delivery] = await db
      .update(webhookDeliveries)
      .set({ status: "processing", leaseUntil: new Date(now + LEASE_MS) })
      .where(
        and(
          eq(webhookDeliveries.id, id),
          inArray(webhookDeliveries.status, ["pending", "processing"]),
          or(isNull(webhookDeliveries.leaseUntil), lt(webhookDeliveries.leaseUntil, new Date(now))),
        ),
      )
      .returning();
    if (!delivery) return;
    const handler = this.deps.handlers[delivery.source];
    try {
      const outcome = handler ? await handler(delivery) : "ignored";
      await db
        .update(webhookDeliveries)
        .set({ status: outcome, processedAt: new Date(), leaseUntil: null, attempts: delivery.attempts + 1, lastError: null })
        .where(eq(webhookDeliveries.id, id));
    } catch (err) {
      const attempts = delivery.attempts + 1;
      const retry = this.deps.retry ?? DEFAULT_WEBHOOK_RETRY;
      const failedAt = this.now();
      const giveUp = failedAt - delivery.receivedAt.getTime() >= retry.windowMs;
      const fields = { id, event: delivery.event, attempts, err: (err as Error).message };
      if (giveUp) log.error("webhook processing given up after its retry window", { ...fields, windowMs: retry.windowMs });
      // A long outage retries a delivery hundreds of times: warn at attempts 1, 2, 4, 8, … and keep the rest for debugging.
      else if ((attempts & (attempts - 1)) === 0) log.warn("webhook processing failed, will retry", fields);
      else log.debug("webhook processing failed, will retry", fields);
      await db
        .update(webhookDeliveries)
        .set({
          status: giveUp ? "failed" : "pending",
          attempts,
          lastError: (err as Error).message.slice(0, 500),
          leaseUntil: null,
          nextAttemptAt: new Date(nextWebhookAttempt(retry, attempts, failedAt)),
        })
        .where(eq(webhookDeliveries.id, id));
    }
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** A delivery arrived: process soon rather than at the next tick. */
  nudge(): void {
    this.worker.nudge();
  }

  start(intervalMs = 1000): void {
    this.worker.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }
}
