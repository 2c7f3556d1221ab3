import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray, sql } from "drizzle-orm";
import { encodeFunctionData, erc20Abi, formatEther, parseEther, parseUnits, type Address } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { poolDebitsAfter, poolLockWaiters, poolSnapshot, withPoolLock } from "../../services/money/pool-guard.ts";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, databaseDigest, type TestSession } from "../../../testing/auth.ts";
import { securityCases } from "../../../testing/security.ts";
import { bountyClaims, chainTransactions, repositories, wallets } from "../../../db/schema/index.ts";
import { fixtureRepo } from "../../../testing/dev-tools.ts";

let stack: TestStack;
let alice: TestSession; // pool manager, admin of issuepool-demo/*
let erin: TestSession; // pool manager, write access only
let bob: TestSession; // contributor
let aliceWallet: Address;
let bobWallet: Address;
let keyN = 0;
const key = () => `test-key-${Date.now()}-${keyN++}`;

const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const OTHER = fixtureRepo("issuepool-demo/contract-audit-tools")!;
const SDK = fixtureRepo("issuepool-demo/roxn-sdk")!;
const TOOLS = fixtureRepo("issuepool-demo/tool-library")!;

async function register(session: TestSession, role: "poolmanager" | "contributor") {
  const res = await call(stack.t, "/api/auth/register", { as: session, body: { role, email: `${session.user.username}@example.com` } });
  expect(res.status).toBe(200);
  session.user.role = role;
}

async function registerRepository(repo: NonNullable<ReturnType<typeof fixtureRepo>>) {
  await stack.t.ctx.database.db
    .insert(repositories)
    .values({
      githubRepoId: repo.id,
      fullName: `${repo.owner}/${repo.name}`,
      fullNameKey: `${repo.owner}/${repo.name}`.toLowerCase(),
      owner: repo.owner,
      name: repo.name,
      htmlUrl: `${stack.github.webUrl}/${repo.owner}/${repo.name}`,
    })
    .onConflictDoNothing();
}

const money = (session: TestSession, path: string, body: Record<string, unknown>, idempotencyKey: string | null = key()) =>
  call(stack.t, path, { as: session, body, headers: idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {} });

const fund = (session: TestSession, amountXdc: unknown, options: { repo?: typeof REPO; fullName?: string | null; key?: string } = {}) => {
  const repo = options.repo ?? REPO;
  return money(
    session,
    `/api/blockchain/repository/${repo.id}/fund`,
    { amountXdc, repositoryFullName: options.fullName === undefined ? `${repo.owner}/${repo.name}` : options.fullName },
    options.key ?? key(),
  );
};

/**
 * Moves every XDC funding and boost so far out of the rolling 24-hour window: a test of the daily limits
 * starts from an empty window for every repository and funder, and leaves one for the tests after it.
 */
const ageFundingWindow = () =>
  stack.t.ctx.database.db
    .update(chainTransactions)
    .set({ createdAt: sql`${chainTransactions.createdAt} - ${25 * 3600 * 1000}` })
    .where(inArray(chainTransactions.kind, ["fund_xdc", "boost_xdc"]));

const poolInfo = async (repo = REPO) => (await call(stack.t, `/api/blockchain/pool-info/${repo.id}`)).json();
/** A pool figure in wei: amounts are compared as integers, never as floats. */
const xdcPool = async (repo = REPO) => parseEther((await poolInfo(repo)).xdcPoolRewards);
/** A fresh open issue of REPO on the emulator: each test sets its bounties on issues of its own. */
const openIssue = async (title: string) =>
  Number((await stack.github.controls.openIssue({ repo: `${REPO.owner}/${REPO.name}`, title, author: "alice" })).issue.number);
const settle = async () => {
  await stack.t.ctx.outbox.runOnce();
  for (const row of await stack.t.ctx.database.db.select().from(chainTransactions)) {
    if (row.status === "sent" || row.status === "signed" || row.status === "queued") await stack.t.ctx.outbox.waitForSettled(row.id, 10_000);
  }
  await stack.t.ctx.indexer.catchUp();
};

beforeAll(async () => {
  stack = await startTestStack();
  alice = await stack.signIn("alice");
  erin = await stack.signIn("erin");
  bob = await stack.signIn("bob");
  await register(alice, "poolmanager");
  await register(erin, "poolmanager");
  await register(bob, "contributor");
  const walletOf = async (s: TestSession) =>
    (await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, s.user.id)))[0]!.address as Address;
  aliceWallet = await walletOf(alice);
  bobWallet = await walletOf(bob);
  await stack.chain.fund(aliceWallet, { xdc: "5000", roxn: "1000" });
  await stack.chain.fund(await walletOf(erin), { xdc: "100" });
  await registerRepository(REPO);
  await registerRepository(OTHER);
}, 120_000);
afterAll(() => stack?.stop());

