import { and, asc, eq, inArray, isNull, lt, lte, or } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import {
  bounties,
  bountyEvents,
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
}

export class OutboundWorker implements BackgroundWorker {
  private readonly owner = `outbound-${randomToken(8)}`;
  private readonly loop = new Periodic(
    () => this.runOnce(),
    (err) => this.deps.log.warn("outbound webhook pass failed", { err: (err as Error).message }),
  );

  constructor(private readonly deps: OutboundDeps) {}

  /** Fans out recorded events, then sends what is due; returns how many messages it sent. */
  async runOnce(): Promise<number> {
    await this.fanOut();
    let sent = 0;
    for (;;) {
      const batch = await this.sendDue();
      sent += batch;
      if (batch < 50) return sent;
    }
  }

  /** Events recorded since the last pass become messages; returns how many events it took. */
  async fanOut(limit = 200): Promise<number> {
    const { db } = this.deps;
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

  /** Sends one batch of due messages; returns how many it took. */
  async sendDue(limit = 50): Promise<number> {
    const { db } = this.deps;
    const now = new Date(this.now());
    const due = await db
      .select({ id: outboundMessages.id })
      .from(outboundMessages)
      .where(
        and(
          eq(outboundMessages.status, "pending"),
          lte(outboundMessages.nextAttemptAt, now),
          or(isNull(outboundMessages.leaseUntil), lt(outboundMessages.leaseUntil, now)),
        ),
      )
      .orderBy(asc(outboundMessages.nextAttemptAt))
      .limit(limit);
    const endpoints = new Map<string, Promise<WebhookEndpoint | undefined>>();
    const queue = due.map((d) => d.id);
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) await this.send(id, endpoints);
    };
    await Promise.all(Array.from({ length: Math.min(this.deps.concurrency ?? 8, queue.length) }, worker));
    return due.length;
  }

  private async send(id: number, endpoints: Map<string, Promise<WebhookEndpoint | undefined>>): Promise<void> {
    const { db, log } = this.deps;
    const now = this.now();
    const [message] = await db
      .update(outboundMessages)
      .set({ leaseUntil: new Date(now + OUTBOUND_LEASE_MS) })
      .where(
        and(
          eq(outboundMessages.id, id),
          eq(outboundMessages.status, "pending"),
          or(isNull(outboundMessages.leaseUntil), lt(outboundMessages.leaseUntil, new Date(now))),
        ),
      )
      .returning();
    if (!message) return;
    if (!endpoints.has(message.endpointId)) {
      endpoints.set(
        message.endpointId,
        db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, message.endpointId)).limit(1).then((rows) => rows[0]),
      );
    }
    const endpoint = await endpoints.get(message.endpointId);
    if (!endpoint || endpoint.deletedAt || !endpoint.enabled) {
      await db.update(outboundMessages).set({ status: "failed", leaseUntil: null }).where(eq(outboundMessages.id, id));
      return;
    }
    const secret = await unsealText(this.deps.keyring, endpoint.secretSealed, `webhook-endpoint:${endpoint.id}`);
    const headers = await signedHeaders(secret, message.messageId, message.body, now);
    const result = await guardedPost(new URL(endpoint.url), headers, message.body, {
      allowLoopback: this.deps.allowLoopback,
      timeoutMs: this.deps.timeoutMs,
      resolve: this.deps.resolve,
    });
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const attempts = message.attempts + 1;
    const error = ok ? null : (result.error ?? `answered ${result.statusCode}`);
    await db.insert(outboundAttempts).values({
      messageId: message.id,
      endpointId: endpoint.id,
      at: new Date(now),
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      error: error?.slice(0, 300) ?? null,
    });
    if (ok) {
      await db.update(outboundMessages).set({ status: "delivered", attempts, leaseUntil: null, deliveredAt: new Date(now) }).where(eq(outboundMessages.id, id));
      return;
    }
    const retry = this.deps.retry ?? DEFAULT_OUTBOUND_RETRY;
    const giveUp = this.now() - message.createdAt.getTime() >= retry.windowMs;
    const fields = { endpoint: endpoint.id, message: message.messageId, attempts, err: error };
    if (giveUp) log.warn("outbound webhook given up after its retry window", { ...fields, windowMs: retry.windowMs });
    else if ((attempts & (attempts - 1)) === 0) log.info("outbound webhook failed, will retry", fields);
    await db
      .update(outboundMessages)
      .set({
        status: giveUp ? "failed" : "pending",
        attempts,
        leaseUntil: null,
        nextAttemptAt: new Date(nextWebhookAttempt(retry, attempts, this.now())),
      })
      .where(eq(outboundMessages.id, id));
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
