import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * AI scoping jobs: one uploaded document turned into a task plan. The file
 * itself is not kept, only its extracted text and SHA-256: a PDF or DOCX is
 * held in `document` only until the worker has read it out of process
 * (text and textSha256 are empty until then). Worked like the
 * webhook deliveries (queued -> processing -> completed | failed) by a leased
 * worker; the lease token makes a job complete exactly once even when a
 * crashed process's lease ran out and another took it up. Deleted after
 * SCOPING_RETENTION_DAYS (docs/ai-scoping.md).
 */
export const SCOPING_STATUSES = ["queued", "processing", "completed", "failed"] as const;
export type ScopingStatus = (typeof SCOPING_STATUSES)[number];

export const scopingJobs = sqliteTable(
  "scoping_jobs",
  {
    /** Public, unguessable id (the spec's jobId). */
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    fileName: text("file_name").notNull(),
    /** What the content was found to be: text | markdown | pdf | docx. */
    format: text("format").notNull(),
    byteSize: integer("byte_size").notNull(),
    textSha256: text("text_sha256").notNull(),
    text: text("text").notNull(),
    /** A PDF or DOCX waiting to be read by the worker; null once read (or for text). */
    document: blob("document", { mode: "buffer" }),
    /** Which planner made (or will make) the plan: builtin | openai. */
    planner: text("planner").notNull(),
    status: text("status", { enum: SCOPING_STATUSES }).notNull().default("queued"),
    /** The plan as JSON, once completed. */
    result: text("result"),
    projectName: text("project_name"),
    /** Why it failed, for the log and the owner (never internals of the server). */
    error: text("error"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at").notNull().default(sql`(unixepoch() * 1000)`),
    leaseUntil: timestamp("lease_until"),
    /** Who holds the lease: only that holder may finish the job. */
    leaseToken: text("lease_token"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    finishedAt: timestamp("finished_at"),
    expiresAt: timestamp("expires_at").notNull(),
  },
  (t) => [index("scoping_jobs_user_idx").on(t.userId, t.createdAt), index("scoping_jobs_due_idx").on(t.status, t.nextAttemptAt), index("scoping_jobs_expires_idx").on(t.expiresAt)],
);

/**
 * GitHub issues made from a plan's tasks: one per (job, task, repository),
 * so a repeated request creates nothing twice. The bounty, when asked for,
 * goes through the normal bounty rules and the outbox.
 */
export const scopingIssues = sqliteTable(
  "scoping_issues",
  {
    jobId: text("job_id")
      .notNull()
      .references(() => scopingJobs.id, { onDelete: "cascade" }),
    taskId: integer("task_id").notNull(),
    repositoryId: integer("repository_id").notNull(),
    /** null while the issue is being created (a crash leaves it to be retried). */
    issueNumber: integer("issue_number"),
    issueUrl: text("issue_url"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.taskId, t.repositoryId] })],
);
