/**
 * A contributor's public profile (/@{login}, GET /api/contributors/{login}; issue 30, item 3): what they earned
 * (repository, issue, amount, date, transaction), the repositories they contributed to, what they work on now.
 * Public facts only: payouts and claims on public repositories; the wallet address only when its owner chose to
 * show it (users.show_wallet_address). Reads by index: the user by lower(username), their payouts by
 * bounties_recipient_idx and their shares of split payouts by bounty_shares_recipient_idx (a co-authored merge's
 * payout is listed under each recipient with their share), their claims by primary key.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { bounties, bountyClaims, bountyShares, contributorTotals, repositories, users, wallets, type Currency } from "../../../db/schema/index.ts";
import { notFound } from "../../errors.ts";

const EARNED_SHOWN = 50;

export interface PublicProfile {
  login: string;
  name: string | null;
  avatarUrl: string | null;
  bio: string | null;
  /** Only when the owner chose to show it (checksummed 0x; shown as xdc… at the edge). */
  walletAddress: string | null;
  totals: { count: number; earned: Record<Currency, bigint> };
  earned: { repository: string; issueNumber: number; title: string | null; url: string | null; currency: Currency; amount: bigint; paidAt: Date | null; txHash: string | null }[];
  repositories: string[];
  workingOn: { repository: string; issueNumber: number; title: string | null; url: string | null; currency: Currency; amount: bigint }[];
}

/** A paid bounty that is not a split payout (a split's recipients are credited by their bounty_shares rows). */
export const notSplit = sql`not exists (select 1 from ${bountyShares} s where s.github_repo_id = ${bounties.githubRepoId} and s.issue_number = ${bounties.issueNumber})`;

export async function publicProfile(deps: { database: { db: Database } }, login: string): Promise<PublicProfile> {
  const db = deps.database.db;
  const [person] = await db
    .select({ id: users.id, username: users.username, name: users.name, avatarUrl: users.avatarUrl, bio: users.bio, show: users.showWalletAddress, address: wallets.address })
    .from(users)
    .leftJoin(wallets, eq(wallets.userId, users.id))
    .where(sql`lower(${users.username}) = ${login.toLowerCase()}`)
    .limit(1);
  if (!person) throw notFound("No contributor by that name.");
  const listed = eq(repositories.isPrivate, false);
  const [whole, shared, totals, workingOn] = await Promise.all([
    person.address
      ? db
          .select({
            repository: repositories.fullName, issueNumber: bounties.issueNumber, title: bounties.issueTitle, url: bounties.issueUrl,
            currency: bounties.currency, amount: bounties.amount, paidAt: bounties.closedAt, txHash: bounties.paidTx,
          })
          .from(bounties)
          .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
          .where(and(eq(bounties.recipient, person.address), eq(bounties.status, "paid"), listed, notSplit))
          .orderBy(desc(bounties.closedAt))
          .limit(EARNED_SHOWN)
      : [],
    person.address
      ? db
          .select({
            repository: repositories.fullName, issueNumber: bounties.issueNumber, title: bounties.issueTitle, url: bounties.issueUrl,
            currency: bounties.currency, amount: bountyShares.amount, paidAt: bounties.closedAt, txHash: bounties.paidTx,
          })
          .from(bountyShares)
          .innerJoin(bounties, and(eq(bounties.githubRepoId, bountyShares.githubRepoId), eq(bounties.issueNumber, bountyShares.issueNumber)))
          .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
          .where(and(eq(bountyShares.recipient, person.address), eq(bounties.status, "paid"), listed))
          .orderBy(desc(bounties.closedAt))
          .limit(EARNED_SHOWN)
      : [],
    person.address ? db.select().from(contributorTotals).where(eq(contributorTotals.recipient, person.address)).limit(1) : [],
    db
      .select({ repository: repositories.fullName, issueNumber: bounties.issueNumber, title: bounties.issueTitle, url: bounties.issueUrl, currency: bounties.currency, amount: bounties.amount })
      .from(bountyClaims)
      .innerJoin(bounties, and(eq(bounties.githubRepoId, bountyClaims.githubRepoId), eq(bounties.issueNumber, bountyClaims.issueNumber)))
      .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
      .where(and(eq(bountyClaims.userId, person.id), eq(bounties.status, "open"), listed))
      .orderBy(desc(bountyClaims.createdAt))
      .limit(EARNED_SHOWN),
  ]);
  const earned = [...whole, ...shared].sort((a, b) => (b.paidAt?.getTime() ?? 0) - (a.paidAt?.getTime() ?? 0)).slice(0, EARNED_SHOWN);
  const total = totals[0];
  return {
    login: person.username,
    name: person.name,
    avatarUrl: person.avatarUrl,
    bio: person.bio,
    walletAddress: person.show ? person.address : null,
    totals: { count: total?.paidCount ?? 0, earned: { XDC: total?.xdc ?? 0n, ROXN: total?.roxn ?? 0n, USDC: total?.usdc ?? 0n } },
    earned,
    repositories: [...new Set([...earned.map((e) => e.repository), ...workingOn.map((w) => w.repository)])].sort(),
    workingOn,
  };
}

/** The owner's choice to show their wallet address on their profile. */
export async function setWalletAddressShown(deps: { database: { db: Database } }, userId: number, shown: boolean): Promise<void> {
  await deps.database.db.update(users).set({ showWalletAddress: shown, updatedAt: new Date() }).where(eq(users.id, userId));
}