describe("funding a pool with XDC", () => {
  test("the net (after the 0.5% fee) lands in the pool; the fee goes to the collector", async () => {
    const collectorBefore = await stack.t.ctx.chain.client.getBalance({ address: stack.chain.feeCollector });
    await settle();
    const poolBefore = await xdcPool();
    const res = await fund(alice, "100");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(body.message).toMatch(/XDC funding (submitted|confirmed)/);
    await settle();
    expect((await xdcPool()) - poolBefore).toBe(parseEther("99.5"));
    const collectorAfter = await stack.t.ctx.chain.client.getBalance({ address: stack.chain.feeCollector });
    expect(collectorAfter - collectorBefore).toBe(parseEther("0.5"));
    // The funder's wallet history tells it (issue 38: pool fundings appeared nowhere): what left the wallet, the fee in it.
    const { entries } = await (await call(stack.t, "/api/wallet/bounty-history?limit=50", { as: alice })).json();
    expect(entries.find((e: { transactionHash: string }) => e.transactionHash === body.transactionHash)).toMatchObject({
      kind: "funding", direction: "out", currency: "XDC", amount: "100", fee: "0.5", repository: `${REPO.owner}/${REPO.name}`,
    });
  });

  test("replaying a request with the same Idempotency-Key returns the first result and funds nothing more", async () => {
    const k = key();
    const first = await (await fund(alice, "10", { key: k })).json();
    await settle();
    const before = (await poolInfo()).xdcPoolRewards;
    const again = await fund(alice, "10", { key: k });
    expect(again.status).toBe(200);
    expect((await again.json()).transactionHash).toBe(first.transactionHash);
    await settle();
    expect((await poolInfo()).xdcPoolRewards).toBe(before);
  });

  test("the same key with a different amount is refused", async () => {
    const k = key();
    await fund(alice, "5", { key: k });
    const res = await fund(alice, "6", { key: k });
    expect(res.status).toBe(422);
  });

  test("1 XDC or less: 'Minimum funding amount not met'", async () => {
    for (const amount of ["1", "0.5", "1.000000000000000000"]) {
      const res = await fund(alice, amount);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "Minimum funding amount not met", message: "Minimum is > 1 XDC" });
    }
  });

  test("leaving less than 0.1 XDC for gas: 'Insufficient funds for gas'", async () => {
    const balance = await stack.t.ctx.chain.client.getBalance({ address: aliceWallet });
    const res = await fund(alice, formatEther(balance - 10n ** 16n));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "Insufficient funds for gas", message: "Leave at least 0.1 XDC for gas." });
  });

  test("bad amounts are 400 with a clear message and send nothing", async () => {
    const before = await databaseDigest(stack.t);
    for (const amount of ["abc", "-5", "1e18", "5.0000000000000000001", "99999999999999999999999999999999", "", null, true, { x: 1 }]) {
      const res = await fund(alice, amount);
      expect(res.status).toBe(400);
      expect((await res.json()).message).toBeString();
    }
    expect(await databaseDigest(stack.t)).toBe(before);
  });

  test("the repository must be named, match, be registered, and be administered by the caller", async () => {
    const missing = await fund(alice, "5", { fullName: null });
    expect(await missing.json()).toMatchObject({ error: "Repository details missing.", message: "Repository details missing." });
    expect((await fund(alice, "5", { fullName: "issuepool-demo/roxn-sdk" })).status).toBe(400);
    const unknown = await money(alice, "/api/blockchain/repository/99999999/fund", { amountXdc: "5", repositoryFullName: "a/b" });
    expect(unknown.status).toBe(404);
    const notAdmin = await fund(erin, "5");
    expect(notAdmin.status).toBe(403);
    expect((await notAdmin.json()).message).toBe("You need admin permissions to fund this repository.");
    const contributor = await fund(bob, "5");
    expect(contributor.status).toBe(403);
    const badPath = await money(alice, "/api/blockchain/repository/abc/fund", { amountXdc: "5", repositoryFullName: "a/b" });
    expect(badPath.status).toBe(400);
  });

  test("an Idempotency-Key is optional (the spec's clients send none), but a malformed one is refused", async () => {
    const res = await money(alice, `/api/blockchain/repository/${REPO.id}/fund`, { amountXdc: "5", repositoryFullName: "issuepool-demo/xdc-wallet-kit" }, "bad key");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("Idempotency-Key required");
  });

  securityCases(() => ({ method: "POST", path: `/api/blockchain/repository/${REPO.id}/fund`, body: { amountXdc: "2", repositoryFullName: "issuepool-demo/xdc-wallet-kit" } }), {
    t: () => stack.t,
    owner: () => alice,
    stranger: () => bob,
  });
});

describe("the daily funding limit", () => {
  test("funding-status reports the rolling window", async () => {
    expect((await fund(alice, "2")).status).toBe(200); // a funding inside the window, whatever ran before
    const status = await (await call(stack.t, `/api/blockchain/repository/${REPO.id}/funding-status`)).json();
    // The spec's numbers, and the exact amounts beside them.
    expect(status.dailyLimit).toBe(1000);
    expect(typeof status.currentTotal).toBe("number");
    expect(status.currentTotal + status.remainingLimit).toBeCloseTo(1000, 9);
    expect(status.dailyLimitXdc).toBe("1000");
    expect(parseEther(status.currentTotalXdc)).toBeGreaterThanOrEqual(parseEther("2"));
    expect(parseEther(status.currentTotalXdc) + parseEther(status.remainingLimitXdc)).toBe(parseEther("1000"));
    expect(Number(status.currentTotalXdc)).toBe(status.currentTotal);
    expect(new Date(status.windowEndTime).getTime()).toBeGreaterThan(Date.now());
  });

  test("50 concurrent fundings from one wallet: the limit is never exceeded and nonces stay contiguous", async () => {
    const repo = OTHER;
    await ageFundingWindow();
    await settle();
    const poolBefore = await xdcPool(repo); // another test may have funded it (in random order)
    try {
      const results = await Promise.all(Array.from({ length: 50 }, () => fund(alice, "30", { repo })));
      const statuses = results.map((r) => r.status);
      const accepted = statuses.filter((s) => s === 200).length;
      expect(accepted).toBe(33); // 33 x 30 = 990 <= 1000 < 34 x 30
      expect(statuses.filter((s) => s === 429)).toHaveLength(50 - accepted);
      const refusedResponse = results.find((r) => r.status === 429)!;
      // When the oldest funding leaves the 24 h window: about a day from now.
      expect(Number(refusedResponse.headers.get("Retry-After"))).toBeGreaterThan(23 * 3600);
      const refused = await refusedResponse.json();
      expect(refused.error).toBe("Exceeds daily funding limit");
      expect(refused.message).toMatch(/^Daily funding limit reached\. Remaining: 10\.0000 XDC\. Limit resets at .+ UTC\.$/);
      expect(refused.details.remainingLimit).toBe("10");
      expect(new Date(refused.details.limitResetTime).getTime()).toBeGreaterThan(Date.now());
      await settle();
      expect((await xdcPool(repo)) - poolBefore).toBe((parseEther("990") * 995n) / 1000n);
      const rows = await stack.t.ctx.database.db
        .select({ nonce: chainTransactions.nonce })
        .from(chainTransactions)
        .where(and(eq(chainTransactions.fromAddress, aliceWallet), eq(chainTransactions.status, "confirmed")));
      const nonces = rows.map((r) => r.nonce!).sort((a, b) => a - b);
      expect(nonces).toEqual(Array.from({ length: nonces.length }, (_, i) => nonces[0]! + i));
      expect(await stack.t.ctx.chain.client.getTransactionCount({ address: aliceWallet })).toBe(nonces.at(-1)! + 1);
    } finally {
      await ageFundingWindow();
    }
  }, 60_000);

  test("the limit also counts per funder across repositories (issue 29): 600 XDC into one pool leaves 400 for another", async () => {
    await ageFundingWindow();
    try {
      expect((await fund(alice, "600", { repo: REPO })).status).toBe(200);
      // The other repository has its whole 1000 left, the funder 400: alice sees 400, a visitor 1000.
      const status = async (as?: TestSession) => (await call(stack.t, `/api/blockchain/repository/${OTHER.id}/funding-status`, as ? { as } : {})).json();
      expect((await status(alice)).remainingLimitXdc).toBe("400");
      expect((await status()).remainingLimitXdc).toBe("1000");
      const before = await xdcPool(OTHER);
      const refused = await fund(alice, "500", { repo: OTHER });
      expect(refused.status).toBe(429);
      const body = await refused.json();
      expect(body.error).toBe("Exceeds daily funding limit");
      expect(body.details.remainingLimit).toBe("400");
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(23 * 3600);
      expect((await fund(alice, "400", { repo: OTHER })).status).toBe(200);
      await settle();
      expect((await xdcPool(OTHER)) - before).toBe((parseEther("400") * 995n) / 1000n);
    } finally {
      await ageFundingWindow();
    }
  }, 60_000);
});

