/**
 * The dashboard's "Recent Activity" of the original product (GET
 * /api/user/activity), from this platform's records: rewards received (the
 * indexer's BountyPaid events to the user's wallet) and contributions in
 * progress (issues the user chose Contribute on whose bounty is still open).
 * The original's subscription and referral entries are business lines this
 * platform does not have.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { bounties, bountyClaims, chainEvents, repositories, type Currency, type User } from "../../../db/schema/index.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { CURRENCY_BY_INDEX } from "../../chain/indexer.ts";
import { walletOfUser } from "../wallets/custodial.ts";

export interface Activity {
  id: string;
  type: "reward" | "contribution";
  title: string;
  description: string;
  timestamp: string;
  metadata: { amount: string | null; currency: Currency | null; txHash: string | null; repoName: string | null; issueNumber: number | null };
}

export async function userActivity(deps: { database: { db: Database }; chainId: number }, user: Pick<User, "id">, limit: number): Promise<Activity[]> {
  const db = deps.database.db;
  const wallet = await walletOfUser(db, user.id);
  const [rewards, contributions] = await Promise.all([
    wallet
      ? db
          .select({ event: chainEvents, repoName: repositories.fullName, issueTitle: bounties.issueTitle })
          .from(chainEvents)
          .leftJoin(repositories, eq(repositories.githubRepoId, chainEvents.repoId))
          .leftJoin(bounties, and(eq(bounties.githubRepoId, chainEvents.repoId), eq(bounties.issueNumber, chainEvents.issueNumber)))
          .where(
            and(
              eq(chainEvents.chainId, deps.chainId),
              eq(chainEvents.name, "BountyPaid"),
              sql`lower(json_extract(${chainEvents.args}, '$.contributor')) = ${wallet.address.toLowerCase()}`,
            ),
          )
          .orderBy(desc(chainEvents.blockNumber), desc(chainEvents.logIndex))
          .limit(limit)
      : Promise.resolve([]),
    db
      .select({ claim: bountyClaims, bounty: bounties, repoName: repositories.fullName, isPrivate: repositories.isPrivate })
      .from(bountyClaims)
      .innerJoin(bounties, and(eq(bounties.githubRepoId, bountyClaims.githubRepoId), eq(bounties.issueNumber, bountyClaims.issueNumber)))
      .innerJoin(repositories, eq(repositories.githubRepoId, bountyClaims.githubRepoId))
      .where(and(eq(bountyClaims.userId, user.id), eq(bounties.status, "open")))
      .orderBy(desc(bountyClaims.createdAt))
      .limit(limit),
  ]);
  const received: Activity[] = rewards.map(({ event, repoName, issueTitle }) => {
    const args = JSON.parse(event.args) as { currency: number | string; amount: string };
    const currency = CURRENCY_BY_INDEX[Number(args.currency)] ?? "XDC";
    const amount = toDecimalString(BigInt(args.amount), DECIMALS[currency]);
    return {
      id: `reward-${event.id}`,
      type: "reward",
      title: "Bounty Received",
      description: `${amount} ${currency} for ${repoName ?? "a repository"}${event.issueNumber ? ` #${event.issueNumber}` : ""}${issueTitle ? `: ${issueTitle}` : ""}`,
      timestamp: (event.blockTime ?? event.createdAt).toISOString(),
      metadata: { amount, currency, txHash: event.txHash, repoName, issueNumber: event.issueNumber },
    };
  });
  const working: Activity[] = contributions.map(({ claim, bounty, repoName }) => ({
    id: `contribution-${claim.githubRepoId}-${claim.issueNumber}`,
    type: "contribution",
    title: "Contribution In Progress",
    description: `${repoName} #${claim.issueNumber}${bounty.issueTitle ? `: ${bounty.issueTitle}` : ""}`,
    timestamp: claim.createdAt.toISOString(),
    metadata: { amount: toDecimalString(bounty.amount, DECIMALS[bounty.currency]), currency: bounty.currency, txHash: null, repoName, issueNumber: claim.issueNumber },
  }));
  return [...received, ...working].sort((a, b) => b.timestamp.localeCompare(a.timestamp)).slice(0, limit);
}
