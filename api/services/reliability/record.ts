/**
 * A sponsor's record, kept as it happens (issue 30, item 4): each time the indexer writes a bounty's new state,
 * `recordBountyChange` moves the repository's counters (db/schema/reliability.ts) by the difference between the
 * bounty before and after. A page view then reads one row per repository, never the payouts. Differences, not
 * increments: a reorganisation that takes a payout back (the indexer rebuilds the bounty) takes it back here too.
 *
 * The time from merge to paid is measured from what the platform saw: the payout it queued when the merge's
 * webhook came (or the hold it kept for a contributor without a wallet, or the decision it asked the pool
 * manager for) to the block that paid. It is kept as a histogram over PAID_AFTER_BUCKETS_MS; the median and the
 * 90th percentile are reported as the bucket bound they fall in ("within 15 minutes").
 *
 * The same writes keep the 30-day boards' totals (contributor_recent_totals, repository_recent_totals): the payouts
 * at or after a horizon, which a pass moves on (due each minute; the indexer's writes and the server's pass run it),
 * subtracting the payouts it passes. The boards subtract the few between the horizon and 30 days ago themselves.
 */
import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Database, DbOrTx } from "../../../db/client.ts";
import {
  awaitingDecisions,
  bounties,
  bountyShares,
  chainTransactions,
  contributorRecentTotals,
  contributorTotals,
  heldPayouts,
  recentTotalsHorizon,
  repositoryRecentTotals,
  repositories,
  repositoryReliability,
  type BountyStatus,
  type Currency,
} from "../../../db/schema/index.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Upper bounds of the merge -> paid buckets; the last is open-ended. */
export const PAID_AFTER_BUCKETS_MS = [5 * MINUTE, 15 * MINUTE, HOUR, 6 * HOUR, DAY, 3 * DAY, 7 * DAY, 14 * DAY, 30 * DAY, Number.POSITIVE_INFINITY];

export function bucketOf(ms: number): number {
  return PAID_AFTER_BUCKETS_MS.findIndex((bound) => ms <= bound);
}

/** What of a bounty the record counts. */
export interface CountedBounty {
  status: BountyStatus;
  currency: Currency;
  amount: bigint;
  recipient: string | null;
  paidAfterMs: number | null;
  paidAutomatically: boolean | null;
  closedAt: Date | null;
  /** A split payout's shares (bounty_shares): each recipient is credited their share, not the first the whole. */
  shares?: PayoutShare[];
}

/** One recipient's share of a split payout. */
export interface PayoutShare {
  recipient: string;
  amount: bigint;
}

/**
 * Who a paid bounty credits, and with what: a split payout's recipients their shares, any other payout its recipient
 * the whole amount. The sponsor's record counts the payout once, whole.
 */
export function creditsOf(b: { amount: bigint; recipient: string | null; shares?: PayoutShare[] }): PayoutShare[] {
  if (b.shares?.length) return b.shares;
  return b.recipient ? [{ recipient: b.recipient, amount: b.amount }] : [];
}

/**
 * How a payout came about: automatically on a merged fix (the platform's own payout, or the hold it kept for a
 * contributor without a wallet) or by a pool manager's hand, and how long after the merge (or the decision asked
 * for) it was paid. Unknown parts are null (a payout sent from outside the platform).
 */
