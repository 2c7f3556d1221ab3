/**
 * The leaderboards of the original product (GET /api/leaderboard/contributors
 * and /projects), public here, computed from the platform's own payout
 * records (the bounties the indexer saw paid) and open bounties. Private and
 * inactive repositories take no part: a private repository's payouts are not
 * public, and a pool manager who marks a repository inactive takes it off the
 * projects board (its money and bounties stay; what contributors earned there
 * stays theirs on the all-time contributors board).
 */
import { and, asc, desc, eq, gt, inArray, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { contributorRecentTotals, contributorTotals, repositories, repositoryPools, repositoryRecentTotals, repositoryReliability, users, wallets, type Currency } from "../../../db/schema/index.ts";
import { payoutsBetween, rebuildRecentTotals, RECENT_PERIOD_MS, recentHorizon } from "../reliability/record.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";

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
  const [whole, fraction = ""] = toDecimalString(value, DECIMALS[currency]).split(".");
  return `${whole}.${fraction.padEnd(2, "0").slice(0, 2)}`;
};

const listed = and(eq(repositories.isPrivate, false), eq(repositories.isActive, true));

/** The boards' periods: all time (the default, what the original client asks for) and the last 30 days. */
export const LEADERBOARD_PERIODS = ["all", "30d"] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];
const PERIOD_MS = RECENT_PERIOD_MS;

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
 * All time reads the totals kept as payouts happen (contributor_totals, by its index); 30 days the recent totals
 * kept the same way (contributor_recent_totals). Both count the payouts of public repositories.
 */
