import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/**
 * What GitHub last said of a repository the platform gets no webhooks from (issue 36): a repository with community
 * bounties and no App installation (never registered, or its App uninstalled). Registered repositories with the App
 * follow `repositories.is_private` (the `repository` webhook keeps it); these are asked again when their answer is
 * older than the cache's age (api/services/funding/community-visibility.ts). `public` false: private, deleted, or
 * no longer readable; their community bounties leave every public answer until GitHub says public again.
 */
export const REPOSITORY_VISIBILITY_REASONS = ["public", "private", "not_found"] as const;
export type RepositoryVisibilityReason = (typeof REPOSITORY_VISIBILITY_REASONS)[number];

export const repositoryVisibility = sqliteTable(
  "repository_visibility",
  {
    githubRepoId: integer("github_repo_id").primaryKey(),
    public: integer("public", { mode: "boolean" }).notNull(),
    reason: text("reason", { enum: REPOSITORY_VISIBILITY_REASONS }).notNull(),
    /** When GitHub last answered (or was last asked and could not answer: the answer before stays). */
    checkedAt: timestamp("checked_at").notNull(),
  },
  (t) => [index("repository_visibility_checked_idx").on(t.checkedAt)],
);

export type RepositoryVisibility = typeof repositoryVisibility.$inferSelect;
