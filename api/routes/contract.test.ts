/**
 * The spec's API contract (section 7, with the field shapes of section 3),
 * call by call, as a client written for the original product reads it:
 * status, the contract's field names and their types, for anonymous and
 * signed-in callers, and amounts in wei that round-trip through viem's
 * formatEther/parseEther to the figures the pages show. Fields beyond the
 * contract are allowed (richer answers add fields beside the contract's,
 * never instead of them). Issue 18.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { formatEther, formatUnits, parseEther, type Address } from "viem";
import { eventually, startTestStack, type TestStack } from "../../testing/stack.ts";
import { call, type TestSession } from "../../testing/auth.ts";
import { chainTransactions, repositories, wallets } from "../../db/schema/index.ts";
import { fixtureRepo } from "../../testing/dev-tools.ts";

const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;
let stack: TestStack;
let alice: TestSession; // pool manager, admin of the repository
let bob: TestSession; // contributor
let aliceWallet: Address;
let keyN = 0;

type Kind = "string" | "number" | "boolean" | "array" | "object" | "null" | "wei" | "string|null" | "number|null" | "object|null";
type Shape = { [field: string]: Kind | Shape };
const WEI = /^\d+$/;

/** Every field of `shape` is in `value` with its type (nested shapes are objects); extra fields are allowed. */
function expectShape(value: unknown, shape: Shape, where = "body"): void {
  expect(value, where).toBeObject();
  for (const [field, kind] of Object.entries(shape)) {
    const v = (value as Record<string, unknown>)[field];
    const at = `${where}.${field}`;
    expect(field in (value as object), `${at} is missing`).toBe(true);
    if (typeof kind === "object") {
      expectShape(v, kind, at);
      continue;
    }
    const actual = v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
    if (kind === "wei") {
      expect(actual, at).toBe("string");
      expect(v as string, `${at} is an integer string`).toMatch(WEI);
    } else expect(kind.split("|"), `${at} is ${actual}`).toContain(actual);
  }
}

async function get(path: string, as?: TestSession) {
  const res = await call(stack.t, path, { as });
  // Whatever JSON came back: each test reads it as the contract describes (an object, or a bare array).
  // biome-ignore lint/suspicious/noExplicitAny: the shape is what the test checks
  return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as any };
}

beforeAll(async () => {
  stack = await startTestStack();
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  aliceWallet = (await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, alice.user.id)))[0]!.address as Address;
  await stack.chain.fund(aliceWallet, { xdc: "300", roxn: "100" });
  await stack.t.ctx.database.db
    .insert(repositories)
    .values({ githubRepoId: REPO.id, fullName: FULL_NAME, fullNameKey: FULL_NAME.toLowerCase(), owner: REPO.owner, name: REPO.name, htmlUrl: `${stack.github.webUrl}/${FULL_NAME}` })
    .onConflictDoNothing();
  expect((await call(stack.t, `/api/blockchain/repository/${REPO.id}/fund`, { as: alice, body: { amountXdc: "20.5", repositoryFullName: FULL_NAME }, headers: { "Idempotency-Key": "contract-fund" } })).status).toBe(200);
  const bounty = await call(stack.t, `/api/blockchain/allocate-bounty/${REPO.id}/1`, {
    as: alice,
    body: { bountyAmount: "2.25", isRoxn: false, githubRepoFullName: FULL_NAME, issueTitle: "t", issueUrl: "u" },
    headers: { "Idempotency-Key": "contract-bounty" },
  });
  expect(bounty.status).toBe(200);
  await stack.t.ctx.indexer.catchUp();
}, 120_000);
afterAll(() => stack?.stop());

