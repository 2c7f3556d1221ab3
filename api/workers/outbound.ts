import { and, asc, eq, inArray, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import {
  bounties,
  bountyEvents,
  chainTransactions,
  webhookDeliveries,
  outboundAttempts,
  outboundMessages,
  repositories,
  users,
  wallets,
  webhookEndpoints,
  type BountyEvent,
  type OutboundMessage,
  type WebhookEndpoint,
} from "../../db/schema/index.ts";
import type { Keyring } from "../crypto/keyring.ts";
import { unsealText } from "../crypto/envelope.ts";
import { randomToken } from "../crypto/tokens.ts";
import type { Logger } from "../logger.ts";
import { guardedPost, type Resolve } from "../services/notify/address-guard.ts";
import { bodyFor, type EventContext } from "../services/notify/messages.ts";
import { signedHeaders } from "../services/notify/signing.ts";
import { releaseLease, takeLease } from "./lease.ts";
import { Periodic } from "./periodic.ts";
import type { BackgroundWorker } from "./ports.ts";
import { nextWebhookAttempt, type WebhookRetryPolicy } from "./webhooks.ts";

/**
 * Outbound webhooks to integrators (issue 30; docs/webhooks.md), in two durable steps, never from a request:
 *
 *   bounty_events (fanned_out_at null) --fan-out--> outbound_messages (pending) --send--> delivered | failed
 *
 * Fan-out turns each recorded event into one message per endpoint that wants it, body fixed, in one transaction
 * with marking the event done (one process at a time, under the `outbound-fanout` lease; the unique index on
 * endpoint + event makes a repeat harmless). Sending leases each message (`lease_until`), signs it afresh
 * (Standard Webhooks), POSTs through the address guard (public addresses only, checked on the address the
 * connection uses), logs the attempt, and on anything but a 2xx retries with capped exponential backoff until
 * the retry window (24 h by default) after the message was made, then gives up ("failed"). A crashed process's
 * message is taken up again when its lease runs out: receivers deduplicate on `webhook-id`.
 */
export const OUTBOUND_LEASE_MS = 60_000;
const FANOUT_LEASE = "outbound-fanout";
/** How long the delivery log, finished messages and fanned-out events are kept. */
export const OUTBOUND_RETENTION_MS = 30 * 86_400_000;
/** Messages leased, sent and recorded together: small, so a payout that starts meanwhile waits for little. */
const BATCH = 25;

export const DEFAULT_OUTBOUND_RETRY: WebhookRetryPolicy = { baseMs: 5_000, maxMs: 3_600_000, windowMs: 24 * 3_600_000 };

export interface OutboundDeps {
  db: Database;
  keyring: Keyring;
  log: Logger;
  publicUrl: string;
  githubUrl: string;
  allowLoopback: boolean;
  timeoutMs: number;
  retry?: WebhookRetryPolicy;
  /** Messages sent at once. */
  concurrency?: number;
  /** The clock (tests move it instead of waiting). */
  now?: () => number;
  /** DNS (tests answer with private addresses to check the rebinding guard). */
  resolve?: Resolve;
  /**
   * Whether money is moving now (payouts in the outbox, GitHub deliveries not yet processed): sending waits while
   * it is, up to `maxDeferMs` per pass, so deliveries never compete with a payout for the process and the
   * database (issue 30: fan-out never delays a payout). Absent: never waits.
   */
  paymentsInFlight?: () => Promise<boolean>;
  maxDeferMs?: number;
}

/** Payouts on their way: outbox transactions not yet mined, GitHub deliveries (merges) not yet processed. Two index lookups. */
export async function moneyInFlight(db: Database): Promise<boolean> {
  const [tx] = await db.select({ id: chainTransactions.id }).from(chainTransactions).where(inArray(chainTransactions.status, ["queued", "signed", "sent"])).limit(1);
  if (tx) return true;
  const [delivery] = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.status, ["pending", "processing"]), lte(webhookDeliveries.nextAttemptAt, new Date())))
    .limit(1);
  return Boolean(delivery);
}

export class OutboundWorker implements BackgroundWorker {
  private readonly owner = `outbound-${randomToken(8)}`;
  private readonly loop = new Periodic(
    "outbound",
    () => this.runOnce(),
    (err) => this.deps.log.warn("outbound webhook pass failed", { err: (err as Error).message }),
  );

