/**
 * The boards (issue 30, item 2): all time from the totals kept as payouts happen, 30 days from the period's
 * payouts; amounts per currency without an exchange rate; private repositories' payouts never shown; the
 * original client's shapes kept (checked against the API document by the test app); `period` parsed strictly.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseEther, parseUnits } from "viem";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { bounties, repositories, repositoryPools, wallets, type Currency } from "../../../db/schema/index.ts";
import { eq } from "drizzle-orm";
import { rebuildRecords } from "../../services/reliability/record.ts";

let t: TestContext;
let signedIn: TestSession;
const DAY = 86_400_000;
const now = Date.now();

async function repo(id: number, fullName: string, extra: Partial<typeof repositories.$inferInsert> = {}) {
  const [owner, name] = fullName.split("/") as [string, string];
  await t.ctx.database.db.insert(repositories).values({ githubRepoId: id, fullName, fullNameKey: fullName.toLowerCase(), owner, name, htmlUrl: `https://github.com/${fullName}`, ...extra });
}
let issue = 1;
async function paid(repoId: number, recipient: string, currency: Currency, amount: bigint, daysAgo: number) {
  await t.ctx.database.db.insert(bounties).values({
    githubRepoId: repoId, issueNumber: issue++, currency, amount, status: "paid", recipient, allocatedTx: `0xa${issue}`, paidTx: `0xp${issue}`,
    allocatedAt: new Date(now - (daysAgo + 1) * DAY), closedAt: new Date(now - daysAgo * DAY), updatedBlock: 1,
  });
}
async function open(repoId: number, currency: Currency, amount: bigint) {
  await t.ctx.database.db.insert(bounties).values({
    githubRepoId: repoId, issueNumber: issue++, currency, amount, status: "open", allocatedTx: `0xa${issue}`, allocatedAt: new Date(now), updatedBlock: 1,
  });
}
const walletOf = async (userId: number) => (await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, userId)))[0]!.address;

// biome-ignore lint/suspicious/noExplicitAny: read as a client reads JSON
async function board(path: string, as?: TestSession): Promise<{ status: number; body: any }> {
  const res = await call(t, path, { as });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  t = await createTestContext();
  const ann = await createTestUser(t, { username: "ann", role: "contributor" });
  const ben = await createTestUser(t, { username: "ben", role: "contributor" });
  signedIn = await signInAs(t, ben);
  await repo(1, "acme/one");
  await repo(2, "acme/two");
  await repo(3, "acme/hidden", { isPrivate: true });
  const [annWallet, benWallet] = [await walletOf(ann.id), await walletOf(ben.id)];
  await paid(1, annWallet, "XDC", parseEther("3"), 60); // long ago
  await paid(1, annWallet, "USDC", parseUnits("5", 6), 2);
  await paid(2, benWallet, "XDC", parseEther("1.5"), 1);
  await paid(2, benWallet, "ROXN", parseEther("40"), 1);
  await paid(3, benWallet, "XDC", parseEther("100"), 1); // a private repository: never on a board
  await open(2, "XDC", parseEther("7"));
  await t.ctx.database.db.insert(repositoryPools).values({ githubRepoId: 2, currency: "XDC", balance: parseEther("1"), allocated: parseEther("7") });
  await rebuildRecords(t.ctx.database.db);
});
afterAll(() => t.close());

describe("GET /api/leaderboard/*", () => {
  test("contributors, all time and 30 days; the same anonymous and signed in", async () => {
    const all = await board("/api/leaderboard/contributors");
    expect(all.status).toBe(200);
    expect(all.body.map((r: { username: string; xdcEarned: string }) => [r.username, r.xdcEarned])).toEqual([["ann", "3.00"], ["ben", "1.50"]]);
    expect(all.body[1]).toMatchObject({ rank: 2, roxnEarned: "40.00", usdcEarned: "0.00", rewardsCount: 2 });
    expect((await board("/api/leaderboard/contributors", signedIn)).body).toEqual(all.body);
    const recent = await board("/api/leaderboard/contributors?period=30d");
    expect(recent.body.map((r: { username: string }) => r.username)).toEqual(["ben", "ann"]);
    expect(recent.body[1]).toMatchObject({ xdcEarned: "0.00", usdcEarned: "5.00", rewardsCount: 1 });
  });

  test("projects: open bounties then paid (all time), paid in the period (30 days); amounts per currency", async () => {
    const all = (await board("/api/leaderboard/projects")).body;
    expect(all.map((r: { name: string }) => r.name)).toEqual(["acme/two", "acme/one"]);
    expect(all[0]).toMatchObject({ bountiesCount: 1, paidCount: 2, paidAmounts: { XDC: "1.5", ROXN: "40", USDC: "0" }, openFunds: { XDC: "7", ROXN: "0", USDC: "0" } });
    const recent = (await board("/api/leaderboard/projects?period=30d")).body;
    expect(recent.map((r: { name: string; paidCount: number }) => [r.name, r.paidCount])).toEqual([["acme/two", 2], ["acme/one", 1]]);
    expect(recent[1].paidAmounts).toEqual({ XDC: "0", ROXN: "0", USDC: "5" });
  });

  test("a bad period: 400 naming it", async () => {
    const bad = await board("/api/leaderboard/contributors?period=week");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toStartWith("period");
  });
});
