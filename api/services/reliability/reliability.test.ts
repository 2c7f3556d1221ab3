/**
 * The sponsor's record (issue 30, item 4): moved by the indexer's bounty writes as they happen (payout on a merge,
 * by hand, cancellation, a reorganisation taking a payout back), read back as the badge and the pages show it.
 * The bounty writes run through the indexer's own mirror function with the events the contract emits.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { parseEther, type Hex } from "viem";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser } from "../../../testing/auth.ts";
import { awaitingDecisions, chainEvents, chainTransactions, contributorRecentTotals, contributorTotals, repositories, repositoryPools, repositoryRecentTotals, repositoryReliability, wallets } from "../../../db/schema/index.ts";
import { writeBounty, type ParsedEvent } from "../../chain/indexer-mirror.ts";
import type { Database } from "../../../db/client.ts";
import { reliabilityOf } from "./read.ts";
import { advanceRecentTotals, ensureRecords, rebuildRecentTotals, rebuildRecords, RECENT_PERIOD_MS, recentHorizon } from "./record.ts";
import { recentTotalsHorizon } from "../../../db/schema/index.ts";
import { contributorStandings, projectStandings } from "../money/leaderboards.ts";

let t: TestContext;
let db: Database;
/** Each test has a repository of its own (bun test --randomize runs them in any order). */
let REPO = 77;
let NAME = "paysfast";
const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 20, 12);
const CONTRIBUTOR = "0x00000000000000000000000000000000000000b0";

let block = 10n;
const times = new Map<bigint, Date>();
function event(eventName: string, issueNumber: number, at: number, extra: Record<string, unknown> = {}): ParsedEvent {
  const blockNumber = block++;
  times.set(blockNumber, new Date(at));
  return {
    eventName,
    args: { repoId: BigInt(REPO), issueNumber: BigInt(issueNumber), currency: 0, amount: parseEther("2"), ...extra },
    transactionHash: `0x${eventName.toLowerCase()}${issueNumber}${blockNumber}` as Hex,
    blockNumber,
    logIndex: 0,
  };
}
async function payoutQueued(hash: string, issueNumber: number, at: number, by: { userId: number | null; reason: string }) {
  await db.insert(chainTransactions).values({
    id: hash, idempotencyKey: hash, requestHash: "h", kind: "pay_bounty", githubRepoId: REPO, issueNumber, userId: by.userId,
    intent: JSON.stringify({ repoId: REPO, issueNumber, reason: by.reason }), fromAddress: "0x1", chainId: 31337, toAddress: "0x2",
    data: "0x", value: 0n, txHash: hash, createdAt: new Date(at),
  });
}
const write = (events: ParsedEvent[], issueNumber: number, options?: { removeWhenNone?: boolean }) =>
  writeBounty(db, events, times, BigInt(REPO), BigInt(issueNumber), Number(block), options);
const record = async () => (await reliabilityOf({ database: { db } }, [REPO])).get(REPO)!;

beforeAll(async () => {
  t = await createTestContext();
  db = t.ctx.database.db;
});
let nextRepo = 77;
beforeEach(async () => {
  REPO = nextRepo++;
  NAME = `paysfast${REPO}`;
  await db.insert(repositories).values({ githubRepoId: REPO, fullName: `acme/${NAME}`, fullNameKey: `acme/${NAME}`, owner: "acme", name: NAME, htmlUrl: `https://github.com/acme/${NAME}` });
});

/** Issue 1 paid on its merge (queued at T0, mined 3 minutes later); issue 2 released by hand two hours after the decision was asked. */
async function twoPayouts(): Promise<void> {
  const allocated1 = event("BountyAllocated", 1, T0 - 60 * MINUTE);
  await write([allocated1], 1);
  const paid1 = event("BountyPaid", 1, T0 + 3 * MINUTE, { contributor: CONTRIBUTOR });
  await payoutQueued(paid1.transactionHash, 1, T0, { userId: null, reason: "pull request #5 merged" });
  await write([paid1], 1);
  await write([event("BountyAllocated", 2, T0 - 60 * MINUTE)], 2);
  await db.insert(awaitingDecisions).values({ githubRepoId: REPO, issueNumber: 2, allocatedTx: "0x", reason: "closed_completed", createdAt: new Date(T0) });
  const paid2 = event("BountyPaid", 2, T0 + 120 * MINUTE, { contributor: CONTRIBUTOR });
  const manager = await createTestUser(t, { role: "poolmanager" });
  await payoutQueued(paid2.transactionHash, 2, T0 + 119 * MINUTE, { userId: manager.id, reason: "released by the pool manager" });
  await write([paid2], 2);
  // Writing the same state again (a rebuild) counts nothing twice.
  await write([paid2], 2);
}
afterAll(() => t.close());

