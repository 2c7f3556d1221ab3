import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { amount, CURRENCIES, timestamp } from "./columns.ts";
import { repositories } from "./repositories.ts";

/**
 * The database's mirror of a repository's reward pool in one currency.
 * The chain is the source of truth; the indexer keeps this row in step with
 * the contract's events so pages read it without a chain call.
 */
export const repositoryPools = sqliteTable(
  "repository_pools",
  {
    githubRepoId: integer("github_repo_id")
      .notNull()
      .references(() => repositories.githubRepoId, { onDelete: "cascade" }),
    currency: text("currency", { enum: CURRENCIES }).notNull(),
    /** Unallocated funds available for new bounties. */
    balance: amount("balance").notNull().default(sql`'0'`),
    /** Funds locked in unpaid bounties. */
    allocated: amount("allocated").notNull().default(sql`'0'`),
    updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.currency] }), index("repository_pools_updated_idx").on(t.updatedAt)],
);

export type RepositoryPool = typeof repositoryPools.$inferSelect;
