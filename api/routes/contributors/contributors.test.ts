/**
 * Contributor profiles (issue 30, item 3): what a contributor earned, where, what they work on now; nothing
 * private (a private repository's payouts and claims, the wallet address unless its owner shows it); the
 * visibility switch is the owner's own (session and anti-forgery token; the shared security cases).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { parseEther } from "viem";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { securityCases } from "../../../testing/security.ts";
import { bounties, bountyClaims, repositories, wallets } from "../../../db/schema/index.ts";
import { rebuildRecords } from "../../services/reliability/record.ts";

let t: TestContext;
let dana: TestSession;
let eve: TestSession;

async function repo(id: number, fullName: string, isPrivate = false) {
  const [owner, name] = fullName.split("/") as [string, string];
  await t.ctx.database.db.insert(repositories).values({ githubRepoId: id, fullName, fullNameKey: fullName.toLowerCase(), owner, name, htmlUrl: `https://github.com/${fullName}`, isPrivate });
}

// biome-ignore lint/suspicious/noExplicitAny: read as a client reads JSON
async function get(path: string, as?: TestSession): Promise<{ status: number; body: any }> {
  const res = await call(t, path, { as });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  t = await createTestContext();
  dana = await signInAs(t, await createTestUser(t, { username: "Dana", role: "contributor" }));
  eve = await signInAs(t, await createTestUser(t, { username: "eve", role: "contributor" }));
  const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, dana.user.id));
  await repo(1, "acme/open");
  await repo(2, "acme/secret", true);
  const base = { allocatedTx: "0xa", allocatedAt: new Date(Date.UTC(2026, 9, 1)), updatedBlock: 1 };
  await t.ctx.database.db.insert(bounties).values([
    { ...base, githubRepoId: 1, issueNumber: 1, currency: "XDC", amount: parseEther("2.5"), status: "paid", recipient: wallet!.address, paidTx: "0xfeed", closedAt: new Date(Date.UTC(2026, 9, 5)), issueTitle: "Fix it" },
    { ...base, githubRepoId: 2, issueNumber: 2, currency: "XDC", amount: parseEther("9"), status: "paid", recipient: wallet!.address, paidTx: "0xbeef", closedAt: new Date(Date.UTC(2026, 9, 6)) },
    { ...base, githubRepoId: 1, issueNumber: 3, currency: "USDC", amount: 4_000_000n, status: "open", issueTitle: "Next one" },
    { ...base, githubRepoId: 2, issueNumber: 4, currency: "USDC", amount: 4_000_000n, status: "open" },
  ]);
  await t.ctx.database.db.insert(bountyClaims).values([{ githubRepoId: 1, issueNumber: 3, userId: dana.user.id }, { githubRepoId: 2, issueNumber: 4, userId: dana.user.id }]);
  await rebuildRecords(t.ctx.database.db);
});
afterAll(() => t.close());

describe("GET /api/contributors/{login}", () => {
  test("earned, repositories, working on: public repositories only; any case of the login; same for everyone", async () => {
    const { status, body } = await get("/api/contributors/dana");
    expect(status).toBe(200);
    expect(body).toMatchObject({ login: "Dana", walletAddress: null, totals: { count: 1, earned: { XDC: "2.5", ROXN: "0", USDC: "0" } }, repositories: ["acme/open"] });
    expect(body.earned).toEqual([
      { repository: "acme/open", issueNumber: 1, title: "Fix it", url: null, currency: "XDC", amount: "2.5", paidAt: "2026-10-05T00:00:00.000Z", transactionHash: "0xfeed", explorerUrl: null },
    ]);
    expect(body.workingOn).toEqual([{ repository: "acme/open", issueNumber: 3, title: "Next one", url: null, currency: "USDC", amount: "4" }]);
    expect((await get("/api/contributors/DANA", eve)).body).toEqual(body);
    expect((await get("/api/contributors/nobody")).status).toBe(404);
    expect((await get("/api/contributors/bad..name")).status).toBe(400);
  });

  test("the wallet address shows only once its owner chooses to; only the owner can choose", async () => {
    const res = await call(t, "/api/user/profile-visibility", { as: dana, method: "PATCH", body: { showWalletAddress: true } });
    expect(res.status).toBe(200);
    expect((await get("/api/contributors/dana")).body.walletAddress).toMatch(/^xdc[0-9a-fA-F]{40}$/);
    expect((await get("/api/contributors/eve")).body.walletAddress).toBeNull();
    expect((await call(t, "/api/user/profile-visibility", { as: dana, method: "PATCH", body: { showWalletAddress: "yes" } })).status).toBe(400);
    await call(t, "/api/user/profile-visibility", { as: dana, method: "PATCH", body: { showWalletAddress: false } });
    expect((await get("/api/contributors/dana")).body.walletAddress).toBeNull();
  });
});

describe("security of the visibility switch", () => {
  securityCases({ method: "PATCH", path: "/api/user/profile-visibility", body: { showWalletAddress: true } }, { t: () => t, owner: () => dana, stranger: () => eve });
});
