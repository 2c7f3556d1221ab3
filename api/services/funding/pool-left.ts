import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { bounties, bountyBoosts, communityBounties, repositories, users } from "../../../db/schema/index.ts";

/**
 * A bounty the pool manager left to its funders (issue 29): after `cancelPoolShare` the contract's bounty stays open
 * on the funders' shares alone, and the mirror keeps the pool's row open with amount 0 (docs/design.md, "The
 * bounty's amount in the mirror"). From then on it is a community bounty like one a first boost opens: this gives
 * it its `community_bounties` row (the original client's list, /explore's total), created by its first active
 * funder at their boost's time, so the community totals count every share still on it.
 *
 * Derived from the mirror alone (the pool's row, the active boosts), never from an event: a batch, a rebuild and
 * a reorganisation that replays the cancel all come to the same row; one live row per issue (the unique index)
 * makes a second pass, or a second process, a no-op. A reorganisation that takes the cancel back leaves the row
 * beside the pool's bounty again, as when a pool joins an open community bounty.
 */
export async function openCommunityBountiesLeftByPool(db: Database): Promise<number[]> {
  // Run every second (settleBoosts): read from the active boosts (bounty_boosts_explore_expiry_idx), each issue's
  // bounty by primary key; unary + keeps SQLite from walking every open bounty by bounties_status_idx instead.
  const left = await db
    .selectDistinct({
      repoId: bounties.githubRepoId,
      issueNumber: bounties.issueNumber,
      currency: bounties.currency,
      title: bounties.issueTitle,
      url: bounties.issueUrl,
      owner: repositories.owner,
      name: repositories.name,
      htmlUrl: repositories.htmlUrl,
    })
    .from(bountyBoosts)
    .innerJoin(bounties, and(eq(bounties.githubRepoId, bountyBoosts.githubRepoId), eq(bounties.issueNumber, bountyBoosts.issueNumber)))
    .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
    .where(
      and(
        eq(bountyBoosts.status, "active"),
        sql`+${bounties.status} = 'open'`,
        sql`${bounties.amount} = '0'`,
        sql`not exists (select 1 from community_bounties c where c.github_repo_id = ${bounties.githubRepoId} and c.issue_number = ${bounties.issueNumber} and c.status not in ('refunded', 'expired'))`,
      ),
    );
  const opened: number[] = [];
  for (const b of left) {
    const [first] = await db
      .select({ userId: bountyBoosts.userId, login: users.username, createdAt: bountyBoosts.createdAt })
      .from(bountyBoosts)
      .innerJoin(users, eq(users.id, bountyBoosts.userId))
      .where(and(eq(bountyBoosts.githubRepoId, b.repoId), eq(bountyBoosts.issueNumber, b.issueNumber), eq(bountyBoosts.status, "active")))
      .orderBy(asc(bountyBoosts.createdAt), asc(bountyBoosts.id))
      .limit(1);
    if (!first) continue;
    const made = await db
      .insert(communityBounties)
      .values({
        githubRepoId: b.repoId,
        repoOwner: b.owner,
        repoName: b.name,
        issueNumber: b.issueNumber,
        issueUrl: b.url ?? `${b.htmlUrl}/issues/${b.issueNumber}`,
        title: (b.title ?? `Issue #${b.issueNumber}`).slice(0, 500),
        currency: b.currency,
        status: "funded",
        createdByUserId: first.userId,
        createdByLogin: first.login,
        createdAt: first.createdAt,
      })
      .onConflictDoNothing()
      .returning({ id: communityBounties.id });
    if (made[0]) opened.push(made[0].id);
  }
  return opened;
}