describe("funding a pool with ROXN", () => {
  const fundRoxn = (amount: unknown, k = key()) =>
    money(alice, `/api/blockchain/fund-roxn/${REPO.id}`, { roxnAmount: amount, repositoryFullName: "issuepool-demo/xdc-wallet-kit" }, k);

  test("needs an allowance first; approve, then add: the net lands in the pool", async () => {
    const noAllowance = await fundRoxn("50");
    expect(noAllowance.status).toBe(400);
    expect((await noAllowance.json()).error).toBe("Insufficient ROXN allowance");
    const allowanceBefore = await (await call(stack.t, "/api/blockchain/roxn-allowance", { as: alice })).json();
    expect(allowanceBefore).toEqual({ allowance: "0", formatted: "0" });
    const roxnBefore = BigInt((await (await call(stack.t, "/api/token/balance", { as: alice })).json()).balance);
    await settle();
    const poolBefore = parseEther((await poolInfo()).roxnPoolRewards);

    const approved = await money(alice, "/api/blockchain/approve-roxn", { amount: "50" });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ allowance: "50", message: "ROXN approved", status: "confirmed" });
    expect(await (await call(stack.t, "/api/blockchain/roxn-allowance", { as: alice })).json()).toEqual({ allowance: parseEther("50").toString(), formatted: "50" });

    const funded = await fundRoxn("50");
    expect(funded.status).toBe(200);
    await settle();
    expect(parseEther((await poolInfo()).roxnPoolRewards) - poolBefore).toBe(parseEther("49.75"));
    const roxnAfter = BigInt((await (await call(stack.t, "/api/token/balance", { as: alice })).json()).balance);
    expect(roxnBefore - roxnAfter).toBe(parseEther("50"));
    expect(await (await call(stack.t, "/api/blockchain/roxn-allowance", { as: alice })).json()).toEqual({ allowance: "0", formatted: "0" });
  });

  test("above 0 and not above the balance", async () => {
    const zero = await fundRoxn("0");
    expect(await zero.json()).toMatchObject({ error: "Invalid Amount", message: "Please enter a valid ROXN amount." });
    const tooMuch = await fundRoxn("100000");
    expect((await tooMuch.json()).error).toBe("Insufficient ROXN Balance");
  });
});

