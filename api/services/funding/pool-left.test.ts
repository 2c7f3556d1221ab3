/**
 * A boosted bounty whose pool manager took the pool's share back (cancelPoolShare): the mirror keeps the pool's row
 * open with amount 0 (api/chain/indexer-boosts.test.ts checks that against anvil, batched and rebuilt); from that
 * state the funders' pass makes it a community bounty, listed by the original client's calls and /explore with the
 * funders' total, once, and not counted as the pool's. Rows are written as the indexer and the boosts mirror them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { parseEther } from "viem";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser } from "../../../testing/auth.ts";
import { bounties, bountyBoosts, communityBounties, repositories, type User } from "../../../db/schema/index.ts";
import { settleBoosts } from "./boost-mirror.ts";

let t: TestContext;
let alice: User;
let bob: User;
const REPO = 7101;
let keys = 0;

async function boost(user: User, issueNumber: number, xdc: string, at: number, status: "active" | "refunded" = "active") {
  await t.ctx.database.db.insert(bountyBoosts).values({
    githubRepoId: REPO, issueNumber, userId: user.id, funderAddress: `0x${String(user.id).padStart(40, "0")}`,
    currency: "XDC", amount: parseEther(xdc), fee: 0n, status, idempotencyKey: `k${++keys}`, createdAt: new Date(at),
  });
}
// biome-ignore lint/suspicious/noExplicitAny: read as a client reads JSON
const get = async (path: string): Promise<any> => (await call(t, path)).json();

beforeAll(async () => {
  t = await createTestContext();
  alice = await createTestUser(t, { role: "contributor" });
  bob = await createTestUser(t, { role: "contributor" });
  const db = t.ctx.database.db;
  await db.insert(repositories).values({ githubRepoId: REPO, fullName: "acme/left", fullNameKey: "acme/left", owner: "acme", name: "left", htmlUrl: "https://github.com/acme/left" });
  const row = { githubRepoId: REPO, currency: "XDC" as const, status: "open" as const, allocatedAt: new Date(Date.UTC(2026, 10, 1)), updatedBlock: 1 };
  // 1: the pool's share taken back, two funders' shares left on it (and one refunded before).
  await db.insert(bounties).values({ ...row, issueNumber: 1, amount: 0n, allocatedTx: "0xa1", issueTitle: "Left to its funders", issueUrl: "https://github.com/acme/left/issues/1" });
  // 2: the pool's bounty, boosted: not a community bounty.
  await db.insert(bounties).values({ ...row, issueNumber: 2, amount: parseEther("5"), allocatedTx: "0xa2", issueTitle: "Pool's own" });
  // 3: the pool's share taken back and every funder gone: nothing left to list.
  await db.insert(bounties).values({ ...row, issueNumber: 3, amount: 0n, allocatedTx: "0xa3", issueTitle: "Emptied" });
  const T = Date.UTC(2026, 10, 2);
  await boost(bob, 1, "9", T - 1_000, "refunded");
  await boost(alice, 1, "2", T);
  await boost(bob, 1, "1.5", T + 1_000);
  await boost(alice, 2, "1", T);
  await boost(alice, 3, "1", T, "refunded");
});
afterAll(() => t?.close());

describe("a bounty its pool manager left to its funders", () => {
  test("becomes one community bounty with the funders' total, in the community list and /explore, not the pool's", async () => {
    const db = t.ctx.database.db;
    expect(await db.select().from(communityBounties).where(eq(communityBounties.githubRepoId, REPO))).toEqual([]);
    await settleBoosts(t.ctx);
    await settleBoosts(t.ctx); // a second pass (or a second process) makes no second row
    const rows = await db.select().from(communityBounties).where(eq(communityBounties.githubRepoId, REPO));
    expect(rows.map((r) => ({ issue: r.issueNumber, status: r.status, creator: r.createdByLogin }))).toEqual([{ issue: 1, status: "funded", creator: alice.username }]);

    const list = await get(`/api/community-bounties?repo=acme/left`);
    expect(list.total).toBe(1);
    expect(list.bounties[0]).toMatchObject({
      githubRepoOwner: "acme", githubRepoName: "left", githubIssueNumber: 1, title: "Left to its funders", currency: "XDC",
      amount: "3.50000000", status: "funded", createdByGithubUsername: alice.username,
    });
    const funders = await get(`/api/funding/issues/acme/left/1`);
    expect(funders.funders?.map((f: { funder: string; amount: string }) => [f.funder, f.amount]) ?? funders).toEqual([[alice.username, "2"], [bob.username, "1.5"]]);

    // /explore: listed once with the funders' total; the pool's boosted bounty with its whole total (pool 5 + alice's 1); the emptied one is not on offer.
    const explore = await get(`/api/explore?repo=acme/left`);
    expect(explore.bounties.map((b: { issueNumber: number; amount: string }) => [b.issueNumber, b.amount]).sort()).toEqual([[1, "3.5"], [2, "6"]]);
    // The original client's list of the repository's (pool) bounties leaves it to the community list: no bounty of 0.
    const pooled = await get(`/api/public/repositories/${REPO}/bounties`);
    expect(pooled.bounties.map((b: { issueId: string; amount: string }) => [b.issueId, b.amount])).toEqual([["2", "5"]]);
    // The pool's row stays the pool's 0 (its locked amount and paid totals never count the funders' shares twice).
    const [pool] = await db.select().from(bounties).where(and(eq(bounties.githubRepoId, REPO), eq(bounties.issueNumber, 1)));
    expect(pool?.amount).toBe(0n);
  });
});