export async function payoutFacts(
  db: DbOrTx,
  input: { repoId: number; issueNumber: number; paidTx: string; paidAt: Date },
): Promise<{ paidAfterMs: number | null; paidAutomatically: boolean | null }> {
  const [payout] = await db
    .select({ userId: chainTransactions.userId, intent: chainTransactions.intent, createdAt: chainTransactions.createdAt })
    .from(chainTransactions)
    .where(eq(chainTransactions.txHash, input.paidTx))
    .limit(1);
  if (!payout) return { paidAfterMs: null, paidAutomatically: null };
  const reason = (JSON.parse(payout.intent) as { reason?: string }).reason ?? "";
  const [hold] = await db
    .select({ createdAt: heldPayouts.createdAt, pullNumber: heldPayouts.pullNumber })
    .from(heldPayouts)
    .where(and(eq(heldPayouts.githubRepoId, input.repoId), eq(heldPayouts.issueNumber, input.issueNumber)))
    .limit(1);
  const merged = /merged/.test(reason) || (hold?.pullNumber ?? null) !== null;
  const automatically = payout.userId === null && merged;
  let from: Date | null = null;
  if (hold) from = hold.createdAt;
  else if (automatically) from = payout.createdAt;
  else {
    const [asked] = await db
      .select({ createdAt: awaitingDecisions.createdAt })
      .from(awaitingDecisions)
      .where(and(eq(awaitingDecisions.githubRepoId, input.repoId), eq(awaitingDecisions.issueNumber, input.issueNumber)))
      .limit(1);
    from = asked?.createdAt ?? null;
  }
  return { paidAfterMs: from ? Math.max(0, input.paidAt.getTime() - from.getTime()) : null, paidAutomatically: automatically };
}

/** Moves the repository's record (and the paid wallet's totals) from `before` to `after` (either absent: the bounty appeared or went). */
export async function recordBountyChange(db: DbOrTx, repoId: number, before: CountedBounty | undefined, after: CountedBounty | undefined): Promise<void> {
  const delta = { open: 0, paid: 0, automatic: 0, cancelled: 0, amounts: { XDC: 0n, ROXN: 0n, USDC: 0n } as Record<Currency, bigint>, buckets: new Map<number, number>() };
  const wallets = new Map<string, { count: number; amounts: Record<Currency, bigint> }>();
  const count = (b: CountedBounty | undefined, sign: 1 | -1) => {
    if (!b) return;
    if (b.status === "open") delta.open += sign;
    if (b.status === "paid") {
      delta.paid += sign;
      delta.amounts[b.currency] += BigInt(sign) * b.amount;
      if (b.paidAutomatically) delta.automatic += sign;
      if (b.paidAfterMs !== null) {
        const bucket = bucketOf(b.paidAfterMs);
        delta.buckets.set(bucket, (delta.buckets.get(bucket) ?? 0) + sign);
      }
      for (const share of creditsOf(b)) {
        const w = wallets.get(share.recipient) ?? { count: 0, amounts: { XDC: 0n, ROXN: 0n, USDC: 0n } };
        w.count += sign;
        w.amounts[b.currency] += BigInt(sign) * share.amount;
        wallets.set(share.recipient, w);
      }
    }
    if (b.status === "cancelled") delta.cancelled += sign;
  };
  count(before, -1);
  count(after, 1);
  await recordRecentChange(db, repoId, before, after);
  // A private repository's payouts are not public: they stay off the contributors' totals.
  if (wallets.size && !(await isPrivateRepository(db, repoId))) {
    for (const [recipient, w] of wallets) await addToContributor(db, recipient, w.count, w.amounts);
  }
  const buckets = [...delta.buckets].filter(([, n]) => n !== 0);
  const moved = delta.open || delta.paid || delta.automatic || delta.cancelled || buckets.length || Object.values(delta.amounts).some((a) => a !== 0n);
  if (!moved) return;
  const [row] = await db.select().from(repositoryReliability).where(eq(repositoryReliability.githubRepoId, repoId)).limit(1);
  const histogram = row ? (JSON.parse(row.paidAfterHistogram) as number[]) : [];
  for (const [bucket, n] of buckets) histogram[bucket] = Math.max(0, (histogram[bucket] ?? 0) + n);
  const lastPaidAt = after?.status === "paid" && after.closedAt ? after.closedAt : (row?.lastPaidAt ?? null);
  const nonNegative = (v: bigint) => (v < 0n ? 0n : v);
  const values = {
    openCount: Math.max(0, (row?.openCount ?? 0) + delta.open),
    paidCount: Math.max(0, (row?.paidCount ?? 0) + delta.paid),
    paidAutomaticallyCount: Math.max(0, (row?.paidAutomaticallyCount ?? 0) + delta.automatic),
    cancelledCount: Math.max(0, (row?.cancelledCount ?? 0) + delta.cancelled),
    paidXdc: nonNegative((row?.paidXdc ?? 0n) + delta.amounts.XDC),
    paidRoxn: nonNegative((row?.paidRoxn ?? 0n) + delta.amounts.ROXN),
    paidUsdc: nonNegative((row?.paidUsdc ?? 0n) + delta.amounts.USDC),
    paidAfterHistogram: JSON.stringify(Array.from({ length: PAID_AFTER_BUCKETS_MS.length }, (_, i) => histogram[i] ?? 0)),
    lastPaidAt,
    updatedAt: new Date(),
  };
  await db.insert(repositoryReliability).values({ githubRepoId: repoId, ...values }).onConflictDoUpdate({ target: repositoryReliability.githubRepoId, set: values });
}

