import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/** GitHub App installations, kept in step by the installation webhooks. */
export const githubInstallations = sqliteTable("github_installations", {
  installationId: integer("installation_id").primaryKey(),
  accountId: integer("account_id").notNull(),
  accountLogin: text("account_login").notNull(),
  accountType: text("account_type").notNull(), // User | Organization
  repositorySelection: text("repository_selection").notNull().default("selected"),
  suspendedAt: timestamp("suspended_at"),
  deletedAt: timestamp("deleted_at"),
  createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});

/**
 * Last good copies of GitHub responses, with the spec's ages. Fresh copies
 * are served as they are; when GitHub fails, an old copy is served marked
 * stale rather than an error.
 */
export const githubCache = sqliteTable(
  "github_cache",
  {
    key: text("key").primaryKey(),
    etag: text("etag"),
    body: text("body").notNull(),
    fetchedAt: timestamp("fetched_at").notNull(),
    expiresAt: timestamp("expires_at").notNull(),
  },
  (t) => [index("github_cache_expires_idx").on(t.expiresAt)],
);

/**
 * Incoming webhooks (GitHub and the on-ramp), stored before they are
 * processed: deduplicated by the sender's delivery id (also under concurrent
 * redelivery), processed by a worker with retries, kept for review.
 */
export const WEBHOOK_STATUSES = ["pending", "processing", "done", "failed", "ignored", "unmatched"] as const;

export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    source: text("source", { enum: ["github", "onramp"] }).notNull(),
    deliveryId: text("delivery_id").notNull(),
    event: text("event").notNull(),
    action: text("action"),
    payload: text("payload").notNull(),
    status: text("status", { enum: WEBHOOK_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at").notNull().default(sql`(unixepoch() * 1000)`),
    leaseUntil: timestamp("lease_until"),
    lastError: text("last_error"),
    /** What its last failure waited on ("github": GitHub did not answer); retried at once when that answers again. */
    waitingOn: text("waiting_on"),
    receivedAt: timestamp("received_at").notNull().default(sql`(unixepoch() * 1000)`),
    processedAt: timestamp("processed_at"),
  },
  (t) => [uniqueIndex("webhook_deliveries_source_id_idx").on(t.source, t.deliveryId), index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt)],
);

/** The bot's one comment per bountied issue, edited as things change. */
export const botComments = sqliteTable(
  "bot_comments",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    commentId: integer("comment_id").notNull(),
    /** SHA-256 of the last body posted: an edit is only sent when the text changes. */
    bodyHash: text("body_hash").notNull(),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber] })],
);