describe("bounties", () => {
  const allocate = (issue: number, body: Record<string, unknown>, session = alice, k = key()) =>
    money(session, `/api/blockchain/allocate-bounty/${REPO.id}/${issue}`, { githubRepoFullName: "issuepool-demo/xdc-wallet-kit", ...body }, k);
  const issueBounty = (issue: number) => call(stack.t, `/api/blockchain/issue-bounty/${REPO.id}/${issue}`);

  // The pools these tests draw on: 200 XDC and 20 ROXN (net of the fee), funded here, not by another test.
  beforeAll(async () => {
    expect((await fund(alice, "200")).status).toBe(200);
    expect((await money(alice, "/api/blockchain/approve-roxn", { amount: "20" })).status).toBe(200);
    expect((await money(alice, `/api/blockchain/fund-roxn/${REPO.id}`, { roxnAmount: "20", repositoryFullName: "issuepool-demo/xdc-wallet-kit" })).status).toBe(200);
    await settle();
  }, 60_000);

  test("an XDC bounty is set, confirmed and readable; it is final", async () => {
    const issue = await openIssue("A bounty that is final");
    const res = await allocate(issue, { bountyAmount: "10", isRoxn: false });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: "confirmed", message: "XDC bounty assigned" });
    const bounty = await (await issueBounty(issue)).json();
    expect(bounty).toMatchObject({ isRoxn: false, xdcAmount: "10", roxnAmount: "0", status: "open" });
    const pool = await poolInfo();
    expect(pool.issues.find((i: { issueId: number }) => i.issueId === issue)).toMatchObject({ xdcAmount: "10" });

    const again = await allocate(issue, { bountyAmount: "20", isRoxn: false });
    expect(again.status).toBe(409);
    expect((await again.json()).message).toBe("A bounty of 10 XDC is already assigned. You cannot change it.");
  });

  test("minimums: 1 XDC, 0.0001 ROXN", async () => {
    const issue = await openIssue("A small bounty");
    const low = await allocate(issue, { bountyAmount: "0.5", isRoxn: false });
    expect(await low.json()).toMatchObject({ error: "Invalid Amount", message: "Minimum bounty must be at least 1 XDC" });
    const lowRoxn = await allocate(issue, { bountyAmount: "0.00001", isRoxn: true });
    expect((await lowRoxn.json()).message).toBe("Minimum bounty must be at least 0.0001 ROXN");
    const roxn = await allocate(issue, { bountyAmount: "0.0001", isRoxn: true });
    expect(roxn.status).toBe(200);
    expect(await (await issueBounty(issue)).json()).toMatchObject({ isRoxn: true, roxnAmount: "0.0001" });
  });

  test("cannot exceed the pool; pull requests and closed issues cannot carry bounties", async () => {
    const issue = await openIssue("A bounty larger than the pool");
    const over = await allocate(issue, { bountyAmount: formatEther((await xdcPool()) + parseEther("1")), isRoxn: false });
    expect(over.status).toBe(400);
    expect((await over.json()).message).toMatch(/^Amount cannot exceed available XDC pool balance \(\d[\d,]*\.\d{4} XDC\)$/);
    expect((await issueBounty(issue)).status).toBe(404);
    const pr = await allocate(7, { bountyAmount: "2", isRoxn: false });
    expect((await pr.json()).message).toBe("#7 is a pull request, not an issue.");
    const closed = await allocate(6, { bountyAmount: "2", isRoxn: false });
    expect((await closed.json()).message).toBe("Issue #6 is closed.");
  });

  test("issue-bounty is 404 when there is none", async () => {
    expect((await issueBounty(await openIssue("No bounty here"))).status).toBe(404);
  });

  test("only the admin pool manager may allocate", async () => {
    const issue = await openIssue("Not theirs to fund");
    const refused = await allocate(issue, { bountyAmount: "2", isRoxn: false }, erin);
    expect(refused.status).toBe(403);
    // The refusal names the action refused, not funding (issue 16).
    expect((await refused.json()).message).toBe("You need admin permissions to set a bounty on this repository.");
    expect((await allocate(issue, { bountyAmount: "2", isRoxn: false }, bob)).status).toBe(403);
    expect((await issueBounty(issue)).status).toBe(404);
  });

  test("a pool manager without admin rights is told which action needs them", async () => {
    const issue = await openIssue("Not theirs to pay or cancel");
    const cancel = await money(erin, `/api/blockchain/cancel-bounty/${REPO.id}/${issue}`, {});
    expect(cancel.status).toBe(403);
    expect((await cancel.json()).message).toBe("You need admin permissions to cancel a bounty on this repository.");
    const pay = await money(erin, `/api/blockchain/distribute-bounty/${REPO.id}/${issue}`, { contributorAddress: "0x00000000000000000000000000000000000000ff" });
    expect(pay.status).toBe(403);
    expect((await pay.json()).message).toBe("You need admin permissions to pay a bounty from this repository.");
  });

  test("Contribute: a contributor registers for an issue; a pool manager is told to pick the contributor role", async () => {
    const issue = await openIssue("Someone to work on it");
    expect((await allocate(issue, { bountyAmount: "2", isRoxn: false })).status).toBe(200);
    const res = await call(stack.t, "/api/blockchain/register", { as: bob, body: { role: "contributor", issueId: issue, repoId: REPO.id } });
    expect(await res.json()).toMatchObject({ success: true, message: "You're now registered to contribute to this issue." });
    const pm = await call(stack.t, "/api/blockchain/register", { as: alice, body: { role: "contributor", issueId: issue, repoId: REPO.id } });
    expect(pm.status).toBe(403);
    const notMine = await call(stack.t, "/api/blockchain/register", { as: bob, body: { issueId: issue, repoId: REPO.id, walletAddress: aliceWallet } });
    expect(notMine.status).toBe(403);
  });

  test("a bounty is paid once, to a registered user's wallet", async () => {
    const issue = await openIssue("Paid once");
    expect((await allocate(issue, { bountyAmount: "10", isRoxn: false })).status).toBe(200);
    expect((await call(stack.t, "/api/blockchain/register", { as: bob, body: { role: "contributor", issueId: issue, repoId: REPO.id } })).status).toBe(200);
    const before = await stack.t.ctx.chain.client.getBalance({ address: bobWallet });
    const stranger = await money(alice, `/api/blockchain/distribute-bounty/${REPO.id}/${issue}`, { contributorAddress: "0x00000000000000000000000000000000000000ff" });
    expect((await stranger.json()).error).toBe("Unknown contributor");
    const paid = await money(alice, `/api/blockchain/distribute-bounty/${REPO.id}/${issue}`, { contributorAddress: `xdc${bobWallet.slice(2)}` });
    expect(paid.status).toBe(200);
    expect((await paid.json()).status).toBe("confirmed");
    const after = await stack.t.ctx.chain.client.getBalance({ address: bobWallet });
    expect(after - before).toBe(parseEther("10"));
    expect(await (await issueBounty(issue)).json()).toMatchObject({ status: "paid" });

    const twice = await money(alice, `/api/blockchain/distribute-bounty/${REPO.id}/${issue}`, { contributorAddress: bobWallet });
    expect(twice.status).toBe(409);
    expect(await stack.t.ctx.chain.client.getBalance({ address: bobWallet })).toBe(after);
  });

  test("an unclaimed bounty can be cancelled back to the pool; a claimed one cannot", async () => {
    const unclaimed = await openIssue("Cancelled back to the pool");
    expect((await allocate(unclaimed, { bountyAmount: "3", isRoxn: false })).status).toBe(200);
    await settle();
    const poolBefore = await xdcPool();
    const cancelled = await money(alice, `/api/blockchain/cancel-bounty/${REPO.id}/${unclaimed}`, {});
    expect(cancelled.status).toBe(200);
    await settle();
    expect((await xdcPool()) - poolBefore).toBe(parseEther("3"));
    expect((await issueBounty(unclaimed)).status).toBe(404);
    // The pool manager's history: back to the pool, not into her wallet (issue 38: it read as if she had received it).
    await stack.t.ctx.database.db.update(repositories).set({ registeredByUserId: alice.user.id }).where(eq(repositories.githubRepoId, REPO.id));
    const { entries } = await (await call(stack.t, "/api/wallet/bounty-history?limit=50", { as: alice })).json();
    expect(entries.find((e: { kind: string; issueNumber: number | null }) => e.kind === "refund" && e.issueNumber === unclaimed)).toMatchObject({ direction: "none", amount: "3", fee: null });

    const claimedIssue = await openIssue("Someone works on this one");
    expect((await allocate(claimedIssue, { bountyAmount: "3", isRoxn: false })).status).toBe(200);
    expect((await call(stack.t, "/api/blockchain/register", { as: bob, body: { issueId: claimedIssue, repoId: REPO.id } })).status).toBe(200);
    const claimed = await money(alice, `/api/blockchain/cancel-bounty/${REPO.id}/${claimedIssue}`, {});
    expect(claimed.status).toBe(409);
    expect(await (await issueBounty(claimedIssue)).json()).toMatchObject({ status: "open" });
  });

  securityCases(() => ({ method: "POST", path: `/api/blockchain/allocate-bounty/${REPO.id}/8`, body: { bountyAmount: "2", isRoxn: false, githubRepoFullName: "issuepool-demo/xdc-wallet-kit" } }), {
    t: () => stack.t,
    owner: () => alice,
    stranger: () => bob,
  });
  securityCases(() => ({ method: "POST", path: `/api/blockchain/distribute-bounty/${REPO.id}/2`, body: { contributorAddress: "0x0000000000000000000000000000000000000001" } }), {
    t: () => stack.t,
    owner: () => alice,
    stranger: () => bob,
  });
});

