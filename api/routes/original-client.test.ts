/**
 * The original product's current client (shared/spec/original-client-contract.md), call by call, as it reads
 * the answers: status for anonymous and signed-in callers, the fields it reads and their types, units
 * (decimal strings in whole tokens that parseFloat reads, wei that formatEther reads), another user's id
 * refused. Table-driven like contract.test.ts; every answer is also checked against the API document by the
 * test app. Issue 26.
 */
import { createServices } from "../services/index.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { formatEther, formatUnits, parseEther, type Address } from "viem";
import { startTestStack, type TestStack } from "../../testing/stack.ts";
import { call, type TestSession } from "../../testing/auth.ts";
import { authAttempts, repositories, wallets } from "../../db/schema/index.ts";
import { hashToken } from "../crypto/tokens.ts";
import { fixtureRepo } from "../../scripts/github-emulator/fixture.ts";
import { DEFAULT_RETURN_TO } from "../services/auth/return-to.ts";
import { securityCases } from "../../testing/security.ts";

const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;
let stack: TestStack;
let alice: TestSession; // pool manager, admin of issuepool-demo, registered the repository
let bob: TestSession; // contributor, a plain member of issuepool-demo
let bobWallet: string;

type Kind = "string" | "number" | "boolean" | "array" | "object" | "null" | "string|null" | "number|null";
type Shape = Record<string, Kind>;

function expectShape(value: unknown, shape: Shape, where = "body"): void {
  expect(value, where).toBeObject();
  for (const [field, kind] of Object.entries(shape)) {
    const v = (value as Record<string, unknown>)[field];
    const actual = v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
    expect(field in (value as object), `${where}.${field} is missing`).toBe(true);
    expect(kind.split("|"), `${where}.${field} is ${actual}`).toContain(actual);
  }
}

/** A decimal string in whole tokens, as the client's parseFloat(...).toFixed(2) reads it. */
function expectDecimal(value: unknown, where: string): number {
  expect(typeof value, where).toBe("string");
  expect(value as string, where).toMatch(/^\d+(\.\d+)?$/);
  return Number.parseFloat(value as string);
}

// biome-ignore lint/suspicious/noExplicitAny: each test reads the JSON as the client does
async function get(path: string, as?: TestSession): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await call(stack.t, path, { as });
  return { status: res.status, headers: res.headers, body: await res.json().catch(() => null) };
}

const post = async (path: string, body: Record<string, unknown>, as = alice) => {
  const res = await call(stack.t, path, { as, body });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return res.json() as Promise<Record<string, unknown>>;
};

beforeAll(async () => {
  stack = await startTestStack();
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  const db = stack.t.ctx.database.db;
  const aliceWallet = (await db.select().from(wallets).where(eq(wallets.userId, alice.user.id)))[0]!.address as Address;
  bobWallet = (await get("/api/wallet/info", bob)).body.address as string;
  await stack.chain.fund(aliceWallet, { xdc: "300", roxn: "100", usdc: "400" });
  await db
    .insert(repositories)
    .values({
      githubRepoId: REPO.id, fullName: FULL_NAME, fullNameKey: FULL_NAME.toLowerCase(), owner: REPO.owner, name: REPO.name,
      htmlUrl: `${stack.github.webUrl}/${FULL_NAME}`, registeredByUserId: alice.user.id,
    })
    .onConflictDoNothing();
  await post(`/api/blockchain/repository/${REPO.id}/fund`, { amountXdc: "20.5", repositoryFullName: FULL_NAME });
  await post("/api/blockchain/approve-roxn", { amount: "10" });
  await post(`/api/blockchain/fund-roxn/${REPO.id}`, { roxnAmount: "10", repositoryFullName: FULL_NAME });
  const bounty = (issue: number, amount: string, isRoxn: boolean) =>
    post(`/api/blockchain/allocate-bounty/${REPO.id}/${issue}`, { bountyAmount: amount, isRoxn, githubRepoFullName: FULL_NAME, issueTitle: `Issue ${issue}`, issueUrl: "u" });
  await bounty(1, "2.25", false);
  await bounty(2, "5", true);
  await bounty(3, "1.5", false);
  await stack.t.ctx.indexer.catchUp();
  // bob works on issue 3 and is paid issue 1
  await post("/api/blockchain/register", { role: "contributor", walletAddress: bobWallet, issueId: 3, repoId: REPO.id }, bob);
  await post(`/api/blockchain/distribute-bounty/${REPO.id}/1`, { contributorAddress: bobWallet, githubRepoFullName: FULL_NAME });
  await stack.t.ctx.indexer.catchUp();
}, 180_000);
afterAll(() => stack?.stop());