  constructor(private readonly deps: OutboundDeps) {}

  /** Fans out recorded events, then sends what is due; returns how many messages it sent. */
  async runOnce(): Promise<number> {
    if (this.now() - this.prunedAt >= 3_600_000) await this.prune();
    const deferUntil = Date.now() + (this.deps.maxDeferMs ?? 5_000);
    const yieldToPayments = async () => {
      while (this.deps.paymentsInFlight && Date.now() < deferUntil && (await this.deps.paymentsInFlight())) await Bun.sleep(50);
    };
    // Reads first: an idle pass (most of them: one a second) writes nothing and does not wait for payments.
    if (await this.eventsWaiting()) {
      await yieldToPayments();
      await this.fanOut();
    }
    let sent = 0;
    for (;;) {
      if (!(await this.messagesDue())) return sent;
      await yieldToPayments();
      const batch = await this.sendDue();
      sent += batch;
      if (batch < BATCH) return sent;
    }
  }

  private prunedAt = 0;

  /** The log, finished messages and fanned-out events older than the retention go (hourly): the tables stay small. */
  async prune(retentionMs = OUTBOUND_RETENTION_MS): Promise<void> {
    const { db } = this.deps;
    const now = this.now();
    this.prunedAt = now;
    const before = new Date(now - retentionMs);
    await db.delete(outboundAttempts).where(lt(outboundAttempts.at, before));
    await db.delete(outboundMessages).where(and(inArray(outboundMessages.status, ["delivered", "failed"]), lt(outboundMessages.createdAt, before)));
    await db.delete(bountyEvents).where(and(isNotNull(bountyEvents.fannedOutAt), lt(bountyEvents.fannedOutAt, before)));
  }

  private async eventsWaiting(): Promise<boolean> {
    const [event] = await this.deps.db.select({ id: bountyEvents.id }).from(bountyEvents).where(isNull(bountyEvents.fannedOutAt)).limit(1);
    return Boolean(event);
  }

  private async messagesDue(): Promise<boolean> {
    const now = new Date(this.now());
    const [message] = await this.deps.db
      .select({ id: outboundMessages.id })
      .from(outboundMessages)
      .where(and(eq(outboundMessages.status, "pending"), lte(outboundMessages.nextAttemptAt, now), or(isNull(outboundMessages.leaseUntil), lt(outboundMessages.leaseUntil, now))))
      .limit(1);
    return Boolean(message);
  }

  /**
   * Events recorded since the last pass become messages; returns how many events it took. The lease (a durable
   * write, and its release another) is taken only when an event waits.
   */
  async fanOut(limit = 200): Promise<number> {
    const { db } = this.deps;
    if (!(await this.eventsWaiting())) return 0;
    if (!(await takeLease(db, FANOUT_LEASE, this.owner, OUTBOUND_LEASE_MS, this.now()))) return 0;
    try {
      const events = await db.select().from(bountyEvents).where(isNull(bountyEvents.fannedOutAt)).orderBy(asc(bountyEvents.id)).limit(limit);
      for (const event of events) await this.fanOutOne(event);
      return events.length;
    } finally {
      // Held for the pass only: another process takes over at its next pass if this one stops.
      await releaseLease(db, FANOUT_LEASE, this.owner);
    }
  }