export async function contributorStandings(deps: { database: { db: Database } }, period: LeaderboardPeriod = "all", now = new Date()): Promise<ContributorStanding[]> {
  const db = deps.database.db;
  if (period === "30d") return contributorsInPeriod(db, now);
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

/**
 * The 30-day contributors board: the recent totals kept as payouts happen (contributor_recent_totals, by its index),
 * less the payouts between their horizon and 30 days ago (few: the horizon moves on with the indexer's writes). A
 * payout shows at once; one older than 30 days is gone at once. Exact: only the wallets with such payouts can move
 * down, so the top 50 are within the top 50 + that many rows read (docs/performance.md).
 */
async function contributorsInPeriod(db: Database, now: Date): Promise<ContributorStanding[]> {
  return withRecentTotals(db, now, async (stale) => {
    const extra = stale.wallets.size;
    const rows = await db
      .select({ recipient: contributorRecentTotals.recipient, id: users.id, username: users.username, avatarUrl: users.avatarUrl, xdc: contributorRecentTotals.xdc, roxn: contributorRecentTotals.roxn, usdc: contributorRecentTotals.usdc, count: contributorRecentTotals.paidCount })
      .from(contributorRecentTotals)
      .innerJoin(wallets, eq(wallets.address, contributorRecentTotals.recipient))
      .innerJoin(users, eq(users.id, wallets.userId))
      .where(gt(contributorRecentTotals.paidCount, 0))
      .orderBy(desc(contributorRecentTotals.xdcKey), desc(contributorRecentTotals.roxnKey), desc(contributorRecentTotals.usdcKey), asc(users.id))
      .limit(LEADERBOARD_SIZE + extra);
    const standings = rows.map((r) => {
      const less = stale.wallets.get(r.recipient);
      return {
        id: r.id, username: r.username, avatarUrl: r.avatarUrl, count: r.count - (less?.count ?? 0),
        earned: { XDC: r.xdc - (less?.amounts.XDC ?? 0n), ROXN: r.roxn - (less?.amounts.ROXN ?? 0n), USDC: r.usdc - (less?.amounts.USDC ?? 0n) },
      };
    });
    return standings.filter((e) => e.count > 0).sort((a, b) => order(a.earned, b.earned) || a.id - b.id).slice(0, LEADERBOARD_SIZE);
  });
}

/**
 * Runs `read` with the payouts between the recent totals' horizon and 30 days before `now` (what the totals still
 * count but the board must not), again if the horizon moved meanwhile (a pass subtracted them itself). Totals not
 * built yet (a database that never started a server since migration 0016) are built first, once.
 */
async function withRecentTotals<T>(db: Database, now: Date, read: (stale: Awaited<ReturnType<typeof payoutsBetween>>) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const horizon = await recentHorizon(db);
    if (!horizon) {
      await rebuildRecentTotals(db, now);
      continue;
    }
    const stale = await payoutsBetween(db, horizon, new Date(now.getTime() - PERIOD_MS));
    const result = await read(stale);
    if ((await recentHorizon(db))?.getTime() === horizon.getTime() || attempt >= 3) return result;
  }
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
  if (period === "30d") standings = await projectsInPeriod(db, now);
  else {
    const rows = await db
      .select({
        id: repositories.githubRepoId, name: repositories.fullName, owner: repositories.owner,
        open: repositoryReliability.openCount, paid: repositoryReliability.paidCount,
        xdc: repositoryReliability.paidXdc, roxn: repositoryReliability.paidRoxn, usdc: repositoryReliability.paidUsdc,
      })
      .from(repositoryReliability)
      // CROSS JOIN: the records' board index is walked in order and stops at 50 (docs/performance.md).
      .crossJoin(repositories)
      .where(and(eq(repositories.githubRepoId, repositoryReliability.githubRepoId), listed, sql`${repositoryReliability.openCount} + ${repositoryReliability.paidCount} > 0`))
      .orderBy(desc(repositoryReliability.openCount), desc(repositoryReliability.paidCount), asc(repositories.githubRepoId))
      .limit(LEADERBOARD_SIZE);
    standings = rows.map((r) => ({ id: r.id, name: r.name, owner: r.owner, open: r.open, paid: r.paid, paidAmounts: { XDC: r.xdc, ROXN: r.roxn, USDC: r.usdc } }));
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

/** The 30-day projects board: the recent totals by index, less the payouts that aged out since their horizon (as contributorsInPeriod). */
async function projectsInPeriod(db: Database, now: Date): Promise<Omit<ProjectStanding, "openFunds">[]> {
  return withRecentTotals(db, now, async (stale) => {
    const rows = await db
      .select({
        id: repositories.githubRepoId, name: repositories.fullName, owner: repositories.owner,
        open: sql<number | null>`(select open_count from repository_reliability rr where rr.github_repo_id = ${repositories.githubRepoId})`,
        paid: repositoryRecentTotals.paidCount, xdc: repositoryRecentTotals.xdc, roxn: repositoryRecentTotals.roxn, usdc: repositoryRecentTotals.usdc,
      })
      .from(repositoryRecentTotals)
      // CROSS JOIN: the totals' board index is walked in order and stops at the limit.
      .crossJoin(repositories)
      .where(and(eq(repositories.githubRepoId, repositoryRecentTotals.githubRepoId), listed, gt(repositoryRecentTotals.paidCount, 0)))
      .orderBy(desc(repositoryRecentTotals.paidCount), desc(repositoryRecentTotals.xdcKey), desc(repositoryRecentTotals.roxnKey), desc(repositoryRecentTotals.usdcKey), asc(repositories.githubRepoId))
      .limit(LEADERBOARD_SIZE + stale.repositories.size);
    const standings = rows.map((r) => {
      const less = stale.repositories.get(r.id);
      return {
        id: r.id, name: r.name, owner: r.owner, open: Number(r.open ?? 0), paid: r.paid - (less?.count ?? 0),
        paidAmounts: { XDC: r.xdc - (less?.amounts.XDC ?? 0n), ROXN: r.roxn - (less?.amounts.ROXN ?? 0n), USDC: r.usdc - (less?.amounts.USDC ?? 0n) },
      };
    });
    return standings.filter((e) => e.paid > 0).sort((a, b) => b.paid - a.paid || order(a.paidAmounts, b.paidAmounts) || a.id - b.id).slice(0, LEADERBOARD_SIZE);
  });
}

/** The original product's projects board (its shape), with what was paid and what is open per currency. */
export async function projectLeaderboard(deps: { database: { db: Database }; githubUrl: string }, period: LeaderboardPeriod = "all"): Promise<ProjectRow[]> {
  const decimals = (e: Earned) => ({ XDC: toDecimalString(e.XDC, DECIMALS.XDC), ROXN: toDecimalString(e.ROXN, DECIMALS.ROXN), USDC: toDecimalString(e.USDC, DECIMALS.USDC) });
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
