import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/**
 * Review deadlines (issue 39, item 5). A pull request that closes a bountied issue waits for the repository's
 * maintainers from when it is opened (or from when its issue got a bounty, if later) until a maintainer reviews
 * it, comments on it, merges or closes it. Past the repository's deadline its pool manager is reminded (once);
 * past twice the deadline once more, and the contributor may ask for release (which notifies the pool manager,
 * nothing more: whether money is due stays with api/services/payouts/decision.ts).
 */

/** The pool manager's setting for one repository (absent: the default, REVIEW_DEADLINE_DEFAULT_HOURS). */
export const reviewSettings = sqliteTable("review_settings", {
  githubRepoId: integer("github_repo_id").primaryKey(),
  deadlineHours: integer("deadline_hours").notNull(),
  updatedByUserId: integer("updated_by_user_id"),
  updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});

/**
 * One bountied pull request's wait for review. `remindedLevel`: 0 none sent, 1 the reminder at the deadline, 2 the
 * one at twice the deadline; raised by a conditional update before the mail leaves, so each goes out once across
 * processes and restarts (a crash between the two loses that mail, never doubles it).
 */
export const pullRequestWaits = sqliteTable(
  "pull_request_waits",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    pullNumber: integer("pull_number").notNull(),
    authorLogin: text("author_login").notNull(),
    authorGithubId: integer("author_github_id").notNull(),
    /** The bountied issues it closes (JSON array of numbers), as GitHub said when it was last seen. */
    issueNumbers: text("issue_numbers").notNull(),
    title: text("title"),
    htmlUrl: text("html_url"),
    openedAt: timestamp("opened_at").notNull(),
    /** When the wait started: opened (or marked ready for review), or the issue's bounty set, whichever is later. */
    waitingSince: timestamp("waiting_since").notNull(),
    firstReviewAt: timestamp("first_review_at"),
    firstReviewer: text("first_reviewer"),
    /** What the first response was: a review, a comment, the merge or the close. */
    firstReviewKind: text("first_review_kind", { enum: ["review", "comment", "merged", "closed"] }),
    mergedAt: timestamp("merged_at"),
    closedAt: timestamp("closed_at"),
    remindedLevel: integer("reminded_level").notNull().default(0),
    remindedAt: timestamp("reminded_at"),
    /** The deadline passed without a response: counted once on the sponsor's record. */
    pastDeadline: integer("past_deadline", { mode: "boolean" }).notNull().default(false),
    releaseRequestedAt: timestamp("release_requested_at"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    primaryKey({ columns: [t.githubRepoId, t.pullNumber] }),
    // The pass reads the waits still open.
    index("pull_request_waits_open_idx").on(t.firstReviewAt, t.closedAt, t.waitingSince),
  ],
);

/**
 * A sponsor's review record, kept as it happens: the time from pull request to first response as a histogram over
 * REVIEW_BUCKETS_MS (the median read as the bucket bound it falls in, as the merge-to-paid time is), and how many
 * pull requests waited past the repository's deadline.
 */
export const repositoryReviewRecords = sqliteTable("repository_review_records", {
  githubRepoId: integer("github_repo_id").primaryKey(),
  firstReviewHistogram: text("first_review_histogram").notNull().default("[]"),
  reviewsPastDeadline: integer("reviews_past_deadline").notNull().default(0),
  updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});

export type PullRequestWait = typeof pullRequestWaits.$inferSelect;