async function isPrivateRepository(db: DbOrTx, repoId: number): Promise<boolean> {
  const [row] = await db.select({ isPrivate: repositories.isPrivate }).from(repositories).where(eq(repositories.githubRepoId, repoId)).limit(1);
  return row?.isPrivate ?? false;
}

async function addToContributor(db: DbOrTx, recipient: string, count: number, amounts: Record<Currency, bigint>): Promise<void> {
  if (count === 0 && amounts.XDC === 0n && amounts.ROXN === 0n && amounts.USDC === 0n) return;
  const [row] = await db.select().from(contributorTotals).where(eq(contributorTotals.recipient, recipient)).limit(1);
  const plus = (a: bigint | undefined, b: bigint) => ((a ?? 0n) + b < 0n ? 0n : (a ?? 0n) + b);
  const values = {
    paidCount: Math.max(0, (row?.paidCount ?? 0) + count),
    xdc: plus(row?.xdc, amounts.XDC),
    roxn: plus(row?.roxn, amounts.ROXN),
    usdc: plus(row?.usdc, amounts.USDC),
    updatedAt: new Date(),
  };
  await db.insert(contributorTotals).values({ recipient, ...values }).onConflictDoUpdate({ target: contributorTotals.recipient, set: values });
}

/**
 * The records rebuilt from the bounties as they stand (timings from the rows' own paid_after_ms): at start when
 * the records are empty but bounties exist (a database from before the records, migration 0014), and as a repair.
 */
export async function rebuildRecords(db: Database): Promise<{ repositories: number; contributors: number }> {
  const rows = await db
    .select({
      repoId: bounties.githubRepoId, issueNumber: bounties.issueNumber, status: bounties.status, currency: bounties.currency, amount: bounties.amount, recipient: bounties.recipient,
      paidAfterMs: bounties.paidAfterMs, paidAutomatically: bounties.paidAutomatically, closedAt: bounties.closedAt, isPrivate: repositories.isPrivate,
    })
    .from(bounties)
    .leftJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId));
  const shares = await sharesByBounty(db);
  const repos = new Map<number, typeof repositoryReliability.$inferInsert & { histogram: number[] }>();
  const people = new Map<string, typeof contributorTotals.$inferInsert>();
  for (const b of rows) {
    const r = repos.get(b.repoId) ?? { githubRepoId: b.repoId, openCount: 0, paidCount: 0, paidAutomaticallyCount: 0, cancelledCount: 0, paidXdc: 0n, paidRoxn: 0n, paidUsdc: 0n, lastPaidAt: null, histogram: PAID_AFTER_BUCKETS_MS.map(() => 0) };
    repos.set(b.repoId, r);
    if (b.status === "open") r.openCount! += 1;
    if (b.status === "cancelled") r.cancelledCount! += 1;
    if (b.status !== "paid") continue;
    r.paidCount! += 1;
    if (b.paidAutomatically) r.paidAutomaticallyCount! += 1;
    if (b.paidAfterMs !== null) r.histogram[bucketOf(b.paidAfterMs)]! += 1;
    if (b.closedAt && (!r.lastPaidAt || b.closedAt > r.lastPaidAt)) r.lastPaidAt = b.closedAt;
    if (b.currency === "XDC") r.paidXdc! += b.amount;
    else if (b.currency === "ROXN") r.paidRoxn! += b.amount;
    else r.paidUsdc! += b.amount;
    if (b.isPrivate) continue;
    for (const share of creditsOf({ ...b, shares: shares.get(`${b.repoId}/${b.issueNumber}`) })) {
      const p = people.get(share.recipient) ?? { recipient: share.recipient, paidCount: 0, xdc: 0n, roxn: 0n, usdc: 0n };
      people.set(share.recipient, p);
      p.paidCount! += 1;
      if (b.currency === "XDC") p.xdc! += share.amount;
      else if (b.currency === "ROXN") p.roxn! += share.amount;
      else p.usdc! += share.amount;
    }
  }
  await db.transaction(async (tx) => {
    await tx.delete(repositoryReliability);
    await tx.delete(contributorTotals);
    const repoRows = [...repos.values()].map(({ histogram, ...r }) => ({ ...r, paidAfterHistogram: JSON.stringify(histogram) }));
    for (let i = 0; i < repoRows.length; i += 500) await tx.insert(repositoryReliability).values(repoRows.slice(i, i + 500));
    const peopleRows = [...people.values()];
    for (let i = 0; i < peopleRows.length; i += 500) await tx.insert(contributorTotals).values(peopleRows.slice(i, i + 500));
  });
  await rebuildRecentTotals(db);
  return { repositories: repos.size, contributors: people.size };
}