describe("wallet and user reads", () => {
  test("wallet info for a user; empty without one", async () => {
    const mine = await (await call(stack.t, "/api/wallet/info", { as: bob })).json();
    expect(mine.address).toBe(`xdc${bobWallet.slice(2)}`);
    // Wei, as formatEther reads it (spec section 3: "strings, 18 decimal places"); the decimal beside it.
    const onChain = await stack.t.ctx.chain.client.getBalance({ address: bobWallet });
    expect(mine.balance).toBe(onChain.toString());
    expect(parseEther(formatEther(BigInt(mine.balance)))).toBe(onChain);
    expect(parseEther(mine.xdcBalance)).toBe(onChain);
    expect(mine.tokenBalance).toBe("0");
    expect(await (await call(stack.t, "/api/wallet/info")).json()).toEqual({ address: "", balance: "0", tokenBalance: "0", xdcBalance: "0", roxnBalance: "0", usdcBalance: "0" });
  });

  test("USDC balance, type and wallet: one's own only", async () => {
    expect(await (await call(stack.t, `/api/wallet/usdc-balance/${bob.user.id}`, { as: bob })).json()).toEqual({ balance: "0" });
    expect((await call(stack.t, `/api/wallet/usdc-balance/${alice.user.id}`, { as: bob })).status).toBe(404);
    expect(await (await call(stack.t, `/api/blockchain/user/${bob.user.id}/type`, { as: bob })).json()).toEqual({ type: "contributor" });
    expect((await call(stack.t, `/api/blockchain/user/${alice.user.id}/wallet`, { as: bob })).status).toBe(404);
  });

  test("POST /api/wallet confirms the user's own address only", async () => {
    expect((await call(stack.t, "/api/wallet", { as: bob, body: { address: `xdc${bobWallet.slice(2)}` } })).status).toBe(200);
    expect((await call(stack.t, "/api/wallet", { as: bob, body: { address: aliceWallet } })).status).toBe(409);
  });
});

describe("amount steps, balances and cancellation answers (issue 11)", () => {
  const fundRoxn = (amount: string) =>
    money(alice, `/api/blockchain/fund-roxn/${REPO.id}`, { roxnAmount: amount, repositoryFullName: "issuepool-demo/xdc-wallet-kit" });
  const allocate = (issue: number, body: Record<string, unknown>) =>
    money(alice, `/api/blockchain/allocate-bounty/${REPO.id}/${issue}`, { githubRepoFullName: "issuepool-demo/xdc-wallet-kit", ...body });

  beforeAll(async () => {
    expect((await fund(alice, "20")).status).toBe(200); // the bounties below draw on a pool of their own funding
    await settle();
  }, 60_000);

  test("ROXN amounts finer than the spec's 0.0001 step are refused, and nothing is sent", async () => {
    for (const amount of ["0.00001", "1.00015", "0.000000000000000001"]) {
      const before = await databaseDigest(stack.t);
      const res = await fundRoxn(amount);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "Invalid Amount", message: "ROXN amounts have at most 4 decimal places." });
      const approve = await money(alice, "/api/blockchain/approve-roxn", { amount });
      expect(approve.status).toBe(400);
      expect(await databaseDigest(stack.t)).toBe(before);
    }
  });

  test("a ROXN or USDC bounty finer than 0.0001 is refused", async () => {
    const issue = await openIssue("A bounty too finely cut");
    const res = await allocate(issue, { bountyAmount: "0.00015", isRoxn: true });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "Invalid Amount", message: "ROXN amounts have at most 4 decimal places." });
    expect((await call(stack.t, `/api/blockchain/issue-bounty/${REPO.id}/${issue}`)).status).toBe(404);
  });

  test("funding more XDC than the wallet holds names the balance, not the gas reserve", async () => {
    const balance = await stack.t.ctx.chain.client.getBalance({ address: aliceWallet });
    const res = await fund(alice, formatEther(balance + parseEther("5")));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe("Insufficient XDC Balance");
    expect(body.message).toMatch(/^Your XDC balance is [\d,]+\.\d{4} XDC\.$/);
  });

  test("cancelling a bounty that is no longer open says so, even when someone had registered for it", async () => {
    const issue = await openIssue("Cancelled twice");
    expect((await allocate(issue, { bountyAmount: "2", isRoxn: false })).status).toBe(200);
    // The bounty went back to the pool, then someone registered. (Registered in the database only: Contribute also
    // records the claim on-chain, and RepoRewards v2 then refunds a claimed bounty only after a delay.)
    expect((await money(alice, `/api/blockchain/cancel-bounty/${REPO.id}/${issue}`, {})).status).toBe(200);
    await stack.t.ctx.database.db.insert(bountyClaims).values({ githubRepoId: REPO.id, issueNumber: issue, userId: bob.user.id });
    const again = await money(alice, `/api/blockchain/cancel-bounty/${REPO.id}/${issue}`, {});
    expect(again.status).toBe(409);
    expect((await again.json()).message).toBe("There is no open bounty on this issue.");
  });
});