describe("every signed-in call: 401 signed out, the client's shape signed in", () => {
  const table: [name: string, path: () => string, check: (body: any) => void][] = [
    ["/api/repositories/accessible", () => "/api/repositories/accessible", (body) => {
      const repo = (body.repositories as Record<string, unknown>[]).find((r) => r.id === REPO.id)!;
      expectShape(repo, { id: "number", githubRepoFullName: "string", registeredAt: "string", isPrivate: "boolean", isActive: "boolean", xdcPoolRewards: "string", roxnPoolRewards: "string", usdcPoolRewards: "string" });
      expect(Number.isNaN(Date.parse(repo.registeredAt as string))).toBe(false);
      expect(repo.githubRepoFullName).toBe(FULL_NAME);
    }],
    ["/api/wallet/multi-currency-balances/{id}", () => `/api/wallet/multi-currency-balances/${alice.user.id}`, (body) => {
      expect(Array.isArray(body)).toBe(true);
      for (const entry of body) expectShape(entry, { currency: "string", network: "string", balance: "string", address: "string" });
      expect(expectDecimal(body.find((b: { currency: string }) => b.currency === "USDC").balance, "USDC").toFixed(2)).toBe("400.00");
    }],
    ["/api/wallet/transactions?limit=20", () => "/api/wallet/transactions?limit=20", (body) => {
      for (const tx of body.transactions) {
        expectShape(tx, { isIncoming: "boolean", tokenAmount: "string", value: "string", tokenSymbol: "string", hash: "string", timestamp: "string", status: "string" });
        expect(["confirmed", "pending"]).toContain(tx.status);
      }
    }],
    ["/api/wallet/limits", () => "/api/wallet/limits", (body) => expectShape(body, { usedAmount: "number", remainingLimit: "number", dailyLimit: "number", resetTime: "number|null" })],
    ["/api/user/activity?limit=10", () => "/api/user/activity?limit=10", (body) => expect(Array.isArray(body.activities)).toBe(true)],
    ["/api/github/user/orgs", () => "/api/github/user/orgs", (body) => {
      expect(body.orgs).toContainEqual(expect.objectContaining({ login: "issuepool-demo" }));
      for (const org of body.orgs) expectShape(org, { login: "string", avatar_url: "string" });
    }],
    ["/api/github/orgs/{org}/repos", () => `/api/github/orgs/${REPO.owner}/repos`, (body) => {
      const repo = (body.repos as Record<string, unknown>[]).find((r) => r.id === REPO.id)!;
      expectShape(repo, { id: "number", name: "string", full_name: "string", description: "string|null", private: "boolean", html_url: "string", updated_at: "string|null", isRegistered: "boolean" });
      expect(repo.isRegistered).toBe(true);
    }],
    ["/api/github/app/install-url", () => "/api/github/app/install-url", (body) => expect(body.installUrl).toContain("/installations/new")],
    ["/api/auth/private-access-status", () => "/api/auth/private-access-status", (body) => expectShape(body, { hasPrivateAccess: "boolean" })],
  ];
  for (const [name, path, check] of table) {
    test(`GET ${name}`, async () => {
      const anonymous = await get(path());
      expect(anonymous.status).toBe(401);
      expectShape(anonymous.body, { error: "string", message: "string" });
      const { status, body, headers } = await get(path(), alice);
      expect(status).toBe(200);
      expect(headers.get("access-control-allow-origin")).toBeNull();
      check(body);
    });
  }
});