/** At start: the records are built once for a database that has bounties but no records yet. */
export async function ensureRecords(db: Database): Promise<void> {
  const [record] = await db.select({ id: repositoryReliability.githubRepoId }).from(repositoryReliability).limit(1);
  if (record) {
    // A database from before the 30-day totals (migration 0016): built once; else moved on to now.
    if (!(await recentHorizon(db))) await rebuildRecentTotals(db);
    else await advanceRecentTotals(db);
    return;
  }
  const [bounty] = await db.select({ id: bounties.githubRepoId }).from(bounties).limit(1);
  if (bounty) await rebuildRecords(db);
  else if (!(await recentHorizon(db))) await rebuildRecentTotals(db);
}

/** The 30-day boards' period. */
export const RECENT_PERIOD_MS = 30 * DAY;
/** The horizon moves on when it is this far behind (a minute's payouts subtracted at a time, at most). */
const HORIZON_STEP_MS = MINUTE;

type Amounts = Record<Currency, bigint>;
interface Moved {
  count: number;
  amounts: Amounts;
}
const zero = (): Moved => ({ count: 0, amounts: { XDC: 0n, ROXN: 0n, USDC: 0n } });

/** Since when the recent totals count payouts; null while they are not built (rebuildRecentTotals builds them). */
export async function recentHorizon(db: DbOrTx): Promise<Date | null> {
  const [row] = await db.select({ since: recentTotalsHorizon.since }).from(recentTotalsHorizon).where(eq(recentTotalsHorizon.id, 1)).limit(1);
  return row?.since ?? null;
}

/**
 * The 30-day boards' side of a bounty's change: a payout at or after the horizon counts (its wallet's and its
 * repository's recent totals), taken back when the bounty leaves 'paid'. Then the horizon moves on if it is due.
 */
async function recordRecentChange(db: DbOrTx, repoId: number, before: CountedBounty | undefined, after: CountedBounty | undefined): Promise<void> {
  const horizon = await recentHorizon(db);
  if (!horizon) return;
  const repo = zero();
  const wallets = new Map<string, Moved>();
  const count = (b: CountedBounty | undefined, sign: 1 | -1) => {
    if (!b || b.status !== "paid" || !b.closedAt || b.closedAt < horizon) return;
    repo.count += sign;
    repo.amounts[b.currency] += BigInt(sign) * b.amount;
    for (const share of creditsOf(b)) {
      const w = wallets.get(share.recipient) ?? zero();
      w.count += sign;
      w.amounts[b.currency] += BigInt(sign) * share.amount;
      wallets.set(share.recipient, w);
    }
  };
  count(before, -1);
  count(after, 1);
  await addRecent(db, "repository", repoId, repo);
  if (wallets.size && !(await isPrivateRepository(db, repoId))) {
    for (const [recipient, w] of wallets) await addRecent(db, "contributor", recipient, w);
  }
  await moveHorizon(db, horizon, new Date());
}

