import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/**
 * A GitHub repository registered with the platform. The GitHub repository id
 * is the key everywhere (URLs, the rewards contract, the API's `repoId`),
 * because it survives renames and transfers; the full name follows GitHub.
 */
export const repositories = sqliteTable(
  "repositories",
  {
    githubRepoId: integer("github_repo_id").primaryKey(),
    fullName: text("full_name").notNull(),
    /** Lower-cased `owner/name`, for case-insensitive lookups as on GitHub. */
    fullNameKey: text("full_name_key").notNull(),
    owner: text("owner").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    htmlUrl: text("html_url").notNull(),
    isPrivate: integer("is_private", { mode: "boolean" }).notNull().default(false),
    stars: integer("stars").notNull().default(0),
    forks: integer("forks").notNull().default(0),
    installationId: integer("installation_id"),
    defaultBranch: text("default_branch"),
    /** GitHub's primary language of the repository, as GitHub names it (/explore's language filter). */
    language: text("language"),
    githubCreatedAt: timestamp("github_created_at"),
    githubUpdatedAt: timestamp("github_updated_at"),
    pushedAt: timestamp("pushed_at"),
    registeredByUserId: integer("registered_by_user_id"),
    /**
     * Its pool manager's switch (PATCH /api/repositories/{id}/active): an inactive repository leaves the
     * funded list of /repos and the projects leaderboard, and keeps its pools and bounties.
     */
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    registeredAt: timestamp("registered_at").notNull().default(sql`(unixepoch() * 1000)`),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    uniqueIndex("repositories_full_name_key_idx").on(t.fullNameKey),
    index("repositories_registered_at_idx").on(t.registeredAt),
    // /repos pages through the listed repositories newest first (keyset on registeredAt, githubRepoId).
    index("repositories_listed_idx").on(t.isPrivate, t.isActive, t.registeredAt, t.githubRepoId),
    // The public list's cache reads what changed since it last looked (api/services/repositories/public-list-cache.ts).
    index("repositories_updated_idx").on(t.updatedAt),
  ],
);

export type Repository = typeof repositories.$inferSelect;
export type NewRepository = typeof repositories.$inferInsert;