describe("section 7, read calls", () => {
  test("GET /api/auth/csrf-token: a token signed in and signed out", async () => {
    expectShape((await get("/api/auth/csrf-token", alice)).body, { csrfToken: "string" });
    const anonymous = await get("/api/auth/csrf-token");
    expect(anonymous.status).toBe(200);
    expectShape(anonymous.body, { csrfToken: "string" });
  });

  test("GET /api/auth/user: the user object of section 3, or empty", async () => {
    const { body } = await get("/api/auth/user", alice);
    expectShape(body, {
      id: "number",
      username: "string",
      name: "string|null",
      githubUsername: "string",
      email: "string|null",
      avatarUrl: "string|null",
      bio: "string|null",
      location: "string|null",
      website: "string|null",
      role: "string",
      isProfileComplete: "boolean",
      xdcWalletAddress: "string|null",
    });
    expect((await get("/api/auth/user")).body).toBeNull();
  });

  test("GET /api/user/role", async () => {
    expect((await get("/api/user/role", alice)).body).toMatchObject({ role: "poolmanager" });
  });

  test("GET /api/wallet/info: balances in wei as formatEther reads them; '0' signed out", async () => {
    const { body } = await get("/api/wallet/info", alice);
    expectShape(body, { address: "string", balance: "wei", tokenBalance: "wei" });
    const onChain = await stack.t.ctx.chain.client.getBalance({ address: aliceWallet });
    expect(BigInt(body.balance as string)).toBe(onChain);
    // What a client of the original API does with it, and what the page shows (4 decimals).
    const shown = formatEther(BigInt(body.balance as string));
    expect(parseEther(shown)).toBe(onChain);
    expect(body.xdcBalance).toBe(shown);
    expect(formatEther(BigInt(body.tokenBalance as string))).toBe(body.roxnBalance as string);
    expect((await get("/api/wallet/info")).body).toMatchObject({ address: "", balance: "0", tokenBalance: "0" });
  });

  test("GET /api/token/balance and GET /api/blockchain/roxn-allowance: wei strings", async () => {
    const balance = (await get("/api/token/balance", alice)).body;
    expectShape(balance, { balance: "wei" });
    expect(formatEther(BigInt(balance.balance as string))).toBe(balance.formatted as string);
    const allowance = (await get("/api/blockchain/roxn-allowance", alice)).body;
    expectShape(allowance, { allowance: "wei" });
    expect(typeof allowance.allowance).toBe("string");
  });

  test("GET /api/wallet/usdc-balance/{userId}", async () => {
    expectShape((await get(`/api/wallet/usdc-balance/${alice.user.id}`, alice)).body, { balance: "string" });
  });

  test("GET /api/blockchain/repository/{repoId}/funding-status: numbers clients call toFixed on", async () => {
    const { body } = await get(`/api/blockchain/repository/${REPO.id}/funding-status`, alice);
    expectShape(body, { dailyLimit: "number", currentTotal: "number", remainingLimit: "number", windowEndTime: "string|null" });
    expect((body.remainingLimit as number).toFixed(2)).toBe((1000 - (body.currentTotal as number)).toFixed(2));
    expect(body.currentTotal).toBeGreaterThanOrEqual(20.5);
  });

  test("GET /api/blockchain/pool-info/{repoId} and issue-bounty: decimal strings, 404 for none", async () => {
    const pool = (await get(`/api/blockchain/pool-info/${REPO.id}`)).body;
    expectShape(pool, { xdcPoolRewards: "string", roxnPoolRewards: "string", issues: "array" });
    expectShape((pool.issues as unknown[])[0], { issueId: "number", xdcAmount: "string", roxnAmount: "string" });
    const bounty = (await get(`/api/blockchain/issue-bounty/${REPO.id}/1`)).body;
    expectShape(bounty, { isRoxn: "boolean", xdcAmount: "string", roxnAmount: "string" });
    expect(bounty.xdcAmount).toBe("2.25");
    expect((await get(`/api/blockchain/issue-bounty/${REPO.id}/3`)).status).toBe(404);
  });

  test("GET /api/public/unified-repo/{o}/{r}: the XDC pool and rewards in wei; per currency beside them", async () => {
    const { body } = await get(`/api/public/unified-repo/${FULL_NAME}`);
    expectShape(body, {
      registered: "boolean",
      repoId: "number",
      createdAt: "string|null",
      github: { name: "string", description: "string|null", stargazers_count: "number", forks_count: "number", created_at: "string", updated_at: "string", contributors_count: "number|null" },
      issues: "array",
      blockchain: { poolRewards: "wei", issues: "array", contractAddress: "string" },
      repoDetails: { poolRewards: "wei" },
      repoRewards: "array",
    });
    const blockchain = body.blockchain as { poolRewards: string; pools: { XDC: string }; issues: { issueId: number; rewardAmount: string }[] };
    const pool = (await get(`/api/blockchain/pool-info/${REPO.id}`)).body;
    expect(formatEther(BigInt(blockchain.poolRewards))).toBe(pool.xdcPoolRewards as string);
    expect(blockchain.pools.XDC).toBe(pool.xdcPoolRewards as string);
    expect((body.repoDetails as { poolRewards: string }).poolRewards).toBe(blockchain.poolRewards);
    const reward = blockchain.issues.find((i) => i.issueId === 1)!;
    expect(reward.rewardAmount).toBe(parseEther("2.25").toString());
    expect(formatUnits(BigInt(reward.rewardAmount), 18)).toBe("2.25");
  });

  test("GET /api/public/github/issues and GET /api/github/issues: bare arrays of section 3's issues", async () => {
    for (const path of [`/api/public/github/issues?owner=${REPO.owner}&repo=${REPO.name}`, `/api/github/issues?owner=${REPO.owner}&repo=${REPO.name}&labels=bounty,rewards,funded,enhancement`]) {
      const { status, body } = await get(path);
      expect(status).toBe(200);
      expect(Array.isArray(body), path).toBe(true);
      expectShape(body[0], { id: "number", number: "number", title: "string", state: "string", html_url: "string", labels: "array", body: "string|null" });
      expectShape((body[0] as { labels: unknown[] }).labels[0], { id: "number", name: "string", color: "string" });
    }
  });

  test("GET /api/public/github/repos/{o}/{r} and GET /api/github/repos/{o}/{n}: { repo, repoId / issues }, signed out too", async () => {
    const repoShape: Shape = { id: "number", name: "string", description: "string|null", html_url: "string", full_name: "string", permissions: { admin: "boolean" } };
    const publicAnswer = (await get(`/api/public/github/repos/${FULL_NAME}`)).body;
    expectShape(publicAnswer, { repo: repoShape, repoId: "number", issues: "array" });
    expect(publicAnswer.repoId).toBe(REPO.id);
    for (const as of [undefined, alice]) {
      const { status, body } = await get(`/api/github/repos/${FULL_NAME}`, as);
      expect(status).toBe(200);
      expectShape(body, { repo: repoShape, issues: "array" });
      expect((body.repo as { permissions: { admin: boolean } }).permissions.admin).toBe(as === alice);
    }
    // Private repositories stay private to anonymous visitors.
    expect((await get("/api/github/repos/carol/private-notes")).status).toBe(404);
  });

  test("GET /api/repositories/public, /registered, /api/public/repositories/{id}, /api/repos/details, /api/repos/{id}/rewards", async () => {
    const list = (await get("/api/repositories/public")).body;
    expectShape((list.repositories as unknown[])[0], { id: "number", githubRepoFullName: "string", xdcPoolRewards: "string", roxnPoolRewards: "string", registeredAt: "string" });
    expectShape(((await get("/api/repositories/registered")).body.repositories as unknown[])[0], { githubRepoId: "number", installationId: "number|null" });
    expectShape((await get(`/api/public/repositories/${REPO.id}`)).body, { github_info: { name: "string", description: "string|null" } });
    expectShape((await get(`/api/repos/details?owner=${REPO.owner}&repo=${REPO.name}`)).body, { repoId: "number", githubRepoId: "number", githubRepoFullName: "string" });
    const rewards = (await get(`/api/repos/${REPO.id}/rewards`)).body;
    const list2 = Array.isArray(rewards) ? rewards : (rewards.rewards as unknown[]);
    expectShape(list2[0], { issueNumber: "number", amount: "string" });
  });

  test("GET /api/blockchain/user/{id}/type and /wallet: by user id, wallet address (0x and xdc) or GitHub username", async () => {
    const xdc = `xdc${aliceWallet.slice(2)}`;
    for (const id of [String(alice.user.id), aliceWallet, xdc, alice.user.username]) {
      expect((await get(`/api/blockchain/user/${id}/type`, alice)).body, id).toEqual({ type: "poolmanager" });
      expect((await get(`/api/blockchain/user/${id}/wallet`, alice)).body, id).toEqual({ address: xdc });
    }
    expect((await get(`/api/blockchain/user/${alice.user.username}/type`, bob)).status).toBe(404);
  });
});

