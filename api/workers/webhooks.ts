import { and, asc, eq, gt, inArray, isNull, lt, lte, notInArray, or } from "drizzle-orm";
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
/** A pass stops taking new deliveries after this many or this long, so the after-pass work is never put off for long. */
const PASS_MAX_DELIVERIES = 200;
const PASS_MAX_MS = 5_000;
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
    "webhooks",
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
      /** What a handler's failure waits on ("github" when GitHub did not answer), so its retry comes when that answers. */
      waitingOn?: (err: unknown) => string | null;
    },
  ) {}

  /**
   * Processes the due deliveries, and those that come due while it runs (looked for each time one finishes or one
   * arrives, so a merge that arrives mid-pass does not wait for the pass's slowest delivery), up to PASS_MAX_DELIVERIES or
   * PASS_MAX_MS; then the after-pass work. Returns how many it took.
   */
  async runOnce(limit = 20): Promise<number> {
    const lanes = new LaneRunner(Math.max(1, this.deps.concurrency ?? WEBHOOK_CONCURRENCY), (id) => this.process(id), this.deps.log);
    // A delivery that arrives meanwhile (nudge) makes the pass look again at once.
    this.duringPass = () => lanes.wakeUp();
    try {
      return await this.passInLanes(lanes, limit);
    } finally {
      this.duringPass = undefined;
    }
  }

  private duringPass?: () => void;

  private async passInLanes(lanes: LaneRunner, limit: number): Promise<number> {
    const seen = new Set<number>();
    const started = Date.now();
    for (;;) {
      const taking = seen.size < PASS_MAX_DELIVERIES && Date.now() - started < PASS_MAX_MS;
      const due = taking ? await this.due(limit, seen) : [];
      for (const delivery of due) {
        seen.add(delivery.id);
        lanes.add(delivery);
      }
      if (!lanes.active) break;
      if (!taking) {
        await lanes.settled();
        break;
      }
      await lanes.nextSettled();
    }
    await this.deps.afterPass?.();
    return seen.size;
  }

  private due(limit: number, seen: Set<number>): Promise<Pick<WebhookDelivery, "id" | "source" | "event" | "payload">[]> {
    const now = new Date(this.now());
    return this.deps.db
      .select({ id: webhookDeliveries.id, source: webhookDeliveries.source, event: webhookDeliveries.event, payload: webhookDeliveries.payload })
      .from(webhookDeliveries)
      .where(
        and(
          inArray(webhookDeliveries.status, ["pending", "processing"]),
          inArray(webhookDeliveries.source, Object.keys(this.deps.handlers) as WebhookDelivery["source"][]),
          lte(webhookDeliveries.nextAttemptAt, now),
          or(isNull(webhookDeliveries.leaseUntil), lt(webhookDeliveries.leaseUntil, now)),
          // Taken by this pass already (waiting in a lane, or finished with a retry not due yet).
          seen.size ? notInArray(webhookDeliveries.id, [...seen]) : undefined,
        ),
      )
      .orderBy(asc(webhookDeliveries.id))
      .limit(limit);
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
        .set({ status: outcome, processedAt: new Date(), leaseUntil: null, attempts: delivery.attempts + 1, lastError: null, waitingOn: null })
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
          waitingOn: this.deps.waitingOn?.(err) ?? null,
          leaseUntil: null,
          nextAttemptAt: new Date(nextWebhookAttempt(retry, attempts, failedAt)),
        })
        .where(eq(webhookDeliveries.id, id));
    }
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /**
   * What the deliveries waiting on `what` waited for answers again (GitHub is back): they are due now rather than at
   * their backoff slot, up to ten minutes away (issue 37, item 6). Returns how many.
   */
  async retryWaitingOn(what: string): Promise<number> {
    const now = new Date(this.now());
    const due = await this.deps.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: now })
      .where(and(eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.waitingOn, what), gt(webhookDeliveries.nextAttemptAt, now)))
      .returning({ id: webhookDeliveries.id });
    if (due.length) {
      this.deps.log.info("what the deliveries waited on answers again: retried now", { waitingOn: what, deliveries: due.length });
      this.nudge();
    }
    return due.length;
  }

  /** Whether a delivery waits on `what` now (a cheap check before probing it). */
  async anyWaitingOn(what: string): Promise<boolean> {
    const [row] = await this.deps.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.waitingOn, what), gt(webhookDeliveries.nextAttemptAt, new Date(this.now()))))
      .limit(1);
    return row !== undefined;
  }

  /** A delivery arrived: process soon rather than at the next tick (in the pass running now, if there is one). */
  nudge(): void {
    this.duringPass?.();
    this.worker.nudge();
  }

  start(intervalMs = 1000): void {
    this.worker.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }
}

/**
 * Runs deliveries in their lanes (webhookLanes): each starts once the earlier
 * ones that share a lane with it have finished (a lane-less one once all
 * earlier ones have, and all later ones wait for it), at most `size` at once.
 * A delivery after one whose processing threw (the database, not its handler:
 * a handler's failure is recorded as a retry) waits for the next pass.
 */
class LaneRunner {
  private readonly slots: Slots;
  private readonly lastInLane = new Map<string, Promise<boolean>>();
  private barrier: Promise<boolean> = Promise.resolve(true);
  private readonly all: Promise<boolean>[] = [];
  /** Added and not finished yet. */
  active = 0;
  private wake?: () => void;

  constructor(
    size: number,
    private readonly process: (id: number) => Promise<void>,
    private readonly log: Logger,
  ) {
    this.slots = new Slots(size);
  }

  add(delivery: Pick<WebhookDelivery, "id" | "source" | "event" | "payload">): void {
    const lanes = webhookLanes(delivery);
    const after = lanes ? [this.barrier, ...lanes.flatMap((lane) => this.lastInLane.get(lane) ?? [])] : [...this.all];
    this.active++;
    const run = Promise.all(after)
      .then(async (earlier) => {
        if (earlier.includes(false)) return false;
        return this.slots.run(() => this.process(delivery.id)).then(
          () => true,
          (err) => {
            this.log.warn("webhook delivery not processed; retried on the next pass", { id: delivery.id, err: (err as Error).message });
            return false;
          },
        );
      })
      .finally(() => {
        this.active--;
        this.wake?.();
      });
    if (lanes) for (const lane of lanes) this.lastInLane.set(lane, run);
    else {
      this.barrier = run;
      this.lastInLane.clear();
    }
    this.all.push(run);
  }

  /** Ends a `nextSettled` wait now (new deliveries to look for). */
  wakeUp(): void {
    this.wake?.();
  }

  /** Resolves when the next added delivery finishes, or on `wakeUp` (at once when none is running). */
  nextSettled(): Promise<void> {
    if (!this.active) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve();
      };
    });
  }

  async settled(): Promise<void> {
    await Promise.all(this.all);
  }
}
