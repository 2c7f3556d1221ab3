/**
 * Reads about boosts and the bounties they add to: the currency an issue's bounty is in, its live community bounty,
 * a repository the platform knows by name, and a user's own boosts for their history.
 */
import { and, eq, notInArray, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "../../../db/client.ts";
import { bounties, bountyBoosts, communityBounties, repositories, type CommunityBounty, type Currency, type User } from "../../../db/schema/index.ts";
import { boostView, type BoostView } from "./funders-read.ts";

/** The currency an issue's bounty is in, if it has one: the pool manager's bounty, else a live community bounty. */
export async function bountyCurrencyOf(db: Database, repoId: number, issueNumber: number): Promise<{ currency: Currency; source: "pool" | "community"; closed: boolean } | undefined> {
  const [pool] = await db.select().from(bounties).where(and(eq(bounties.githubRepoId, repoId), eq(bounties.issueNumber, issueNumber))).limit(1);
  if (pool && pool.status !== "cancelled") return { currency: pool.currency, source: "pool", closed: pool.status !== "open" };
  const community = await liveCommunityBounty(db, repoId, issueNumber);
  if (community) return { currency: community.currency, source: "community", closed: !["pending_payment", "funded", "claimed"].includes(community.status) };
  return undefined;
}

export async function liveCommunityBounty(db: DbOrTx, repoId: number, issueNumber: number): Promise<CommunityBounty | undefined> {
  const [row] = await db
    .select()
    .from(communityBounties)
    .where(and(eq(communityBounties.githubRepoId, repoId), eq(communityBounties.issueNumber, issueNumber), notInArray(communityBounties.status, ["refunded", "expired"])))
    .limit(1);
  return row;
}

/** The GitHub id of a repository the platform knows by name (registered, or with a community bounty), without asking GitHub. */
export async function knownRepoId(db: Database, owner: string, name: string): Promise<number | undefined> {
  const key = `${owner}/${name}`.toLowerCase();
  const [registered] = await db.select({ id: repositories.githubRepoId }).from(repositories).where(eq(repositories.fullNameKey, key)).limit(1);
  if (registered) return registered.id;
  const [community] = await db
    .select({ id: communityBounties.githubRepoId })
    .from(communityBounties)
    .where(sql`lower(${communityBounties.repoOwner} || '/' || ${communityBounties.repoName}) = ${key}`)
    .orderBy(sql`${communityBounties.id} desc`)
    .limit(1);
  return community?.id;
}

/** A user's own boosts, newest first (the wallet history's funding part). */
/**
 * The user's boosts for their history, each with its repository and the transactions that moved its money (issue 38:
 * the rows read "Issue #2" with no repository and no transaction): `transactionHash` funded it, `refundTransactionHash`
 * brought it back (null while none did).
 */
export async function boostsOfUser(
  db: Database,
  user: User,
  limit = 100,
): Promise<(BoostView & { repoId: number; issueNumber: number; repository: string | null; transactionHash: string | null; refundTransactionHash: string | null })[]> {
  const rows = await db
    .select({
      boost: bountyBoosts,
      repository: repositories.fullName,
      fundTx: sql<string | null>`(select tx_hash from chain_transactions t where t.id = ${bountyBoosts.fundTxId})`,
      refundTx: sql<string | null>`(select tx_hash from chain_transactions t where t.id = ${bountyBoosts.refundTxId})`,
    })
    .from(bountyBoosts)
    .leftJoin(repositories, eq(repositories.githubRepoId, bountyBoosts.githubRepoId))
    .where(eq(bountyBoosts.userId, user.id))
    .orderBy(sql`${bountyBoosts.createdAt} desc`)
    .limit(limit);
  return rows.map(({ boost, repository, fundTx, refundTx }) => ({
    ...boostView(boost, user.username, true),
    repoId: boost.githubRepoId,
    issueNumber: boost.issueNumber,
    repository,
    transactionHash: fundTx,
    refundTransactionHash: refundTx,
  }));
}