describe("section 7, writes", () => {
  const fund = (amountXdc: string, key?: string) =>
    call(stack.t, `/api/blockchain/repository/${REPO.id}/fund`, { as: alice, body: { amountXdc, repositoryFullName: FULL_NAME }, headers: key ? { "Idempotency-Key": key } : {} });
  const fundings = async () => (await stack.t.ctx.database.db.select().from(chainTransactions)).filter((t) => t.kind === "fund_xdc").length;

  test("a replay of a funding not broadcast yet waits for its hash instead of answering 'the network is busy'", async () => {
    // The first click's row is in the outbox but not sent yet (CI, on a busy machine: the second click got 503).
    const key = `contract-unsent-${Date.now()}-${keyN++}`;
    const [wallet] = await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, alice.user.id));
    const { tx } = await stack.t.ctx.outbox.enqueue({
      userId: alice.user.id,
      idempotencyKey: key,
      request: { route: "fund_xdc", repoId: REPO.id, amountXdc: "3.05", repositoryFullName: FULL_NAME },
      kind: "fund_xdc",
      githubRepoId: REPO.id,
      intent: { repoId: REPO.id, fullName: FULL_NAME, currency: "XDC", amount: "0" },
      signer: { kind: "wallet", wallet: wallet! },
      to: aliceWallet,
      data: "0x",
      value: 0n,
    });
    expect(tx.txHash).toBeNull();
    const res = await fund("3.05", key);
    const body = (await res.json()) as { transactionHash?: string; message?: string };
    expect(res.status, body.message).toBe(200);
    expect(body.transactionHash).toBe((await stack.t.ctx.outbox.get(tx.id)).txHash!);
  });

  test("a double click without an Idempotency-Key funds once; two different amounts both go through; keys work as before", async () => {
    const before = await fundings();
    const first = fund("3.01");
    // The second click once the server has taken the first (its funding is queued): a condition, not a fixed pause.
    await eventually(async () => (await fundings()) > before, 15_000, "the first click's funding");
    const [a, b] = await Promise.all([first, fund("3.01")]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [ja, jb] = (await Promise.all([a.json(), b.json()])) as { transactionHash: string }[];
    expect(jb!.transactionHash).toBe(ja!.transactionHash);
    expect(await fundings()).toBe(before + 1);
    // Different bodies are different requests.
    const [c, d] = await Promise.all([fund("3.02"), fund("3.03")]);
    expect([c.status, d.status]).toEqual([200, 200]);
    expect(await fundings()).toBe(before + 3);
    // With keys: the same key is one request, two keys are two.
    const key = `contract-${Date.now()}-${keyN++}`;
    await Promise.all([fund("3.04", key), fund("3.04", key)]);
    await fund("3.04", `${key}-other`);
    expect(await fundings()).toBe(before + 5);
  }, 60_000);

  test("POST fund, fund-roxn, approve-roxn, allocate-bounty, distribute-bounty: transactionHash and message, as the spec's clients read them", async () => {
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await call(stack.t, path, { as: alice, body });
      expect(res.status, path).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    expectShape(await post(`/api/blockchain/repository/${REPO.id}/fund`, { amountXdc: "1.5", repositoryFullName: FULL_NAME }), { transactionHash: "string", message: "string" });
    expectShape(await post("/api/blockchain/approve-roxn", { amount: "10" }), { transactionHash: "string", message: "string" });
    expectShape(await post(`/api/blockchain/fund-roxn/${REPO.id}`, { roxnAmount: "10", repositoryFullName: FULL_NAME }), { transactionHash: "string", message: "string" });
    expectShape(await post(`/api/blockchain/allocate-bounty/${REPO.id}/5`, { bountyAmount: "1", isRoxn: false, githubRepoFullName: FULL_NAME, issueTitle: "t", issueUrl: "u" }), { transactionHash: "string", message: "string" });
    await stack.t.ctx.indexer.catchUp();
    const bobWallet = (await get("/api/wallet/info", bob)).body.address as string;
    expectShape(await post(`/api/blockchain/distribute-bounty/${REPO.id}/5`, { contributorAddress: bobWallet, githubRepoFullName: FULL_NAME }), { transactionHash: "string", message: "string" });
  }, 60_000);

  test("POST /api/blockchain/register with the spec's body (role, walletAddress, issueId): the issue names its repository", async () => {
    // bob's session reads the repository's issue list (as the public page does), then registers by GitHub's issue id.
    const issues = (await get(`/api/public/github/issues?owner=${REPO.owner}&repo=${REPO.name}`)).body as { id: number; number: number }[];
    const issue = issues.find((i) => i.number === 1)!;
    const bobWallet = (await get("/api/wallet/info", bob)).body.address as string;
    const res = await call(stack.t, "/api/blockchain/register", { as: bob, body: { role: "contributor", walletAddress: bobWallet, issueId: issue.id } });
    expect(res.status).toBe(200);
    const claimants = (await get(`/api/blockchain/issue-claimants/${REPO.id}/1`, alice)).body;
    expect(JSON.stringify(claimants)).toContain(bob.user.username);
    // An issue number with a bounty in one repository works too; an unknown issue asks for repoId.
    expect((await call(stack.t, "/api/blockchain/register", { as: bob, body: { role: "contributor", issueId: 1 } })).status).toBe(200);
    const unknown = await call(stack.t, "/api/blockchain/register", { as: bob, body: { role: "contributor", issueId: 987654321 } });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toContain("repoId");
  });
});