describe("withdrawing unallocated funds (issue 11)", () => {
  beforeAll(async () => {
    await registerRepository(SDK);
    expect((await fund(alice, "10", { repo: SDK })).status).toBe(200);
    await settle();
  }, 60_000);
  const withdraw = (body: Record<string, unknown>, session = alice, k = key()) =>
    money(session, `/api/blockchain/repository/${SDK.id}/withdraw`, { repositoryFullName: `${SDK.owner}/${SDK.name}`, ...body }, k);
  const otherPool = () => xdcPool(SDK);

  // A repository of its own (OTHER's daily limit belongs to the concurrent-funding test).
  test("the pool shrinks by exactly the amount, the manager's wallet grows by it, fee-free; a replay withdraws nothing more", async () => {
    await settle();
    const poolBefore = await otherPool();
    const walletBefore = await stack.t.ctx.chain.client.getBalance({ address: aliceWallet });
    const k = key();
    const res = await withdraw({ currency: "XDC", amount: "1.5" }, alice, k);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: "confirmed", message: "Withdrawn to your wallet", currency: "XDC", amount: "1.5" });
    await settle();
    expect(poolBefore - (await otherPool())).toBe(parseEther("1.5"));
    const receipt = await stack.t.ctx.chain.client.getTransactionReceipt({ hash: body.transactionHash });
    const gas = receipt.gasUsed * receipt.effectiveGasPrice;
    expect((await stack.t.ctx.chain.client.getBalance({ address: aliceWallet })) - walletBefore).toBe(parseEther("1.5") - gas);

    const again = await withdraw({ currency: "XDC", amount: "1.5" }, alice, k);
    expect((await again.json()).transactionHash).toBe(body.transactionHash);
    await settle();
    expect(poolBefore - (await otherPool())).toBe(parseEther("1.5"));
  });

  test("more than the pool holds is refused with the pool's figure, and nothing is sent", async () => {
    await settle();
    const pool = await otherPool();
    const before = await databaseDigest(stack.t);
    const res = await withdraw({ currency: "XDC", amount: formatEther(pool + parseEther("1")) });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/^Amount cannot exceed available XDC pool balance \(\d[\d,]*\.\d{4} XDC\)$/);
    for (const body of [{ currency: "XDC", amount: "0" }, { currency: "BTC", amount: "1" }, { currency: "ROXN", amount: "0.00001" }, { currency: "XDC", amount: "-1" }]) {
      expect((await withdraw(body)).status).toBe(400);
    }
    expect(await databaseDigest(stack.t)).toBe(before);
  });

  test("bounties are never touched: the pool figure excludes them, and only an admin pool manager may withdraw", async () => {
    await settle();
    const issue = await openIssue("A bounty a withdrawal leaves alone");
    const allocate = await money(alice, `/api/blockchain/allocate-bounty/${REPO.id}/${issue}`, { githubRepoFullName: "issuepool-demo/xdc-wallet-kit", bountyAmount: "2", isRoxn: false });
    if (allocate.status !== 200) {
      expect((await fund(alice, "5")).status).toBe(200);
      await settle();
      expect((await money(alice, `/api/blockchain/allocate-bounty/${REPO.id}/${issue}`, { githubRepoFullName: "issuepool-demo/xdc-wallet-kit", bountyAmount: "2", isRoxn: false })).status).toBe(200);
    }
    await settle();
    const pool = await xdcPool();
    const all = await money(alice, `/api/blockchain/repository/${REPO.id}/withdraw`, { currency: "XDC", amount: formatEther(pool + parseEther("2")), repositoryFullName: "issuepool-demo/xdc-wallet-kit" });
    expect(all.status).toBe(400); // the bounty's 2 XDC are not the pool's
    expect(await (await call(stack.t, `/api/blockchain/issue-bounty/${REPO.id}/${issue}`)).json()).toMatchObject({ status: "open", xdcAmount: "2" });
    expect((await withdraw({ currency: "XDC", amount: "1" }, erin)).status).toBe(403);
    expect((await withdraw({ currency: "XDC", amount: "1" }, bob)).status).toBe(403);
  });

  test("20 concurrent withdrawals of most of the pool: one is sent, the platform refuses the other 19 (400), exactly one transaction (issue 25)", async () => {
    await settle();
    const pool = await otherPool();
    const amount = formatEther((pool * 3n) / 4n);
    const before = (await stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.kind, "withdraw_pool"))).length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => withdraw({ currency: "XDC", amount })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400 || s === 409)).toHaveLength(19);
    for (const r of answers.filter((r) => r.status === 400)) expect((await r.json()).message).toMatch(/^Amount cannot exceed available XDC pool balance/);
    const after = await stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.kind, "withdraw_pool"));
    expect(after.length - before).toBe(1);
    await settle();
    expect(pool - (await otherPool())).toBe(parseEther(amount));
  }, 60_000);

  securityCases(() => ({ method: "POST", path: `/api/blockchain/repository/${SDK.id}/withdraw`, body: { currency: "XDC", amount: "1", repositoryFullName: `${SDK.owner}/${SDK.name}` } }), {
    t: () => stack.t,
    owner: () => alice,
    stranger: () => bob,
  });
});