describe("the sponsor's record", () => {
  test("a repository with no history: zeros, no badge figures, the funds it holds", async () => {
    await db.insert(repositoryPools).values({ githubRepoId: REPO, currency: "XDC", balance: parseEther("10"), allocated: parseEther("4") });
    const r = await record();
    expect(r).toMatchObject({ paidCount: 0, automaticShare: null, medianPaidWithinMs: null, decisionsWaiting: 0, cancelledCount: 0 });
    expect(r.escrow.XDC).toBe(parseEther("14"));
    const badge = await call(t, `/badge/acme/${NAME}/reliability.json`);
    expect(await badge.json()).toMatchObject({ label: "pays", message: "no payouts yet" });
  });

  test("payouts on merged fixes count as automatic, timed from the merge; a payout by hand is not automatic", async () => {
    await twoPayouts();

    const r = await record();
    expect(r).toMatchObject({ paidCount: 2, automaticShare: 0.5, timedPayouts: 2, medianPaidWithinMs: 5 * MINUTE, p90PaidWithinMs: 6 * 60 * MINUTE, decisionsWaiting: 1 });
    const badge = await (await call(t, `/api/badges/acme/${NAME}/reliability.json`)).json();
    expect(badge.message).toBe("2 paid · median within 5 minutes of merge · 50% automatic · 1 decision waiting");
    expect((await call(t, `/badge/acme/${NAME}/reliability.svg`)).headers.get("content-type")).toContain("image/svg+xml");
  });

  test("a cancellation counts; a new bounty on the same issue keeps it counted; a reorganisation takes a payout back", async () => {
    await twoPayouts();
    await write([event("BountyAllocated", 3, T0), event("BountyCancelled", 3, T0 + MINUTE)], 3);
    expect((await record()).cancelledCount).toBe(1);
    await write([event("BountyAllocated", 3, T0 + 2 * MINUTE)], 3);
    expect((await record()).cancelledCount).toBe(1);
    // The block that paid issue 1 is gone: rebuilt from what remains (its allocation), the payout leaves the record.
    const [before] = await db.select().from(repositoryReliability).where(eq(repositoryReliability.githubRepoId, REPO));
    expect(before!.paidCount).toBe(2);
    await writeBounty(db, [], times, BigInt(REPO), 1n, Number(block), { removeWhenNone: true });
    const r = await record();
    expect(r).toMatchObject({ paidCount: 1, automaticShare: 0, timedPayouts: 1 });
  });

  test("unknown or private repositories: the neutral badge, never data", async () => {
    expect(await (await call(t, "/badge/acme/nothing/reliability.json")).json()).toMatchObject({ message: "not registered" });
    expect((await call(t, `/badge/acme/${NAME}/other.svg`)).status).toBe(404);
  });
});

