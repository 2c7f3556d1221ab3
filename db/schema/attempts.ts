import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";
import { ATTEMPT_AUDIENCES, ATTEMPT_MODES } from "../../lib/attempt-rules.ts";

/**
 * How a repository's bounties are attempted (issue 39): the repository's default on the row with issue number 0,
 * a bounty's own choice on its issue's row (a null column there follows the repository). Mode `open`: anyone
 * registered works on it (as before); `exclusive`: the first attempt holds it for `lockMs`, the others queue;
 * `application`: contributors apply with a note and the pool manager picks. Audience `humans`: accounts GitHub
 * marks as bots and accounts the pool manager flagged are refused.
 */
export const attemptSettings = sqliteTable(
  "attempt_settings",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    /** 0: the repository's default. */
    issueNumber: integer("issue_number").notNull(),
    mode: text("mode", { enum: ATTEMPT_MODES }),
    audience: text("audience", { enum: ATTEMPT_AUDIENCES }),
    /** How long an exclusive attempt holds the bounty, in milliseconds. */
    lockMs: integer("lock_ms"),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
    updatedByUserId: integer("updated_by_user_id").references(() => users.id),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber] })],
);

export type AttemptSettingsRow = typeof attemptSettings.$inferSelect;

/**
 * live: `holding` (the lock, exclusive and picked applications), `queued` (waiting behind the holder, in
 * `createdAt` order), `applied` (waiting for the pool manager's pick), `working` (an open bounty: no lock).
 * ended: `released` (by `/unattempt`, the pool manager, or the lock's expiry: `endReason` says which),
 * `declined` (another applicant was picked), `ended` (the issue was fixed or closed).
 */
export const ATTEMPT_STATUSES = ["holding", "queued", "applied", "working", "released", "declined", "ended"] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];
export const LIVE_ATTEMPT_STATUSES = ["holding", "queued", "applied", "working"] as const satisfies readonly AttemptStatus[];

export const ATTEMPT_END_REASONS = ["unattempt", "manager", "expired", "merged", "merged_other", "closed", "picked_other"] as const;
export type AttemptEndReason = (typeof ATTEMPT_END_REASONS)[number];

/**
 * One person's attempt on one bountied issue. At most one live attempt per person and issue, at most one holder
 * per issue (partial unique indexes: two simultaneous first attempts cannot both hold). A holder is also in
 * `bounty_claims` (the platform's "working on it" that the rest of the product reads), so is a `working` one.
 */
export const bountyAttempts = sqliteTable(
  "bounty_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    githubUserId: integer("github_user_id").notNull(),
    githubLogin: text("github_login").notNull(),
    status: text("status", { enum: ATTEMPT_STATUSES }).notNull(),
    /** An application's note (at most 500 characters). */
    note: text("note"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    /** When it began holding the bounty, and until when (holders only). */
    heldFrom: timestamp("held_from"),
    lockedUntil: timestamp("locked_until"),
    endedAt: timestamp("ended_at"),
    endReason: text("end_reason", { enum: ATTEMPT_END_REASONS }),
    /** The merged pull request that ended it (`merged`, `merged_other`). */
    pullNumber: integer("pull_number"),
    /** When the person was told they now hold the bounty (a queue move or a pick): told once. */
    notifiedAt: timestamp("notified_at"),
  },
  (t) => [
    uniqueIndex("bounty_attempts_one_holder").on(t.githubRepoId, t.issueNumber).where(sql`status = 'holding'`),
    uniqueIndex("bounty_attempts_one_live").on(t.githubRepoId, t.issueNumber, t.userId).where(sql`status in ('holding', 'queued', 'applied', 'working')`),
    index("bounty_attempts_issue_idx").on(t.githubRepoId, t.issueNumber, t.status, t.createdAt),
    index("bounty_attempts_user_idx").on(t.userId, t.status),
    index("bounty_attempts_locks_idx").on(t.status, t.lockedUntil),
  ],
);

export type BountyAttempt = typeof bountyAttempts.$inferSelect;

/** Accounts a pool manager marked as automated on one repository: refused on its humans-only bounties. */
export const attemptFlags = sqliteTable(
  "attempt_flags",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    /** Lower-cased GitHub login. */
    loginKey: text("login_key").notNull(),
    login: text("login").notNull(),
    flaggedByUserId: integer("flagged_by_user_id").references(() => users.id),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.loginKey] })],
);

/**
 * Pull requests merged on registered repositories, by author, as the merge webhooks tell them: what lifts the
 * newcomer's limit of one attempt at a time.
 */
export const contributorMerges = sqliteTable(
  "contributor_merges",
  {
    githubUserId: integer("github_user_id").notNull(),
    githubRepoId: integer("github_repo_id").notNull(),
    pullNumber: integer("pull_number").notNull(),
    mergedAt: timestamp("merged_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.githubUserId, t.githubRepoId, t.pullNumber] })],
);

/**
 * Open pull requests that reference bountied issues, and the bot's one preview comment on each (issue 39, items 3
 * and 4): kept by the pull_request webhooks (opened, synchronize, reopened, closed); `closes` is the JSON list of
 * bountied issue numbers GitHub says it closes, `mentions` those it only mentions.
 */
export const PULL_STATES = ["open", "closed", "merged"] as const;
export const pullPreviews = sqliteTable(
  "pull_previews",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    pullNumber: integer("pull_number").notNull(),
    authorGithubId: integer("author_github_id").notNull(),
    authorLogin: text("author_login").notNull(),
    state: text("state", { enum: PULL_STATES }).notNull(),
    closes: text("closes").notNull().default("[]"),
    mentions: text("mentions").notNull().default("[]"),
    /** The bot's comment on the pull request (-1: being created). */
    commentId: integer("comment_id"),
    bodyHash: text("body_hash"),
    /** When the authors were told another pull request fixed their issue. */
    toldOfOtherMergeAt: timestamp("told_of_other_merge_at"),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.pullNumber] }), index("pull_previews_state_idx").on(t.githubRepoId, t.state)],
);

export type PullPreview = typeof pullPreviews.$inferSelect;
