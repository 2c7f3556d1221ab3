/**
 * The leaderboards of the original product (GET /api/leaderboard/contributors
 * and /projects), public here, computed from the platform's own payout
 * records (the bounties the indexer saw paid) and open bounties. Private and
 * inactive repositories take no part: a private repository's payouts are not
 * public, and a pool manager who marks a repository inactive takes it off the
 * boards (its money and bounties stay).
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { bounties, repositories, users, wallets, type Currency } from "../../../db/schema/index.ts";
import { toDecimalString, TOKEN_DECIMALS } from "../../chain/amounts.ts";

export const LEADERBOARD_SIZE = 50;

export interface ContributorRow {
  rank: number;
  id: number;
  username: string;
  avatarUrl: string | null;
  /** Whole tokens, 2 decimals (rounded down), as the original's board prints them. */
  roxnEarned: string;
  usdcEarned: string;
  xdcEarned: string;
  rewardsCount: number;
}

export interface ProjectRow {
  rank: number;
  id: number;
  name: string;
  avatarUrl: string;
  bountiesCount: number;
  paidCount: number;
}

const twoDecimals = (value: bigint, currency: Currency) => {
  const [whole, fraction = ""] = toDecimalString(value, TOKEN_DECIMALS[currency]).split(".");
  return `${whole}.${fraction.padEnd(2, "0").slice(0, 2)}`;
};

const listed = and(eq(repositories.isPrivate, false), eq(repositories.isActive, true));

/** Contributors by what they earned: XDC first (the platform's currency), then ROXN, then USDC; the top 50. */
export async function contributorLeaderboard(deps: { database: { db: Database } }): Promise<ContributorRow[]> {
  const rows = await deps.database.db
    .select({ userId: users.id, username: users.username, avatarUrl: users.avatarUrl, currency: bounties.currency, amount: bounties.amount })
    .from(bounties)
    .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
    .innerJoin(wallets, sql`lower(${wallets.address}) = lower(${bounties.recipient})`)
    .innerJoin(users, eq(users.id, wallets.userId))
    .where(and(eq(bounties.status, "paid"), listed));
  const byUser = new Map<number, { username: string; avatarUrl: string | null; earned: Record<Currency, bigint>; count: number }>();
  for (const row of rows) {
    const entry = byUser.get(row.userId) ?? { username: row.username, avatarUrl: row.avatarUrl, earned: { XDC: 0n, ROXN: 0n, USDC: 0n }, count: 0 };
    entry.earned[row.currency] += row.amount;
    entry.count += 1;
    byUser.set(row.userId, entry);
  }
  const order = (a: Record<Currency, bigint>, b: Record<Currency, bigint>) =>
    a.XDC !== b.XDC ? (b.XDC > a.XDC ? 1 : -1) : a.ROXN !== b.ROXN ? (b.ROXN > a.ROXN ? 1 : -1) : b.USDC > a.USDC ? 1 : b.USDC < a.USDC ? -1 : 0;
  return [...byUser.entries()]
    .sort(([ia, a], [ib, b]) => order(a.earned, b.earned) || ia - ib)
    .slice(0, LEADERBOARD_SIZE)
    .map(([id, e], i) => ({
      rank: i + 1,
      id,
      username: e.username,
      avatarUrl: e.avatarUrl,
      roxnEarned: twoDecimals(e.earned.ROXN, "ROXN"),
      usdcEarned: twoDecimals(e.earned.USDC, "USDC"),
      xdcEarned: twoDecimals(e.earned.XDC, "XDC"),
      rewardsCount: e.count,
    }));
}

/** Active public repositories by their open bounties (then by bounties paid); the top 50. */
export async function projectLeaderboard(deps: { database: { db: Database }; githubUrl: string }): Promise<ProjectRow[]> {
  const rows = await deps.database.db
    .select({
      id: repositories.githubRepoId,
      name: repositories.fullName,
      owner: repositories.owner,
      open: sql<number>`sum(case when ${bounties.status} = 'open' then 1 else 0 end)`,
      paid: sql<number>`sum(case when ${bounties.status} = 'paid' then 1 else 0 end)`,
    })
    .from(repositories)
    .innerJoin(bounties, eq(bounties.githubRepoId, repositories.githubRepoId))
    .where(listed)
    .groupBy(repositories.githubRepoId);
  return rows
    .map((r) => ({ ...r, open: Number(r.open ?? 0), paid: Number(r.paid ?? 0) }))
    .filter((r) => r.open + r.paid > 0)
    .sort((a, b) => b.open - a.open || b.paid - a.paid || a.name.localeCompare(b.name))
    .slice(0, LEADERBOARD_SIZE)
    .map((r, i) => ({ rank: i + 1, id: r.id, name: r.name, avatarUrl: `${deps.githubUrl}/${r.owner}.png`, bountiesCount: r.open, paidCount: r.paid }));
}