describe("bounties racing for one pool (issue 25)", () => {
  // A repository of its own: these tests take most of its pool.
  beforeAll(async () => {
    await registerRepository(TOOLS);
    expect((await fund(alice, "20", { repo: TOOLS })).status).toBe(200);
    await settle();
  }, 60_000);
  const openToolsIssue = async (title: string) =>
    Number((await stack.github.controls.openIssue({ repo: `${TOOLS.owner}/${TOOLS.name}`, title, author: "alice" })).issue.number);
  const allocate = (issue: number, amount: string) =>
    money(alice, `/api/blockchain/allocate-bounty/${TOOLS.id}/${issue}`, { githubRepoFullName: `${TOOLS.owner}/${TOOLS.name}`, bountyAmount: amount, isRoxn: false });
  const allocations = async () =>
    stack.t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.kind, "allocate_bounty"), eq(chainTransactions.githubRepoId, TOOLS.id)));
  /** The tests share the pool and run in any order: each tops it up to what it needs first. */
  const ensurePool = async (xdc: string) => {
    await settle();
    if ((await xdcPool(TOOLS)) >= parseEther(xdc)) return;
    expect((await fund(alice, "10", { repo: TOOLS })).status).toBe(200);
    await settle();
  };

  test("20 concurrent bounties each worth most of the pool: one is sent, the platform refuses the other 19 (400), exactly one transaction", async () => {
    await ensurePool("4");
    const pool = await xdcPool(TOOLS);
    const amount = formatEther(((pool * 3n) / 4n / parseEther("1")) * parseEther("1"));
    const issues = await Promise.all(Array.from({ length: 20 }, (_, i) => openToolsIssue(`Racing for the pool ${i}`)));
    const before = new Set((await allocations()).map((r) => r.id));
    const answers = await Promise.all(issues.map((issue) => allocate(issue, amount)));
    expect(answers.map((r) => r.status).filter((s) => s === 200)).toHaveLength(1);
    expect(answers.map((r) => r.status).filter((s) => s === 400)).toHaveLength(19);
    for (const r of answers.filter((r) => r.status === 400)) expect((await r.json()).message).toMatch(/^Amount cannot exceed available XDC pool balance/);
    const sent = (await allocations()).filter((r) => !before.has(r.id));
    expect(sent.map((r) => r.status)).toEqual(["confirmed"]);
  }, 60_000);

  test("a debit mined while an allocation waits for the pool's lock (its chain figures were read before, at a block) is counted: the allocation the pool no longer covers is refused (400), nothing sent", async () => {
    expect((await fund(alice, "10", { repo: TOOLS })).status).toBe(200);
    await settle();
    const pool = await xdcPool(TOOLS);
    // Mined meanwhile: all but 6 XDC and a fraction (the next tests allocate a few); waiting: 7 XDC, which the pool it read covers.
    const most = (pool / parseEther("1") - 6n) * parseEther("1");
    const asked = "7";
    const [mined, waiting] = [await openToolsIssue("Allocated by another process meanwhile"), await openToolsIssue("Waiting for the pool")];
    const before = new Set((await allocations()).map((r) => r.id));
    const ctx = stack.t.ctx;
    let answer: Response | undefined;
    // The test holds the pool's lock (another request of the pool, or another process): the allocation reads the
    // chain, then waits for it. Meanwhile a debit of most of the pool is queued and mined, after the block it read.
    await withPoolLock(ctx, TOOLS.id, async () => {
      const request = allocate(waiting, asked).then((res) => (answer = res));
      await eventually(async () => {
        if (answer) throw new Error(`the allocation did not wait for the pool's lock (${answer.status})`);
        return poolLockWaiters(TOOLS.id) > 0 ? true : undefined;
      }, 30_000, "the allocation waiting for the pool's lock");
      const { tx } = await ctx.outbox.submit({
        userId: null,
        idempotencyKey: `test-mined-meanwhile-${mined}`,
        request: { test: mined },
        kind: "allocate_bounty",
        githubRepoId: TOOLS.id,
        issueNumber: mined,
        intent: { repoId: TOOLS.id, issueNumber: mined, currency: "XDC", amount: most.toString(), issueTitle: "Allocated meanwhile", issueUrl: "" },
        signer: { kind: "operator" },
        to: ctx.chain.config.contracts.rewards,
        data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "allocateBounty", args: [BigInt(TOOLS.id), BigInt(mined), 0, most] }),
      });
      expect((await ctx.outbox.waitForSettled(tx, 30_000)).status).toBe("confirmed");
      void request;
    });
    await eventually(async () => (answer ? true : undefined), 30_000, "the allocation's answer");
    if (!answer) throw new Error("no answer");
    expect(answer.status, await answer.clone().text()).toBe(400);
    expect((await answer.json()).message).toMatch(/^Amount cannot exceed available XDC pool balance/);
    const sent = (await allocations()).filter((r) => !before.has(r.id));
    expect(sent.map((r) => r.issueNumber)).toEqual([mined]);
  }, 60_000);

  test("what the pool at a block does not show: a debit mined by then is not counted again (even before the outbox records its block), one after it is", async () => {
    await ensurePool("2");
    const db = stack.t.ctx.database.db;
    const issue = await openToolsIssue("Counted once");
    expect((await allocate(issue, "1")).status).toBe(200);
    const [row] = (await allocations()).filter((r) => r.issueNumber === issue);
    expect(row!.status).toBe("confirmed");
    // The outbox has not looked at its receipt yet: sent, no block recorded. Mined before the snapshot's block, so in its pool.
    await db.update(chainTransactions).set({ status: "sent", blockNumber: null }).where(eq(chainTransactions.id, row!.id));
    try {
      const after = await poolSnapshot(stack.t.ctx, TOOLS.id);
      expect(after.settledBy.has(row!.id)).toBe(true);
      expect(await poolDebitsAfter(stack.t.ctx, TOOLS.id, "XDC", after)).toBe(0n);
      // A snapshot from before it was mined: the pool then did not show it, so it counts, once.
      const before = { ...after, block: BigInt(row!.blockNumber ?? 0) - 1n, settledBy: new Set<string>() };
      expect(await poolDebitsAfter(stack.t.ctx, TOOLS.id, "XDC", before)).toBe(parseEther("1"));
    } finally {
      await db.update(chainTransactions).set({ status: row!.status, blockNumber: row!.blockNumber }).where(eq(chainTransactions.id, row!.id));
    }
    // Confirmed with its block recorded: counted only against a snapshot older than that block.
    const recorded = await poolSnapshot(stack.t.ctx, TOOLS.id);
    expect(await poolDebitsAfter(stack.t.ctx, TOOLS.id, "XDC", recorded)).toBe(0n);
    expect(await poolDebitsAfter(stack.t.ctx, TOOLS.id, "XDC", { ...recorded, block: BigInt(row!.blockNumber!) - 1n })).toBe(parseEther("1"));
  }, 60_000);

  test("a Release and a Cancel of one bounty at once: one transaction goes to the chain, the other is the platform's 409", async () => {
    await ensurePool("2");
    const issue = await openToolsIssue("Released and cancelled at once");
    expect((await allocate(issue, "1")).status).toBe(200);
    await settle();
    const settling = async () =>
      (await stack.t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.githubRepoId, TOOLS.id), eq(chainTransactions.issueNumber, issue)))).filter(
        (r) => r.kind === "pay_bounty" || r.kind === "cancel_bounty",
      );
    const answers = await Promise.all([
      money(alice, `/api/blockchain/distribute-bounty/${TOOLS.id}/${issue}`, { contributorAddress: bobWallet, githubRepoFullName: `${TOOLS.owner}/${TOOLS.name}` }),
      money(alice, `/api/blockchain/cancel-bounty/${TOOLS.id}/${issue}`, { githubRepoFullName: `${TOOLS.owner}/${TOOLS.name}` }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await settling()).map((r) => r.status)).toEqual(["confirmed"]);
  }, 60_000);

  test("two bounties on one issue at once (two keys): one is sent, the platform refuses the other (409), one transaction", async () => {
    await ensurePool("3");
    const issue = await openToolsIssue("Set twice at once");
    const answers = await Promise.all([allocate(issue, "1"), allocate(issue, "2")]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const rows = (await allocations()).filter((r) => r.issueNumber === issue);
    expect(rows.map((r) => r.status)).toEqual(["confirmed"]);
  }, 60_000);
});

