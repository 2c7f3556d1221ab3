import { and, asc, eq, inArray, isNull, lt, lte, or } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import type { Logger } from "../logger.ts";
import { Periodic } from "./periodic.ts";
import { Slots } from "./slots.ts";
import type { BackgroundWorker } from "./ports.ts";

export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
/** What became of a delivery: handled, or not something we act on. */
export type WebhookOutcome = "done" | "ignored";
export type WebhookHandler = (delivery: WebhookDelivery) => Promise<WebhookOutcome>;

/** Deliveries processed side by side in one pass (each in its lanes' order). */
export const WEBHOOK_CONCURRENCY = 8;
/** More `#N` than this in a pull request's text: it runs alone rather than hold that many lanes. */
const MAX_REFERENCES = 50;

/**
 * The lanes a delivery must keep its order in: `<repo>#<number>` for the
 * issue or pull request it is about, plus, for a pull request, every `#N`
 * its title and description mention (the issues it closes are among them
 * when written with a keyword, so a merge and the closing of its issue keep
 * their order; more lanes than needed only cost concurrency). `undefined`
 * when the delivery is not about one issue (installations, repositories,
 * memberships, other sources) or cannot be read: it then runs alone, after
 * every earlier delivery of the pass and before every later one.
 */
export function webhookLanes(delivery: Pick<WebhookDelivery, "source" | "event" | "payload">): string[] | undefined {
  if (delivery.source !== "github") return undefined;
  let payload: { repository?: { id?: unknown }; issue?: { number?: unknown }; pull_request?: { number?: unknown; title?: unknown; body?: unknown } };
  try {
    payload = JSON.parse(delivery.payload);
  } catch {
    return undefined;
  }
  const repoId = payload?.repository?.id;
  if (typeof repoId !== "number") return undefined;
  const lane = (n: number) => `${repoId}#${n}`;
  if ((delivery.event === "issues" || delivery.event === "issue_comment") && typeof payload.issue?.number === "number") return [lane(payload.issue.number)];
  if (delivery.event === "pull_request" && typeof payload.pull_request?.number === "number") {
    const text = [payload.pull_request.title, payload.pull_request.body].filter((x): x is string => typeof x === "string").join("\n");
    const mentioned = [...text.matchAll(/#(\d{1,9})\b/g)].map((m) => Number(m[1]));
    if (mentioned.length > MAX_REFERENCES) return undefined;
    return [...new Set([payload.pull_request.number, ...mentioned])].map(lane);
  }
  return undefined;
}

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
 * Processes stored webhook deliveries: each leased while processed (so
 * several processes can run it), retried with capped exponential backoff
 * when a handler throws (GitHub down, the chain busy) for as long as the
 * retry window (72 hours by default) after the delivery arrived, then kept
 * as "failed" for review (the GitHub catch-up pass still looks at its issue:
 * api/services/github-events/catch-up.ts). Handlers must be idempotent: a
 * delivery can be retried after a crash. Redeliveries are stored once per
 * delivery id (the route's unique index), so a retry is never a second row.
 *
 * Within a pass, deliveries about different issues go side by side (at most
 * `concurrency` at once; a merge's webhook asks GitHub and the chain for
 * 100 ms or more, and 20 merges at once queued behind each other), while
 * those about the same issue or pull request keep their order of arrival
 * (closed as not planned, then merged, is not merged, then closed): see
 * `webhookLanes`. A delivery whose lanes cannot be told runs alone. This is
 * the order one process keeps; handlers stay safe when deliveries of one
 * issue do meet (another process, a retry after a failure), as they were.
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
      /** Deliveries processed side by side (default WEBHOOK_CONCURRENCY; 1: one after another). */
      concurrency?: number;
      /** The clock (tests move it instead of waiting). */
      now?: () => number;
    },
  ) {}

  /** Processes every due delivery once; returns how many it took. */
  async runOnce(limit = 20): Promise<number> {
    const { db } = this.deps;
    const now = new Date(this.now());
    const due = await db
      .select({ id: webhookDeliveries.id, source: webhookDeliveries.source, event: webhookDeliveries.event, payload: webhookDeliveries.payload })
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
    await this.processInLanes(due);
    await this.deps.afterPass?.();
    return due.length;
  }

  /**
   * Each delivery starts once the earlier ones that share a lane with it have
   * finished (a lane-less one once all earlier ones have, and all later ones
   * wait for it), at most `concurrency` at once. A delivery after one whose
   * processing threw (the database, not its handler: a handler's failure is
   * recorded as a retry) waits for the next pass.
   */
  private async processInLanes(due: Pick<WebhookDelivery, "id" | "source" | "event" | "payload">[]): Promise<void> {
    const slots = new Slots(Math.max(1, this.deps.concurrency ?? WEBHOOK_CONCURRENCY));
    const lastInLane = new Map<string, Promise<boolean>>();
    let barrier: Promise<boolean> = Promise.resolve(true);
    const all: Promise<boolean>[] = [];
    for (const delivery of due) {
      const lanes = webhookLanes(delivery);
      const after = lanes ? [barrier, ...lanes.flatMap((lane) => lastInLane.get(lane) ?? [])] : [...all];
      const run = Promise.all(after).then(async (earlier) => {
        if (earlier.includes(false)) return false;
        return slots.run(() => this.process(delivery.id)).then(
          () => true,
          (err) => {
            this.deps.log.warn("webhook delivery not processed; retried on the next pass", { id: delivery.id, err: (err as Error).message });
            return false;
          },
        );
      });
      if (lanes) for (const lane of lanes) lastInLane.set(lane, run);
      else {
        barrier = run;
        lastInLane.clear();
      }
      all.push(run);
    }
    await Promise.all(all);
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