const isZero = (m: Moved) => m.count === 0 && m.amounts.XDC === 0n && m.amounts.ROXN === 0n && m.amounts.USDC === 0n;

/** Adds `moved` to one recent-totals row; a row whose count falls to 0 goes (the tables hold the period's payees only). */
async function addRecent(db: DbOrTx, kind: "contributor" | "repository", key: string | number, moved: Moved): Promise<void> {
  if (isZero(moved)) return;
  const plus = (a: bigint | undefined, b: bigint) => ((a ?? 0n) + b < 0n ? 0n : (a ?? 0n) + b);
  if (kind === "contributor") {
    const recipient = key as string;
    const [row] = await db.select().from(contributorRecentTotals).where(eq(contributorRecentTotals.recipient, recipient)).limit(1);
    const values = { paidCount: (row?.paidCount ?? 0) + moved.count, xdc: plus(row?.xdc, moved.amounts.XDC), roxn: plus(row?.roxn, moved.amounts.ROXN), usdc: plus(row?.usdc, moved.amounts.USDC) };
    if (values.paidCount <= 0) await db.delete(contributorRecentTotals).where(eq(contributorRecentTotals.recipient, recipient));
    else await db.insert(contributorRecentTotals).values({ recipient, ...values }).onConflictDoUpdate({ target: contributorRecentTotals.recipient, set: values });
    return;
  }
  const githubRepoId = key as number;
  const [row] = await db.select().from(repositoryRecentTotals).where(eq(repositoryRecentTotals.githubRepoId, githubRepoId)).limit(1);
  const values = { paidCount: (row?.paidCount ?? 0) + moved.count, xdc: plus(row?.xdc, moved.amounts.XDC), roxn: plus(row?.roxn, moved.amounts.ROXN), usdc: plus(row?.usdc, moved.amounts.USDC) };
  if (values.paidCount <= 0) await db.delete(repositoryRecentTotals).where(eq(repositoryRecentTotals.githubRepoId, githubRepoId));
  else await db.insert(repositoryRecentTotals).values({ githubRepoId, ...values }).onConflictDoUpdate({ target: repositoryRecentTotals.githubRepoId, set: values });
}

/**
 * The payouts made in [from, to), per repository and per wallet (a private repository's stay off the wallets', as
 * on the all-time board): what leaves the recent totals when the horizon passes them, and what a board subtracts
 * itself between the horizon and its 30 days (bounties_closed_idx: the range only).
 */
export async function payoutsBetween(db: DbOrTx, from: Date, to: Date): Promise<{ repositories: Map<number, Moved>; wallets: Map<string, Moved> }> {
  const result = { repositories: new Map<number, Moved>(), wallets: new Map<string, Moved>() };
  if (to <= from) return result;
  const rows = await db
    .select({ repoId: bounties.githubRepoId, issueNumber: bounties.issueNumber, currency: bounties.currency, amount: bounties.amount, recipient: bounties.recipient, isPrivate: sql<number | null>`(select r.is_private from repositories r where r.github_repo_id = ${bounties.githubRepoId})` })
    .from(bounties)
    .where(and(eq(bounties.status, "paid"), gte(bounties.closedAt, from), lt(bounties.closedAt, to)));
  const shares = rows.length ? await sharesByBounty(db, rows) : new Map<string, PayoutShare[]>();
  for (const b of rows) {
    const r = result.repositories.get(b.repoId) ?? zero();
    r.count += 1;
    r.amounts[b.currency] += b.amount;
    result.repositories.set(b.repoId, r);
    if (Number(b.isPrivate ?? 0) === 1) continue;
    for (const share of creditsOf({ ...b, shares: shares.get(`${b.repoId}/${b.issueNumber}`) })) {
      const w = result.wallets.get(share.recipient) ?? zero();
      w.count += 1;
      w.amounts[b.currency] += share.amount;
      result.wallets.set(share.recipient, w);
    }
  }
  return result;
}

