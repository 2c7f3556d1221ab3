import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { timestamp } from "./columns.ts";

/**
 * The names a registered repository had before (issue 39, item 6): each rename or transfer GitHub reports (the
 * `repository` webhook's `renamed` and `transferred` actions, or any answer that shows a new full name) leaves
 * its former `owner/name` here. Addresses shared with the old name (the public page, the repository page, the
 * badge, the embed, the feed, saved searches) are answered from it: redirected to the current name. A name in
 * use by a registered repository now always wins over a former one (GitHub lets a new repository take an old
 * name); among former names, the latest move wins.
 */
export const REPOSITORY_MOVES = ["renamed", "transferred", "changed"] as const;
export type RepositoryMove = (typeof REPOSITORY_MOVES)[number];

export const repositoryFormerNames = sqliteTable(
  "repository_former_names",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    githubRepoId: integer("github_repo_id").notNull(),
    /** The former `owner/name`, as GitHub spelled it. */
    fullName: text("full_name").notNull(),
    /** Lower-cased, for case-insensitive lookups as on GitHub. */
    fullNameKey: text("full_name_key").notNull(),
    /** What moved it: a rename, a transfer, or a new name seen without the webhook saying which. */
    move: text("move", { enum: REPOSITORY_MOVES }).notNull(),
    movedAt: timestamp("moved_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [uniqueIndex("repository_former_names_key_repo_idx").on(t.fullNameKey, t.githubRepoId), index("repository_former_names_repo_idx").on(t.githubRepoId)],
);

export type RepositoryFormerName = typeof repositoryFormerNames.$inferSelect;