  private async fanOutOne(event: BountyEvent): Promise<void> {
    const { db } = this.deps;
    const [repository] = await db.select().from(repositories).where(eq(repositories.githubRepoId, event.githubRepoId)).limit(1);
    const contributor = await this.contributorOf(event);
    const owners = [repository?.registeredByUserId, contributor?.id].filter((id): id is number => typeof id === "number");
    const endpoints = repository
      ? await db
          .select()
          .from(webhookEndpoints)
          .where(
            and(
              eq(webhookEndpoints.enabled, true),
              isNull(webhookEndpoints.deletedAt),
              or(
                eq(webhookEndpoints.githubRepoId, event.githubRepoId),
                owners.length ? and(isNull(webhookEndpoints.githubRepoId), inArray(webhookEndpoints.userId, owners)) : undefined,
              ),
            ),
          )
      : [];
    const wanted = endpoints.filter((e) => (JSON.parse(e.events) as string[]).includes(event.type));
    const now = this.now();
    const rows: (typeof outboundMessages.$inferInsert)[] = [];
    if (wanted.length && repository) {
      const [bounty] = await db
        .select({ title: bounties.issueTitle, url: bounties.issueUrl })
        .from(bounties)
        .where(and(eq(bounties.githubRepoId, event.githubRepoId), eq(bounties.issueNumber, event.issueNumber)))
        .limit(1);
      const repoUrl = `${this.deps.githubUrl}/${repository.fullName}`;
      const context: EventContext = {
        repository: { id: repository.githubRepoId, fullName: repository.fullName, url: repoUrl },
        issue: { number: event.issueNumber, title: bounty?.title ?? null, url: bounty?.url ?? `${repoUrl}/issues/${event.issueNumber}` },
        contributorLogin: contributor?.username ?? null,
        pageUrl: `${this.deps.publicUrl}/${repository.fullName}`,
      };
      const bodies = new Map<string, string>();
      for (const endpoint of wanted) {
        const body = bodies.get(endpoint.kind) ?? bodyFor(endpoint.kind, event, context);
        bodies.set(endpoint.kind, body);
        rows.push({
          messageId: `msg_${randomToken(16)}`,
          endpointId: endpoint.id,
          eventId: event.id,
          type: event.type,
          body,
          nextAttemptAt: new Date(now),
          createdAt: new Date(now),
        });
      }
    }
    await db.transaction(async (tx) => {
      for (let i = 0; i < rows.length; i += 100) await tx.insert(outboundMessages).values(rows.slice(i, i + 100)).onConflictDoNothing();
      await tx.update(bountyEvents).set({ fannedOutAt: new Date(now) }).where(eq(bountyEvents.id, event.id));
    });
  }

  /** The contributor an event is about: the claimant, or the owner of the wallet a payout went to. */
  private async contributorOf(event: BountyEvent): Promise<{ id: number; username: string } | undefined> {
    const { db } = this.deps;
    if (event.userId !== null) {
      const [user] = await db.select({ id: users.id, username: users.username }).from(users).where(eq(users.id, event.userId)).limit(1);
      return user;
    }
    const address = (JSON.parse(event.data) as { contributor?: unknown }).contributor;
    if (typeof address !== "string") return undefined;
    const [user] = await db
      .select({ id: users.id, username: users.username })
      .from(wallets)
      .innerJoin(users, eq(users.id, wallets.userId))
      .where(eq(wallets.address, address))
      .limit(1);
    return user;
  }