/** The split payouts' shares by "repoId/issueNumber" (of the bounties given, or all). */
async function sharesByBounty(db: DbOrTx, of?: { repoId: number; issueNumber: number }[]): Promise<Map<string, PayoutShare[]>> {
  // By repository when they are few (a minute's payouts), else all (a rebuild): split payouts are the rare ones.
  const repoIds = of ? [...new Set(of.map((b) => b.repoId))] : [];
  const rows = await db
    .select({ repoId: bountyShares.githubRepoId, issueNumber: bountyShares.issueNumber, recipient: bountyShares.recipient, amount: bountyShares.amount })
    .from(bountyShares)
    .where(of && repoIds.length <= 500 ? inArray(bountyShares.githubRepoId, repoIds) : undefined);
  const result = new Map<string, PayoutShare[]>();
  for (const r of rows) {
    const key = `${r.repoId}/${r.issueNumber}`;
    result.set(key, [...(result.get(key) ?? []), { recipient: r.recipient, amount: r.amount }]);
  }
  return result;
}

const negate = (m: Moved): Moved => ({ count: -m.count, amounts: { XDC: -m.amounts.XDC, ROXN: -m.amounts.ROXN, USDC: -m.amounts.USDC } });

/** Moves the horizon to 30 days before `now` when it is a step behind, subtracting the payouts it passes (in the caller's transaction). */
async function moveHorizon(db: DbOrTx, horizon: Date, now: Date): Promise<void> {
  const target = new Date(now.getTime() - RECENT_PERIOD_MS);
  if (target.getTime() - horizon.getTime() < HORIZON_STEP_MS) return;
  const leaving = await payoutsBetween(db, horizon, target);
  for (const [repoId, m] of leaving.repositories) await addRecent(db, "repository", repoId, negate(m));
  for (const [recipient, m] of leaving.wallets) await addRecent(db, "contributor", recipient, negate(m));
  await db.update(recentTotalsHorizon).set({ since: target }).where(eq(recentTotalsHorizon.id, 1));
}

/** The horizon moved on now if it is due (a pass for when no bounty has been written for a while). */
export async function advanceRecentTotals(db: Database, now = new Date()): Promise<void> {
  const horizon = await recentHorizon(db);
  if (!horizon || now.getTime() - RECENT_PERIOD_MS - horizon.getTime() < HORIZON_STEP_MS) return;
  await db.transaction(async (tx) => {
    const current = await recentHorizon(tx);
    if (current) await moveHorizon(tx, current, now);
  });
}

/** The 30-day boards' totals built from the payouts of the last 30 days (and the horizon set), in one transaction. */
export async function rebuildRecentTotals(db: Database, now = new Date()): Promise<void> {
  const since = new Date(now.getTime() - RECENT_PERIOD_MS);
  await db.transaction(async (tx) => {
    const recent = await payoutsBetween(tx, since, new Date(8.64e15));
    await tx.delete(repositoryRecentTotals);
    await tx.delete(contributorRecentTotals);
    const repoRows = [...recent.repositories].map(([githubRepoId, m]) => ({ githubRepoId, paidCount: m.count, xdc: m.amounts.XDC, roxn: m.amounts.ROXN, usdc: m.amounts.USDC }));
    for (let i = 0; i < repoRows.length; i += 500) await tx.insert(repositoryRecentTotals).values(repoRows.slice(i, i + 500));
    const walletRows = [...recent.wallets].map(([recipient, m]) => ({ recipient, paidCount: m.count, xdc: m.amounts.XDC, roxn: m.amounts.ROXN, usdc: m.amounts.USDC }));
    for (let i = 0; i < walletRows.length; i += 500) await tx.insert(contributorRecentTotals).values(walletRows.slice(i, i + 500));
    await tx.insert(recentTotalsHorizon).values({ id: 1, since }).onConflictDoUpdate({ target: recentTotalsHorizon.id, set: { since } });
  });
}