describe("amounts and the rules behind them", () => {
  test("/api/repos/{id}/rewards and the unified view: the spec's fields in XDC only, the ROXN bounty apart", async () => {
    const rewards = (await get(`/api/repos/${REPO.id}/rewards`)).body;
    expect(rewards.rewards.map((r: { issueNumber: number }) => r.issueNumber)).toEqual([3]);
    expect(rewards.rewards.every((r: { currency: string }) => r.currency === "XDC")).toBe(true);
    // "Allocated to Issues" as the client sums it: XDC only.
    expect(rewards.rewards.reduce((sum: number, r: { amount: string }) => sum + expectDecimal(r.amount, "amount"), 0).toFixed(2)).toBe("1.50");
    expect(rewards.otherRewards).toEqual([{ issueNumber: 2, amount: "5", currency: "ROXN" }]);
    const unified = (await get(`/api/public/unified-repo/${FULL_NAME}`)).body;
    expect(unified.repoRewards).toEqual([{ issueNumber: 3, amount: "1.5", currency: "XDC" }]);
    expect(unified.otherRewards).toEqual([{ issueNumber: 2, amount: "5", currency: "ROXN" }]);
    expect(unified.blockchain.issues.map((i: { issueId: number }) => i.issueId)).toEqual([3]);
    expect(formatEther(BigInt(unified.blockchain.issues[0].rewardAmount))).toBe("1.5");
    expect(unified.blockchain.otherIssues).toEqual([expect.objectContaining({ issueId: 2, currency: "ROXN", rewardAmount: parseEther("5").toString() })]);
    // The site's own view (the service) still shows the ROXN bounty.
    const site = await createServices(stack.t.ctx).repositories.unified(REPO.owner, REPO.name);
    expect(site.bounties.map((b) => `${b.issueNumber}:${b.currency}`)).toEqual(["2:ROXN", "3:XDC"]);
  });

  test("multi-currency balances: the owner only (another user's id 404), USDC with 6 decimals; /accessible pools parse as pool-info's", async () => {
    expect((await get(`/api/wallet/multi-currency-balances/${alice.user.id}`, bob)).status).toBe(404);
    const bobs = (await get(`/api/wallet/multi-currency-balances/${bob.user.id}`, bob)).body as { currency: string; balance: string; address: string }[];
    expect(bobs.map((b) => b.currency)).toEqual(["XDC", "ROXN", "USDC"]);
    expect(bobs[0]!.address).toBe(bobWallet);
    expect(bobs.find((b) => b.currency === "XDC")!.balance).toBe((await get("/api/wallet/info", bob)).body.xdcBalance);
    const accessible = (await get("/api/repositories/accessible", bob)).body.repositories.find((r: { id: number }) => r.id === REPO.id);
    const pool = (await get(`/api/blockchain/pool-info/${REPO.id}`)).body;
    expect(parseEther(accessible.xdcPoolRewards)).toBe(parseEther(pool.xdcPoolRewards));
    expect(parseEther(accessible.roxnPoolRewards)).toBe(parseEther(pool.roxnPoolRewards));
  });

  test("transactions: alice's fundings out (wei in value, whole tokens in tokenAmount), bob's reward in; limits count alice's XDC", async () => {
    const mine = (await get("/api/wallet/transactions?limit=20", alice)).body.transactions as Record<string, string | boolean>[];
    const xdc = mine.find((t) => t.kind === "fund" && t.tokenSymbol === "XDC")!;
    expect(xdc).toMatchObject({ isIncoming: false, tokenAmount: "20.5", value: parseEther("20.5").toString() });
    expect(formatEther(BigInt(xdc.value as string))).toBe(xdc.tokenAmount as string);
    expect((xdc.hash as string).length).toBeGreaterThan(18);
    expect(mine.find((t) => t.kind === "fund" && t.tokenSymbol === "ROXN")).toMatchObject({ isIncoming: false, tokenAmount: "10", value: "0" });
    const bobs = (await get("/api/wallet/transactions", bob)).body.transactions as Record<string, string | boolean>[];
    expect(bobs).toContainEqual(expect.objectContaining({ isIncoming: true, tokenSymbol: "XDC", tokenAmount: "2.25", kind: "reward", status: "confirmed" }));
    // Nothing of alice's in bob's history.
    expect(bobs.some((t) => t.hash === xdc.hash)).toBe(false);
    const limits = (await get("/api/wallet/limits", alice)).body;
    expect(limits.usedAmount).toBeGreaterThanOrEqual(20.5);
    expect(limits.remainingLimit).toBeCloseTo(limits.dailyLimit - limits.usedAmount, 6);
    expect(limits.resetTime).toBeGreaterThan(Date.now());
    expect((await get("/api/wallet/limits", bob)).body).toEqual({ usedAmount: 0, remainingLimit: 1000, dailyLimit: 1000, resetTime: null });
  });

  test("activity: bob's reward received and his contribution in progress, newest first", async () => {
    const { body, headers } = await get("/api/user/activity?limit=10", bob);
    expect(headers.get("cache-control")).toBe("private, max-age=60");
    const reward = body.activities.find((a: { type: string }) => a.type === "reward");
    expect(reward).toMatchObject({ title: "Bounty Received", metadata: { amount: "2.25", currency: "XDC", repoName: FULL_NAME } });
    expect(reward.metadata.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(body.activities).toContainEqual(expect.objectContaining({ type: "contribution", metadata: expect.objectContaining({ issueNumber: 3, repoName: FULL_NAME }) }));
    for (const a of body.activities) expect(Number.isNaN(Date.parse(a.timestamp))).toBe(false);
    expect((await get("/api/user/activity", alice)).body.activities.some((a: { type: string }) => a.type === "reward")).toBe(false);
  });

  test("organisations: a plain member sees none and is refused the org's repositories (403)", async () => {
    expect((await get("/api/github/user/orgs", bob)).body).toEqual({ orgs: [] });
    const refused = await get(`/api/github/orgs/${REPO.owner}/repos`, bob);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("You must be an admin of this organization");
  });

  test("public bounties by GitHub id: anyone, CORS-open; private or unknown 404, not a number 400", async () => {
    const res = await call(stack.t, `/api/public/repositories/${REPO.id}/bounties`, { headers: { Origin: "https://elsewhere.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await res.json()) as { bounties: Record<string, unknown>[]; repositoryId: number; repositoryName: string };
    expect(body).toMatchObject({ repositoryId: REPO.id, repositoryName: FULL_NAME });
    for (const b of body.bounties) expectShape(b, { issueId: "string", status: "string", xdcAmount: "string", roxnAmount: "string", isRoxn: "boolean" });
    expect(body.bounties.find((b) => b.issueId === "1")).toMatchObject({ status: "Distributed", xdcAmount: "2.25", roxnAmount: "0.0", isRoxn: false });
    expect(body.bounties.find((b) => b.issueId === "2")).toMatchObject({ status: "Created", xdcAmount: "0.0", roxnAmount: "5", isRoxn: true });
    expect(formatUnits(parseEther(body.bounties.find((b) => b.issueId === "3")!.xdcAmount as string), 18)).toBe("1.5");
    expect((await get("/api/public/repositories/987654321/bounties")).status).toBe(404);
    expect((await get("/api/public/repositories/abc/bounties")).status).toBe(400);
  });

  test("leaderboards: public bare arrays from the payout records; bob earned 2.25 XDC", async () => {
    const contributors = (await get("/api/leaderboard/contributors")).body as Record<string, unknown>[];
    expect(Array.isArray(contributors)).toBe(true);
    const entry = contributors.find((c) => c.username === "bob")!;
    expectShape(entry, { rank: "number", id: "number", username: "string", avatarUrl: "string|null", roxnEarned: "string", usdcEarned: "string" });
    expect(entry).toMatchObject({ id: bob.user.id, xdcEarned: "2.25", roxnEarned: "0.00", usdcEarned: "0.00", rank: 1 });
    const projects = (await get("/api/leaderboard/projects")).body as Record<string, unknown>[];
    const project = projects.find((p) => p.name === FULL_NAME)!;
    expectShape(project, { rank: "number", id: "number", name: "string", avatarUrl: "string", bountiesCount: "number" });
    expect(project.bountiesCount).toBe(2);
  });

  test("PATCH /active: the registering pool manager only; inactive leaves /repos and the boards, keeps its money and bounties", async () => {
    const patch = (as: TestSession, body: unknown) => call(stack.t, `/api/repositories/${REPO.id}/active`, { as, method: "PATCH", body });
    expect((await patch(bob, { isActive: false })).status).toBe(403);
    expect((await patch(alice, { isActive: "no" })).status).toBe(400);
    expect((await call(stack.t, `/api/repositories/${REPO.id}/active`, { method: "PATCH", body: { isActive: false } })).status).toBe(401);
    expect((await patch(alice, { isActive: false, _csrf: alice.csrfToken })).status).toBe(200);
    const poolBefore = (await get(`/api/blockchain/pool-info/${REPO.id}`)).body;
    try {
      expect((await get("/api/repositories/public")).body.repositories.some((r: { id: number }) => r.id === REPO.id)).toBe(false);
      expect((await get("/api/repositories/accessible", bob)).body.repositories.some((r: { id: number }) => r.id === REPO.id)).toBe(false);
      expect((await get("/api/repositories/accessible", alice)).body.repositories.find((r: { id: number }) => r.id === REPO.id)).toMatchObject({ isActive: false });
      expect(((await get("/api/leaderboard/projects")).body as { name: string }[]).some((p) => p.name === FULL_NAME)).toBe(false);
      expect((await get(`/api/blockchain/pool-info/${REPO.id}`)).body).toEqual(poolBefore);
      expect((await get(`/api/repos/${REPO.id}/rewards`)).body.rewards).toHaveLength(1);
    } finally {
      expect((await patch(alice, { isActive: true })).status).toBe(200);
    }
    expect((await get("/api/repositories/public")).body.repositories.some((r: { id: number }) => r.id === REPO.id)).toBe(true);
  });

  test("the upgrade sign-in: signed in only; to GitHub asking for repo, with state and PKCE; returnTo kept to this site", async () => {
    expect((await call(stack.t, "/api/auth/github/upgrade-private?returnTo=/repos")).status).toBe(401);
    for (const [returnTo, kept] of [["/repos", "/repos"], ["https://evil.example/x", DEFAULT_RETURN_TO]] as const) {
      const res = await call(stack.t, `/api/auth/github/upgrade-private?returnTo=${encodeURIComponent(returnTo)}`, { as: alice });
      expect(res.status).toBe(302);
      const to = new URL(res.headers.get("location")!);
      expect(to.pathname).toBe("/login/oauth/authorize");
      expect(to.searchParams.get("scope")!.split(" ")).toContain("repo");
      expect(to.searchParams.get("code_challenge_method")).toBe("S256");
      const state = to.searchParams.get("state")!;
      expect(res.headers.get("set-cookie")).toContain(state);
      const [attempt] = await stack.t.ctx.database.db.select().from(authAttempts).where(eq(authAttempts.id, hashToken(state)));
      expect(attempt!.returnTo).toBe(kept);
    }
    // Signed in through the GitHub App, whose user tokens reach what its installations cover.
    expect((await get("/api/auth/private-access-status", alice)).body).toEqual({ hasPrivateAccess: true });
  });

  test("community bounties (issue 29) answer in the original client's shapes; the out-of-mission calls answer a JSON 404 that says so", async () => {
    const list = await get("/api/community-bounties?limit=50", alice);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ bounties: expect.any(Array), total: expect.any(Number), limit: 50, offset: 0 });
    const board = await get("/api/community-bounties/leaderboard?limit=10", alice);
    expect(board).toMatchObject({ status: 200, body: { leaderboard: expect.any(Array) } });
    expect((await get("/api/community-bounties/abc", alice)).body.error).toBe("Invalid bounty ID");
    expect((await get("/api/community-bounties/999999", alice)).body.error).toBe("Bounty not found");
    for (const [path, says] of [
      ["/api/referral/code", "referrals"],
      ["/api/subscription/status", "subscriptions"],
      ["/api/courses", "courses"],
    ] as const) {
      const { status, body } = await get(path, alice);
      expect({ path, status }).toEqual({ path, status: 404 });
      expect(body.message).toContain(says);
    }
    const create = await call(stack.t, "/api/community-bounties", { as: alice, body: { title: "t" } });
    expect(create.status).toBe(400);
    expect((await create.json()).error).toBe("Invalid input");
  });
});

describe("security of the Active switch", () => {
  securityCases({ method: "PATCH", path: `/api/repositories/${REPO.id}/active`, body: { isActive: true } }, { t: () => stack.t, owner: () => alice, stranger: () => bob });
});
