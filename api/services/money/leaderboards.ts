/**
 * The leaderboards of the original product (GET /api/leaderboard/contributors
 * and /projects), public here, computed from the platform's own payout
 * records (the bounties the indexer saw paid) and open bounties. Private and
 * inactive repositories take no part: a private repository's payouts are not
 * public, and a pool manager who marks a repository inactive takes it off the
 * projects board (its money and bounties stay; what contributors earned there
 * stays theirs on the all-time contributors board).
 */
import { and, asc, desc, eq, gt, gte, inArray, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { bounties, contributorTotals, repositories, repositoryPools, repositoryReliability, users, wallets, type Currency } from "../../../db/schema/index.ts";
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
  /** Paid in the period, per currency (whole units, decimals). */
  paidAmounts: Record<Currency, string>;
  /** In open bounties now, per currency. */
  openFunds: Record<Currency, string>;
}

const twoDecimals = (value: bigint, currency: Currency) => {
  const [whole, fraction = ""] = toDecimalString(value, TOKEN_DECIMALS[currency]).split(".");
  return `${whole}.${fraction.padEnd(2, "0").slice(0, 2)}`;
};

const listed = and(eq(repositories.isPrivate, false), eq(repositories.isActive, true));

/** The boards' periods: all time (the default, what the original client asks for) and the last 30 days. */
export const LEADERBOARD_PERIODS = ["all", "30d"] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];
const PERIOD_MS = 30 * 86_400_000;

type Earned = Record<Currency, bigint>;
const order = (a: Earned, b: Earned) =>
  a.XDC !== b.XDC ? (b.XDC > a.XDC ? 1 : -1) : a.ROXN !== b.ROXN ? (b.ROXN > a.ROXN ? 1 : -1) : b.USDC > a.USDC ? 1 : b.USDC < a.USDC ? -1 : 0;

/** A board row with the amounts still as bigints (the site's page formats them itself). */
export interface ContributorStanding {
  id: number;
  username: string;
  avatarUrl: string | null;
  earned: Earned;
  count: number;
}

/**
 * Contributors by what they earned: XDC first (the platform's currency), then ROXN, then USDC; the top 50.
 * All time reads the totals kept as payouts happen (contributor_totals, by its index); 30 days adds up the
 * period's payouts (bounties_closed_idx) of listed repositories.
 */
export async function contributorStandings(deps: { database: { db: Database } }, period: LeaderboardPeriod = "all", now = new Date()): Promise<ContributorStanding[]> {
  const db = deps.database.db;
  if (period === "all") {
    const rows = await db
      .select({ id: users.id, username: users.username, avatarUrl: users.avatarUrl, xdc: contributorTotals.xdc, roxn: contributorTotals.roxn, usdc: contributorTotals.usdc, count: contributorTotals.paidCount })
      .from(contributorTotals)
      .innerJoin(wallets, eq(wallets.address, contributorTotals.recipient))
      .innerJoin(users, eq(users.id, wallets.userId))
      .where(gt(contributorTotals.paidCount, 0))
      .orderBy(desc(contributorTotals.xdcKey), desc(contributorTotals.roxnKey), desc(contributorTotals.usdcKey), asc(users.id))
      .limit(LEADERBOARD_SIZE);
    return rows.map((r) => ({ id: r.id, username: r.username, avatarUrl: r.avatarUrl, earned: { XDC: r.xdc, ROXN: r.roxn, USDC: r.usdc }, count: r.count }));
  }
  const rows = await db
    .select({ recipient: bounties.recipient, currency: bounties.currency, amount: bounties.amount })
    .from(bounties)
    .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
    .where(and(eq(bounties.status, "paid"), gte(bounties.closedAt, new Date(now.getTime() - PERIOD_MS)), listed));
  const byRecipient = new Map<string, { earned: Earned; count: number }>();
  for (const row of rows) {
    if (!row.recipient) continue;
    const entry = byRecipient.get(row.recipient) ?? { earned: { XDC: 0n, ROXN: 0n, USDC: 0n }, count: 0 };
    entry.earned[row.currency] += row.amount;
    entry.count += 1;
    byRecipient.set(row.recipient, entry);
  }
  const ranked = [...byRecipient].sort(([ra, a], [rb, b]) => order(a.earned, b.earned) || ra.localeCompare(rb));
  const result: ContributorStanding[] = [];
  // Paid addresses without an Issuepool account take no place; read the accounts a slice at a time.
  for (let i = 0; i < ranked.length && result.length < LEADERBOARD_SIZE; i += 200) {
    const slice = ranked.slice(i, i + 200);
    const people = await db
      .select({ address: wallets.address, id: users.id, username: users.username, avatarUrl: users.avatarUrl })
      .from(wallets)
      .innerJoin(users, eq(users.id, wallets.userId))
      .where(inArray(wallets.address, slice.map(([r]) => r)));
    const byAddress = new Map(people.map((p) => [p.address, p]));
    for (const [recipient, e] of slice) {
      const person = byAddress.get(recipient);
      if (person && result.length < LEADERBOARD_SIZE) result.push({ id: person.id, username: person.username, avatarUrl: person.avatarUrl, earned: e.earned, count: e.count });
    }
  }
  return result;
}

