import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * Alerts (issue 30, item 5): what happened to bounties, told to integrators
 * (outbound webhooks) and to contributors (saved searches with a daily
 * digest). The paths that move money only insert an event row here; fan-out
 * and delivery are durable jobs on the lease pattern (api/workers/outbound.ts,
 * api/workers/digest.ts), so a thousand endpoints never slow a payout.
 */
export const BOUNTY_EVENT_TYPES = [
  "bounty.created",
  "bounty.boosted",
  "bounty.claimed",
  "bounty.awaiting_decision",
  "bounty.paid",
  "bounty.refunded",
] as const;
export type BountyEventType = (typeof BOUNTY_EVENT_TYPES)[number];

/** One thing that happened to a bounty, recorded once (`eventKey`), fanned out to endpoints by the outbound worker. */
export const bountyEvents = sqliteTable(
  "bounty_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** What makes it one event: `chain:<tx>:<log index>`, `claim:<repo>:<issue>:<user>`, ... (a replay records nothing). */
    eventKey: text("event_key").notNull(),
    type: text("type", { enum: BOUNTY_EVENT_TYPES }).notNull(),
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    /** The contributor it concerns, when known (account endpoints of contributors receive it). */
    userId: integer("user_id"),
    /** Facts of the event (amount as a decimal string in the smallest unit, transaction, ...), JSON. */
    data: text("data").notNull(),
    occurredAt: timestamp("occurred_at").notNull().default(sql`(unixepoch() * 1000)`),
    /** Set once its deliveries exist; the outbound worker picks the rows still null. */
    fannedOutAt: timestamp("fanned_out_at"),
  },
  (t) => [
    uniqueIndex("bounty_events_key_idx").on(t.eventKey),
    index("bounty_events_pending_idx").on(t.fannedOutAt, t.id),
    index("bounty_events_repo_idx").on(t.githubRepoId, t.id),
  ],
);
export type BountyEvent = typeof bountyEvents.$inferSelect;

export const ENDPOINT_KINDS = ["standard", "slack", "discord"] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];

/**
 * Where an integrator wants events: per repository (its pool managers) or per account (the repositories the user
 * registered, and the events about the user as a contributor). The Standard Webhooks secret is sealed (the keyring):
 * the server must sign with it, so it is not a hash; it is shown once, when created or rotated.
 */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    /** null: the account's endpoint. */
    githubRepoId: integer("github_repo_id"),
    kind: text("kind", { enum: ENDPOINT_KINDS }).notNull(),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    /** JSON array of event types. */
    events: text("events").notNull(),
    secretSealed: text("secret_sealed").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    deletedAt: timestamp("deleted_at"),
  },
  (t) => [index("webhook_endpoints_user_idx").on(t.userId), index("webhook_endpoints_repo_idx").on(t.githubRepoId)],
);
export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;

export const OUTBOUND_STATUSES = ["pending", "delivered", "failed"] as const;

/**
 * One message to one endpoint, with its body fixed at fan-out (a retry sends the same bytes, the same
 * `webhook-id`). Leased while being sent; retried with backoff for the retry window, then failed.
 */
export const outboundMessages = sqliteTable(
  "outbound_messages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The `webhook-id` header: the same on every retry, so receivers deduplicate. */
    messageId: text("message_id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    /** null: a test event. */
    eventId: integer("event_id"),
    type: text("type").notNull(),
    body: text("body").notNull(),
    status: text("status", { enum: OUTBOUND_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at").notNull(),
    leaseUntil: timestamp("lease_until"),
    createdAt: timestamp("created_at").notNull(),
    deliveredAt: timestamp("delivered_at"),
  },
  (t) => [
    uniqueIndex("outbound_messages_endpoint_event_idx").on(t.endpointId, t.eventId),
    index("outbound_messages_due_idx").on(t.status, t.nextAttemptAt),
  ],
);
export type OutboundMessage = typeof outboundMessages.$inferSelect;

/** The delivery log: every attempt with its answer and latency (the settings page shows the last ones). */
export const outboundAttempts = sqliteTable(
  "outbound_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    messageId: integer("message_id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    at: timestamp("at").notNull(),
    /** The HTTP status; null when no answer came (refused address, timeout, connection error). */
    statusCode: integer("status_code"),
    latencyMs: integer("latency_ms").notNull(),
    error: text("error"),
  },
  (t) => [index("outbound_attempts_endpoint_idx").on(t.endpointId, t.id)],
);

/**
 * A saved explore search: its canonical query string (the explore page's URL query). `digest`: in the daily
 * e-mail; `notifiedUntil`: bounties allocated up to here have been mailed (or existed when it was saved).
 */
export const savedSearches = sqliteTable(
  "saved_searches",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    query: text("query").notNull(),
    digest: integer("digest", { mode: "boolean" }).notNull().default(true),
    notifiedUntil: timestamp("notified_until").notNull(),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [index("saved_searches_user_idx").on(t.userId), index("saved_searches_digest_idx").on(t.digest, t.userId)],
);
export type SavedSearch = typeof savedSearches.$inferSelect;

/**
 * One digest per subscriber per day, claimed before the mail is sent: a crash after the claim never sends that
 * day's digest twice (what it would have said comes the next day: the cursors only move once the mail is out).
 */
export const digestRuns = sqliteTable(
  "digest_runs",
  {
    userId: integer("user_id").notNull(),
    /** UTC date, YYYY-MM-DD. */
    day: text("day").notNull(),
    status: text("status", { enum: ["sending", "sent", "empty", "failed"] }).notNull(),
    bounties: integer("bounties").notNull().default(0),
    createdAt: timestamp("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);

/**
 * A user who followed the digest's unsubscribe link (issue 39): the daily digest is not sent to them at all, not even
 * for a pool manager's pull requests waiting past their review deadline (those still get their own reminder mails,
 * once per deadline). Gone when they turn a saved search's digest back on.
 */
export const digestOptOuts = sqliteTable("digest_opt_outs", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id),
  at: timestamp("at").notNull(),
});