describe("USDC pools (issue 11)", () => {
  const usdcOf = async (address: Address) =>
    stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });
  const fundUsdc = (amount: string, k = key()) => money(alice, `/api/blockchain/fund-usdc/${REPO.id}`, { usdcAmount: amount, repositoryFullName: "issuepool-demo/xdc-wallet-kit" }, k);
  const usdcPool = async () => parseUnits((await poolInfo()).usdcPoolRewards, 6);

  test("approve, fund (the 0.5% fee taken), set a USDC bounty and pay it: exact amounts in 6 decimals", async () => {
    await stack.chain.fund(aliceWallet, { usdc: "100" });
    const noAllowance = await fundUsdc("10");
    expect(noAllowance.status).toBe(400);
    expect((await noAllowance.json()).error).toBe("Insufficient USDC allowance");
    const approved = await money(alice, "/api/blockchain/approve-usdc", { amount: "10" });
    expect(await approved.json()).toMatchObject({ status: "confirmed", message: "USDC approved", allowance: "10" });
    expect(await (await call(stack.t, "/api/blockchain/usdc-allowance", { as: alice })).json()).toEqual({ allowance: "10000000", formatted: "10" });
    await settle();
    const poolBefore = await usdcPool();
    const walletBefore = await usdcOf(aliceWallet);
    const funded = await fundUsdc("10");
    expect(funded.status).toBe(200);
    await settle();
    expect((await usdcPool()) - poolBefore).toBe(parseUnits("9.95", 6));
    expect(walletBefore - (await usdcOf(aliceWallet))).toBe(parseUnits("10", 6));

    const issue = await openIssue("A USDC bounty");
    const allocated = await money(alice, `/api/blockchain/allocate-bounty/${REPO.id}/${issue}`, { githubRepoFullName: "issuepool-demo/xdc-wallet-kit", bountyAmount: "2.5", currency: "USDC" });
    expect(allocated.status).toBe(200);
    expect(await (await call(stack.t, `/api/blockchain/issue-bounty/${REPO.id}/${issue}`)).json()).toMatchObject({ currency: "USDC", usdcAmount: "2.5", status: "open" });
    // carol, whom no other test pays: bob's USDC balance is another test's "0".
    const carol = await stack.signIn("carol");
    await register(carol, "contributor");
    const carolWallet = (await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, carol.user.id)))[0]!.address as Address;
    expect((await call(stack.t, "/api/blockchain/register", { as: carol, body: { issueId: issue, repoId: REPO.id } })).status).toBe(200);
    const paid = await money(alice, `/api/blockchain/distribute-bounty/${REPO.id}/${issue}`, { contributorAddress: carolWallet });
    expect((await paid.json()).status).toBe("confirmed");
    expect(await usdcOf(carolWallet)).toBe(parseUnits("2.5", 6));
  });

  test("USDC amounts: above zero, steps of 0.0001, not above the balance; nothing is sent", async () => {
    const before = await databaseDigest(stack.t);
    for (const [amount, error] of [["0", "Invalid Amount"], ["0.00001", "Invalid Amount"], ["1.1234567", "Invalid Amount"], ["100000000", "Insufficient USDC Balance"]] as const) {
      const res = await fundUsdc(amount);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe(error);
    }
    expect(await databaseDigest(stack.t)).toBe(before);
  });
});