/** The original product's contributors board (its shape: whole tokens with 2 decimals). */
export async function contributorLeaderboard(deps: { database: { db: Database } }, period: LeaderboardPeriod = "all"): Promise<ContributorRow[]> {
  return (await contributorStandings(deps, period)).map((e, i) => ({
    rank: i + 1,
    id: e.id,
    username: e.username,
    avatarUrl: e.avatarUrl,
    roxnEarned: twoDecimals(e.earned.ROXN, "ROXN"),
    usdcEarned: twoDecimals(e.earned.USDC, "USDC"),
    xdcEarned: twoDecimals(e.earned.XDC, "XDC"),
    rewardsCount: e.count,
  }));
}

export interface ProjectStanding {
  id: number;
  name: string;
  owner: string;
  open: number;
  paid: number;
  paidAmounts: Earned;
  /** Funds in open bounties now. */
  openFunds: Earned;
}

/**
 * Active public repositories: all time by their open bounties, then bounties paid (the records kept as payouts
 * happen, by index); 30 days by the bounties paid in the period. The top 50.
 */
export async function projectStandings(deps: { database: { db: Database } }, period: LeaderboardPeriod = "all", now = new Date()): Promise<ProjectStanding[]> {
  const db = deps.database.db;
  let standings: Omit<ProjectStanding, "openFunds">[];
  if (period === "all") {
    const rows = await db
      .select({
        id: repositories.githubRepoId, name: repositories.fullName, owner: repositories.owner,
        open: repositoryReliability.openCount, paid: repositoryReliability.paidCount,
        xdc: repositoryReliability.paidXdc, roxn: repositoryReliability.paidRoxn, usdc: repositoryReliability.paidUsdc,
      })
      .from(repositoryReliability)
      .innerJoin(repositories, eq(repositories.githubRepoId, repositoryReliability.githubRepoId))
      .where(and(listed, sql`${repositoryReliability.openCount} + ${repositoryReliability.paidCount} > 0`))
      .orderBy(desc(repositoryReliability.openCount), desc(repositoryReliability.paidCount), asc(repositories.githubRepoId))
      .limit(LEADERBOARD_SIZE);
    standings = rows.map((r) => ({ id: r.id, name: r.name, owner: r.owner, open: r.open, paid: r.paid, paidAmounts: { XDC: r.xdc, ROXN: r.roxn, USDC: r.usdc } }));
  } else {
    const rows = await db
      .select({ id: bounties.githubRepoId, currency: bounties.currency, amount: bounties.amount })
      .from(bounties)
      .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
      .where(and(eq(bounties.status, "paid"), gte(bounties.closedAt, new Date(now.getTime() - PERIOD_MS)), listed));
    const byRepo = new Map<number, { paid: number; paidAmounts: Earned }>();
    for (const r of rows) {
      const entry = byRepo.get(r.id) ?? { paid: 0, paidAmounts: { XDC: 0n, ROXN: 0n, USDC: 0n } };
      entry.paid += 1;
      entry.paidAmounts[r.currency] += r.amount;
      byRepo.set(r.id, entry);
    }
    const top = [...byRepo].sort(([ia, a], [ib, b]) => b.paid - a.paid || order(a.paidAmounts, b.paidAmounts) || ia - ib).slice(0, LEADERBOARD_SIZE);
    const ids = top.map(([id]) => id);
    const info = ids.length
      ? await db
          .select({ id: repositories.githubRepoId, name: repositories.fullName, owner: repositories.owner, open: repositoryReliability.openCount })
          .from(repositories)
          .leftJoin(repositoryReliability, eq(repositoryReliability.githubRepoId, repositories.githubRepoId))
          .where(inArray(repositories.githubRepoId, ids))
      : [];
    const byId = new Map(info.map((r) => [r.id, r]));
    standings = top.map(([id, e]) => ({ id, name: byId.get(id)!.name, owner: byId.get(id)!.owner, open: byId.get(id)!.open ?? 0, ...e }));
  }
  const ids = standings.map((s) => s.id);
  const pools = ids.length ? await db.select().from(repositoryPools).where(inArray(repositoryPools.githubRepoId, ids)) : [];
  const funds = new Map<number, Earned>();
  for (const p of pools) {
    const entry = funds.get(p.githubRepoId) ?? { XDC: 0n, ROXN: 0n, USDC: 0n };
    entry[p.currency] += p.allocated;
    funds.set(p.githubRepoId, entry);
  }
  return standings.map((s) => ({ ...s, openFunds: funds.get(s.id) ?? { XDC: 0n, ROXN: 0n, USDC: 0n } }));
}

/** The original product's projects board (its shape), with what was paid and what is open per currency. */
export async function projectLeaderboard(deps: { database: { db: Database }; githubUrl: string }, period: LeaderboardPeriod = "all"): Promise<ProjectRow[]> {
  const decimals = (e: Earned) => ({ XDC: toDecimalString(e.XDC, TOKEN_DECIMALS.XDC), ROXN: toDecimalString(e.ROXN, TOKEN_DECIMALS.ROXN), USDC: toDecimalString(e.USDC, TOKEN_DECIMALS.USDC) });
  return (await projectStandings(deps, period)).map((r, i) => ({
    rank: i + 1,
    id: r.id,
    name: r.name,
    avatarUrl: `${deps.githubUrl}/${r.owner}.png`,
    bountiesCount: r.open,
    paidCount: r.paid,
    paidAmounts: decimals(r.paidAmounts),
    openFunds: decimals(r.openFunds),
  }));
}
