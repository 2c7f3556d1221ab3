import { sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";

/**
 * A bounty's commitment (issue 36; docs/design.md, "Who is paid: the payout decision"): the moment the one
 * payout decision (api/services/payouts/decision.ts) found that a bounty is owed, and to whom. One row per
 * on-chain round of an issue's bounty (the contract's `round`, which a cancelled bounty's next allocation or
 * boost increments): from then on no funder takes money back, no cancel, claim or release changes who is paid,
 * and the bounty is paid only to these people (at once, after a split's window, or when they register).
 *
 *   merge    a pull request merged after every unit of the bounty's money was committed, closing the issue,
 *            with the issue closed by it (the webhook, the issue-closed path, the catch-up pass)
 *   claim    the same, proved by its author's claim on a repository without the App (community bounties)
 *   release  the pool manager released it by hand to a person they chose
 */
export const COMMITMENT_VIA = ["merge", "claim", "release"] as const;
export type CommitmentVia = (typeof COMMITMENT_VIA)[number];

export const bountyCommitments = sqliteTable(
  "bounty_commitments",
  {
    githubRepoId: integer("github_repo_id").notNull(),
    issueNumber: integer("issue_number").notNull(),
    /** The contract's round of the issue's bounty. */
    round: integer("round").notNull(),
    via: text("via", { enum: COMMITMENT_VIA }).notNull(),
    /** The pull request that earned it (null for a release by hand). */
    pullNumber: integer("pull_number"),
    /** Its address as GitHub reported it (never a client's text). */
    pullUrl: text("pull_url"),
    mergedAt: timestamp("merged_at"),
    /** Who is paid: the author (or the person released to) first, then co-authors, as JSON [{id, login}]. */
    people: text("people").notNull(),
    authorGithubId: integer("author_github_id").notNull(),
    authorLogin: text("author_login").notNull(),
    /** When the platform's decision was made. */
    committedAt: timestamp("committed_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.githubRepoId, t.issueNumber, t.round] })],
);

export type BountyCommitment = typeof bountyCommitments.$inferSelect;