describe("the 30-day boards' totals", () => {
  const DAY = 24 * 60 * MINUTE;
  const recentTables = async () => ({
    wallets: await db.select({ recipient: contributorRecentTotals.recipient, n: contributorRecentTotals.paidCount, xdc: contributorRecentTotals.xdc }).from(contributorRecentTotals).orderBy(contributorRecentTotals.recipient),
    repositories: await db.select({ id: repositoryRecentTotals.githubRepoId, n: repositoryRecentTotals.paidCount, xdc: repositoryRecentTotals.xdc }).from(repositoryRecentTotals).orderBy(repositoryRecentTotals.githubRepoId),
  });
  const deps = () => ({ database: { db } });

  test("a payout shows at once, leaves when it is 30 days old (and when a reorganisation takes it back); rebuilt, the totals are the same", async () => {
    await rebuildRecentTotals(db);
    const user = await createTestUser(t, { role: "contributor" });
    const [wallet] = await db.select().from(wallets).where(eq(wallets.userId, user.id));
    const now = Date.now();
    const pay = async (issueNumber: number, at: number) => {
      await write([event("BountyAllocated", issueNumber, at - 60 * MINUTE)], issueNumber);
      await write([event("BountyPaid", issueNumber, at, { contributor: wallet!.address })], issueNumber);
    };
    const mine = async (at?: number) => (await contributorStandings(deps(), "30d", at === undefined ? undefined : new Date(at))).find((s) => s.id === user.id);
    const repo = async (at?: number) => (await projectStandings(deps(), "30d", at === undefined ? undefined : new Date(at))).find((s) => s.id === REPO);

    // Paid a minute ago: on both boards at once (no minute's copy of the board read just before).
    expect(await mine()).toBeUndefined();
    expect(await repo()).toBeUndefined();
    await pay(1, now - MINUTE);
    expect((await mine())?.earned.XDC).toBe(parseEther("2"));
    expect((await repo())?.paid).toBe(1);
    // Paid 29 days and 23 hours ago: on the boards now, gone an hour and a bit later, whether or not the horizon moved.
    await pay(2, now - RECENT_PERIOD_MS + 60 * MINUTE);
    expect(await mine()).toMatchObject({ count: 2, earned: { XDC: parseEther("4") } });
    const later = now + 2 * 60 * MINUTE;
    expect(await mine(later)).toMatchObject({ count: 1, earned: { XDC: parseEther("2") } });
    expect((await repo(later))?.paid).toBe(1);
    await advanceRecentTotals(db, new Date(later));
    expect(await mine(later)).toMatchObject({ count: 1, earned: { XDC: parseEther("2") } });
    const incremental = await recentTables();
    expect(incremental.wallets.find((w) => w.recipient === wallet!.address)).toMatchObject({ n: 1, xdc: parseEther("2") });
    await rebuildRecentTotals(db, new Date(later));
    expect(await recentTables()).toEqual(incremental);
    // A payout older than the period (an indexer catching up) never counts; a reorganisation takes one back.
    await pay(3, later - RECENT_PERIOD_MS - DAY);
    expect(await mine(later)).toMatchObject({ count: 1 });
    await writeBounty(db, [], times, BigInt(REPO), 1n, Number(block), { removeWhenNone: true });
    expect(await mine(later)).toBeUndefined();
    expect(await repo(later)).toBeUndefined();
    const afterReorg = await recentTables();
    await rebuildRecentTotals(db, new Date(later));
    expect(await recentTables()).toEqual(afterReorg);
  });

  test("a database from before the 30-day totals (records, no horizon) gets them built at start", async () => {
    await twoPayouts();
    await rebuildRecentTotals(db);
    const built = await recentTables();
    await db.delete(recentTotalsHorizon);
    await db.delete(contributorRecentTotals);
    await db.delete(repositoryRecentTotals);
    // Not built: the indexer's writes leave them alone until they are.
    await write([event("BountyAllocated", 9, Date.now())], 9);
    expect(await recentTables()).toEqual({ wallets: [], repositories: [] });
    await ensureRecords(db);
    expect(await recentHorizon(db)).not.toBeNull();
    expect(await recentTables()).toEqual(built);
  });
});

describe("a split payout (issue 29)", () => {
  test("each recipient is credited their share; a reorganisation takes every share back; a rebuild gives the same", async () => {
    const [b1, b2] = ["0x00000000000000000000000000000000000000b1", "0x00000000000000000000000000000000000000b2"];
    const totals = async () => (await db.select().from(contributorTotals).where(inArray(contributorTotals.recipient, [b1, b2])).orderBy(contributorTotals.recipient)).map((r) => [r.recipient, r.paidCount, r.xdc]);
    await write([event("BountyAllocated", 1, T0)], 1);
    const paid = event("BountyPaid", 1, T0 + MINUTE, { contributor: b1 });
    // The shares are read from the stored events of the payout's transaction (stored before the bounty is written).
    for (const [i, recipient] of [b1, b2].entries()) {
      await db.insert(chainEvents).values({
        chainId: 31337, blockNumber: Number(paid.blockNumber), txHash: paid.transactionHash, logIndex: 10 + i, name: "BountySharePaid", repoId: REPO, issueNumber: 1,
        args: JSON.stringify({ repoId: String(REPO), issueNumber: "1", currency: 0, amount: parseEther("1").toString(), recipient }),
      });
    }
    await write([paid], 1);
    expect(await totals()).toEqual([[b1, 1, parseEther("1")], [b2, 1, parseEther("1")]]);
    const [repoRecord] = await db.select().from(repositoryReliability).where(eq(repositoryReliability.githubRepoId, REPO));
    expect(repoRecord).toMatchObject({ paidCount: 1, paidXdc: parseEther("2") });
    await rebuildRecords(db);
    expect(await totals()).toEqual([[b1, 1, parseEther("1")], [b2, 1, parseEther("1")]]);
    // The block that paid is gone: rebuilt from its allocation, both shares leave the totals.
    await db.delete(chainEvents).where(eq(chainEvents.txHash, paid.transactionHash));
    await write([event("BountyAllocated", 1, T0)], 1, { removeWhenNone: true });
    expect(await totals()).toEqual([[b1, 0, 0n], [b2, 0, 0n]]);
    await rebuildRecords(db);
    expect(await totals()).toEqual([]);
  });
});
