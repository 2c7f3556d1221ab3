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
const MAX_ATTEMPTS = 8;

/**
 * Processes stored webhook deliveries: one at a time per delivery (leased,
 * so several processes can run it), retried with exponential backoff when a
 * handler throws (GitHub down, the chain busy), given up after 8 attempts and
 * kept as "failed" for review. Handlers must be idempotent: a delivery can
 * be retried after a crash.
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
    },
  ) {}

  /** Processes every due delivery once; returns how many it took. */
  async runOnce(limit = 20): Promise<number> {
    const { db } = this.deps;
    const now = new Date();
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
    const now = Date.now();
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
      const giveUp = attempts >= MAX_ATTEMPTS;
      log.warn("webhook processing failed", { id, event: delivery.event, attempts, err: (err as Error).message });
      await db
        .update(webhookDeliveries)
        .set({
          status: giveUp ? "failed" : "pending",
          attempts,
          lastError: (err as Error).message.slice(0, 500),
          leaseUntil: null,
          nextAttemptAt: new Date(Date.now() + 1000 * 2 ** Math.min(attempts, 10)),
        })
        .where(eq(webhookDeliveries.id, id));
    }
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