  /**
   * Sends one batch of due messages; returns how many it took. The batch is leased in one statement and its
   * outcomes (the log's attempts, delivered, retry times) written in one transaction: a few writes per batch
   * rather than three per message, so a fan-out to a thousand endpoints leaves the database to the payouts.
   */
  async sendDue(limit = BATCH): Promise<number> {
    const { db } = this.deps;
    const now = this.now();
    const due = await db
      .select({ id: outboundMessages.id })
      .from(outboundMessages)
      .where(
        and(
          eq(outboundMessages.status, "pending"),
          lte(outboundMessages.nextAttemptAt, new Date(now)),
          or(isNull(outboundMessages.leaseUntil), lt(outboundMessages.leaseUntil, new Date(now))),
        ),
      )
      .orderBy(asc(outboundMessages.nextAttemptAt))
      .limit(limit);
    if (!due.length) return 0;
    const leased = await db
      .update(outboundMessages)
      .set({ leaseUntil: new Date(now + OUTBOUND_LEASE_MS) })
      .where(
        and(
          inArray(outboundMessages.id, due.map((d) => d.id)),
          eq(outboundMessages.status, "pending"),
          or(isNull(outboundMessages.leaseUntil), lt(outboundMessages.leaseUntil, new Date(now))),
        ),
      )
      .returning();
    const endpointIds = [...new Set(leased.map((m) => m.endpointId))];
    const endpoints = new Map(
      (endpointIds.length ? await db.select().from(webhookEndpoints).where(inArray(webhookEndpoints.id, endpointIds)) : []).map((e) => [e.id, e]),
    );
    const results: { message: OutboundMessage; endpoint?: WebhookEndpoint; statusCode: number | null; latencyMs: number; error: string | null; ok: boolean }[] = [];
    const queue = [...leased];
    const worker = async () => {
      for (let message = queue.shift(); message; message = queue.shift()) {
        const endpoint = endpoints.get(message.endpointId);
        if (!endpoint || endpoint.deletedAt || !endpoint.enabled) {
          results.push({ message, statusCode: null, latencyMs: 0, error: null, ok: false });
          continue;
        }
        results.push({ message, endpoint, ...(await this.post(message, endpoint)) });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deps.concurrency ?? 16, queue.length) }, worker));
    await this.record(results);
    return leased.length;
  }

  private async post(message: OutboundMessage, endpoint: WebhookEndpoint) {
    const secret = await this.secretOf(endpoint);
    const headers = await signedHeaders(secret, message.messageId, message.body, this.now());
    const result = await guardedPost(new URL(endpoint.url), headers, message.body, {
      allowLoopback: this.deps.allowLoopback,
      timeoutMs: this.deps.timeoutMs,
      resolve: this.deps.resolve,
    });
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    return { statusCode: result.statusCode, latencyMs: result.latencyMs, ok, error: ok ? null : (result.error ?? `answered ${result.statusCode}`) };
  }

  /** Unsealed secrets, kept for a minute (a fan-out signs hundreds of messages per endpoint set). */
  private readonly secrets = new Map<string, { sealed: string; secret: string; until: number }>();
  private async secretOf(endpoint: WebhookEndpoint): Promise<string> {
    const cached = this.secrets.get(endpoint.id);
    if (cached && cached.sealed === endpoint.secretSealed && cached.until > Date.now()) return cached.secret;
    const secret = await unsealText(this.deps.keyring, endpoint.secretSealed, `webhook-endpoint:${endpoint.id}`);
    if (this.secrets.size > 10_000) this.secrets.clear();
    this.secrets.set(endpoint.id, { sealed: endpoint.secretSealed, secret, until: Date.now() + 60_000 });
    return secret;
  }

  private async record(results: { message: OutboundMessage; endpoint?: WebhookEndpoint; statusCode: number | null; latencyMs: number; error: string | null; ok: boolean }[]): Promise<void> {
    const { db, log } = this.deps;
    const now = this.now();
    const retry = this.deps.retry ?? DEFAULT_OUTBOUND_RETRY;
    await db.transaction(async (tx) => {
      const attempts = results
        .filter((r) => r.endpoint)
        .map((r) => ({ messageId: r.message.id, endpointId: r.message.endpointId, at: new Date(now), statusCode: r.statusCode, latencyMs: r.latencyMs, error: r.error?.slice(0, 300) ?? null }));
      for (let i = 0; i < attempts.length; i += 100) await tx.insert(outboundAttempts).values(attempts.slice(i, i + 100));
      const deliveredIds = results.filter((r) => r.ok).map((r) => r.message.id);
      if (deliveredIds.length) {
        await tx
          .update(outboundMessages)
          .set({ status: "delivered", attempts: sql`${outboundMessages.attempts} + 1`, leaseUntil: null, deliveredAt: new Date(now) })
          .where(inArray(outboundMessages.id, deliveredIds));
      }
      // Messages of endpoints deleted or paused since they were made are dropped, not retried.
      const droppedIds = results.filter((r) => !r.endpoint).map((r) => r.message.id);
      if (droppedIds.length) await tx.update(outboundMessages).set({ status: "failed", leaseUntil: null }).where(inArray(outboundMessages.id, droppedIds));
      for (const r of results) {
        if (r.ok || !r.endpoint) continue;
        const attempts = r.message.attempts + 1;
        const giveUp = now - r.message.createdAt.getTime() >= retry.windowMs;
        const fields = { endpoint: r.message.endpointId, message: r.message.messageId, attempts, err: r.error };
        if (giveUp) log.warn("outbound webhook given up after its retry window", { ...fields, windowMs: retry.windowMs });
        else if ((attempts & (attempts - 1)) === 0) log.info("outbound webhook failed, will retry", fields);
        await tx
          .update(outboundMessages)
          .set({ status: giveUp ? "failed" : "pending", attempts, leaseUntil: null, nextAttemptAt: new Date(nextWebhookAttempt(retry, attempts, now)) })
          .where(eq(outboundMessages.id, r.message.id));
      }
    });
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  nudge(): void {
    this.loop.nudge();
  }

  start(intervalMs = 1000): void {
    this.loop.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}

export type { OutboundMessage };
