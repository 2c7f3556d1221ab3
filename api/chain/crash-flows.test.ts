/**
 * SIGKILL in the middle of the other money flows (issue 15; the payouts
 * requested by hand are api/chain/crash.test.ts): fundings of a pool, sends
 * from a wallet, payouts triggered by merged pull requests, and (issue 11)
 * releases of bounties awaiting the pool manager's decision and bounties held
 * for an author until they register. Each test
 * starts a real server process, fires its batch, kills the process with
 * SIGKILL in the middle of a signing batch, starts a new one on the same
 * database file and chain, lets clients retry as the site does (or GitHub
 * redeliver, as an operator does from the app's settings), and then checks
 * on the chain: every request happened exactly once, with the exact
 * amount, and the signer's nonces run without a gap or a repeat.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { parseEther, parseEventLogs, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { chainTransactions, repositories, wallets, type ChainTransaction } from "../../db/schema/index.ts";
import { fixtureRepo } from "../../testing/dev-tools.ts";
import { submitAllocation } from "../services/money/bounty-allocate.ts";
import { isAwaiting, markAwaiting } from "../services/money/awaiting.ts";
import { holdPayout } from "../services/github-events/held-payouts.ts";
import { call, type TestSession } from "../../testing/auth.ts";
import { consecutive, countBy, killMidFlight, retryUntilConfirmed, sentOnChain, settleInProcess } from "../../testing/crash.ts";
import { startProcessStack, type ProcessStack, type ServerProcess } from "../../testing/process-stack.ts";
import { eventually, signInThroughGitHub } from "../../testing/stack.ts";
import { SIGNER_LEASE_MS } from "./outbox.ts";
import { WEBHOOK_LEASE_MS } from "../workers/webhooks.ts";

const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;

let stack: ProcessStack;
let server: ServerProcess | undefined;
let alice: TestSession & { wallet: Address }; // pool manager, admin of REPO
let bob: TestSession & { wallet: Address }; // contributor, author of the merged pull requests
/** How long the setup's in-process work took on this machine now: the yardstick for every deadline below. */
let setupMs = 0;

beforeAll(async () => {
  const started = Date.now();
  stack = await startProcessStack();
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  await stack.registerRepository(FULL_NAME, REPO.id);
  // The app installed on the organisation: merged pull requests are read through it.
  const installed = await stack.github.controls.install({ account: REPO.owner, repositories: "all", sender: "alice" });
  await stack.t.ctx.database.db
    .update(repositories)
    .set({ installationId: (installed.installation as { id: number }).id })
    .where(eq(repositories.githubRepoId, REPO.id));
  await stack.chain.fund(alice.wallet, { xdc: "1000" });
  // A first funding makes alice the pool's manager on-chain and fills the pool for the bounties.
  const funded = await call(stack.t, `/api/blockchain/repository/${REPO.id}/fund`, {
    as: alice,
    body: { amountXdc: "100", repositoryFullName: FULL_NAME },
    headers: { "Idempotency-Key": "crash-flows-first-funding" },
  });
  expect(funded.status).toBe(200);
  await settleInProcess(stack);
  setupMs = Date.now() - started;
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

// Whatever a test's outcome, its server process is gone before the next test counts nonces.
afterEach(async () => {
  await server?.kill();
  server = undefined;
});

const rowsOf = (kind: string, keys: string[]) => () =>
  stack.t.ctx.database.db
    .select()
    .from(chainTransactions)
    .where(and(eq(chainTransactions.kind, kind), inArray(chainTransactions.idempotencyKey, keys)));

type Answer = { status: number } | { error: string };
const answerOf = (res: Promise<Response>): Promise<Answer> =>
  res.then(
    async (r) => ({ status: r.status, body: await r.json().catch(() => undefined) }),
    (err: unknown) => ({ error: String(err) }),
  );

/** The restarted process waits out the dead one's signer lease, then does the batch again at most: three setups' time, plus the lease. */
const recoveryDeadline = () => Date.now() + SIGNER_LEASE_MS + 3 * setupMs + 10_000;

/** Fresh issues of REPO with XDC bounties of `amount(i)`, set up in-process (no server runs yet), mirrored. */
async function bountiedIssues(count: number, title: string, amount: (i: number) => string): Promise<number[]> {
  const issues: number[] = [];
  for (let i = 0; i < count; i++) {
    const opened = await stack.github.controls.openIssue({ repo: FULL_NAME, title: `${title} ${i}`, author: "alice" });
    issues.push(Number(opened.issue.number));
  }
  await Promise.all(
    issues.map((issueNumber, i) =>
      submitAllocation(stack.t.ctx, {
        userId: alice.user.id,
        idempotencyKey: `crash-${title}-allocate-${issueNumber}`,
        request: { issueNumber },
        repoId: REPO.id,
        issueNumber,
        currency: "XDC",
        amount: amount(i),
        issue: { title: `${title} ${i}`, html_url: `${stack.github.webUrl}/${FULL_NAME}/issues/${issueNumber}` },
      }),
    ),
  );
  await settleInProcess(stack);
  await stack.t.ctx.indexer.catchUp();
  return issues;
}

/** Each issue's bounty paid exactly once, to `to`, by consecutive operator nonces from `firstNonce`; `to` got exactly the total. */
async function expectPaidOnce(issues: number[], to: Address, amounts: bigint[], since: { firstNonce: number; firstBlock: bigint; balanceBefore: bigint }) {
  const client = stack.t.ctx.chain.client;
  const rows = await stack.t.ctx.database.db
    .select()
    .from(chainTransactions)
    .where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, REPO.id), inArray(chainTransactions.issueNumber, issues)));
  expect(countBy(rows)).toEqual({ confirmed: issues.length });
  expect(rows.map((r) => r.nonce!).sort((a, b) => a - b)).toEqual(consecutive(since.firstNonce, issues.length));
  const sent = await sentOnChain(client, stack.t.ctx.chain.operator.address, since.firstBlock);
  expect(sent.map((x) => x.nonce).sort((a, b) => a - b)).toEqual(consecutive(since.firstNonce, issues.length));
  const logs = await client.getLogs({ address: stack.t.ctx.chain.config.contracts.rewards, fromBlock: since.firstBlock });
  const paid = parseEventLogs({ abi: RepoRewardsAbi, logs, eventName: "BountyPaid" });
  expect(paid.map((e) => Number(e.args.issueNumber)).sort((a, b) => a - b)).toEqual([...issues].sort((a, b) => a - b));
  for (const event of paid) expect(event.args.contributor).toBe(to);
  expect((await client.getBalance({ address: to })) - since.balanceBefore).toBe(amounts.reduce((sum, a) => sum + a, 0n));
}

describe("SIGKILL in the middle of a money flow", () => {
  test("fundings of a pool: each funded exactly once, the pool grows by exactly their net, nonces without a gap", async () => {
    const FUNDINGS = 15;
    const amount = (i: number) => `2.${String(i).padStart(2, "0")}`; // distinct, so a double or a swap shows
    const keys = consecutive(0, FUNDINGS).map((i) => `crash-fund-${i}-${Date.now()}`);
    const fund = (i: number) => stack.post(server!, alice, `/api/blockchain/repository/${REPO.id}/fund`, { amountXdc: amount(i), repositoryFullName: FULL_NAME }, keys[i]);
    const client = stack.t.ctx.chain.client;
    const rewards = stack.t.ctx.chain.config.contracts.rewards;
    const [poolBefore] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getPool", args: [BigInt(REPO.id)] });
    const firstNonce = await client.getTransactionCount({ address: alice.wallet });
    const firstBlock = (await client.getBlockNumber({ cacheTime: 0 })) + 1n;

    server = await stack.spawn();
    const answers = consecutive(0, FUNDINGS).map((i) => answerOf(fund(i)));
    const atKill = await killMidFlight(server, rowsOf("fund_xdc", keys), FUNDINGS, Math.max(5_000, setupMs));
    await Promise.all(answers);
    expect(atKill.some((r) => r.status !== "confirmed")).toBe(true);

    server = await stack.spawn();
    const deadline = recoveryDeadline();
    await Promise.all(consecutive(0, FUNDINGS).map((i) => retryUntilConfirmed(`funding ${i}`, () => fund(i), deadline)));

    const rows = await rowsOf("fund_xdc", keys)();
    expect(countBy(rows)).toEqual({ confirmed: FUNDINGS });
    expect(rows.map((r) => r.nonce!).sort((a, b) => a - b)).toEqual(consecutive(firstNonce, FUNDINGS));
    const sent = await sentOnChain(client, alice.wallet, firstBlock);
    expect(sent.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(consecutive(firstNonce, FUNDINGS));
    for (const { nonce, hash } of sent) expect(rows.find((r) => r.nonce === nonce)!.txHash).toBe(hash);
    const [poolAfter] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getPool", args: [BigInt(REPO.id)] });
    const net = consecutive(0, FUNDINGS).reduce((sum, i) => sum + (parseEther(amount(i)) * 9950n) / 10_000n, 0n);
    expect(poolAfter - poolBefore).toBe(net);
  }, 600_000);

  test("sends from one wallet: each recipient receives exactly its amount once, nonces without a gap", async () => {
    const SENDS = 12;
    const amount = (i: number) => `0.${String(i + 10).padStart(2, "0")}`;
    const recipients = consecutive(0, SENDS).map(() => privateKeyToAccount(generatePrivateKey()).address);
    const keys = consecutive(0, SENDS).map((i) => `crash-send-${i}-${Date.now()}`);
    const send = (i: number) => stack.post(server!, bob, "/api/wallet/send", { token: "XDC", to: recipients[i], amount: amount(i) }, keys[i]);
    const client = stack.t.ctx.chain.client;
    await stack.chain.fund(bob.wallet, { xdc: "50" });
    const firstNonce = await client.getTransactionCount({ address: bob.wallet });
    const firstBlock = (await client.getBlockNumber({ cacheTime: 0 })) + 1n;

    server = await stack.spawn();
    const answers = consecutive(0, SENDS).map((i) => answerOf(send(i)));
    const atKill = await killMidFlight(server, rowsOf("send_xdc", keys), SENDS, Math.max(5_000, setupMs));
    await Promise.all(answers);
    expect(atKill.some((r) => r.status !== "confirmed")).toBe(true);

    // Clients whose request never reached the database send it again (for them nothing was accepted); the others
    // leave it to the worker. Once a second, so the sends' rate limit is never what stops them.
    server = await stack.spawn();
    const deadline = recoveryDeadline();
    const recorded = new Set(atKill.map((r) => r.idempotencyKey));
    await Promise.all(
      consecutive(0, SENDS)
        .filter((i) => !recorded.has(keys[i]!))
        .map((i) => retryUntilConfirmed(`send ${i}`, () => send(i), deadline, 1_000)),
    );
    await eventually(async () => {
      const rows = await rowsOf("send_xdc", keys)();
      return rows.length === SENDS && rows.every((r) => r.status === "confirmed") ? true : undefined;
    }, deadline - Date.now(), "every send confirmed");

    const rows = await rowsOf("send_xdc", keys)();
    expect(countBy(rows)).toEqual({ confirmed: SENDS });
    const sent = await sentOnChain(client, bob.wallet, firstBlock);
    expect(sent.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(consecutive(firstNonce, SENDS));
    for (const { nonce, hash } of sent) expect(rows.find((r) => r.nonce === nonce)!.txHash).toBe(hash);
    for (let i = 0; i < SENDS; i++) expect(await client.getBalance({ address: recipients[i]! })).toBe(parseEther(amount(i)));
  }, 600_000);

  test("payouts for merged pull requests: each bounty paid exactly once to the author, redelivered webhooks pay nothing more", async () => {
    const MERGES = 8;
    const amount = (i: number) => `1.${String(i + 50).padStart(2, "0")}`;
    const client = stack.t.ctx.chain.client;
    const operator = stack.t.ctx.chain.operator.address;
    // Fresh issues with bounties, and a pull request fixing each, opened by bob (no server runs yet: set up in-process).
    const issues: number[] = [];
    const pulls: number[] = [];
    for (let i = 0; i < MERGES; i++) {
      const opened = await stack.github.controls.openIssue({ repo: FULL_NAME, title: `Merged under a crash ${i}`, author: "alice" });
      issues.push(Number(opened.issue.number));
    }
    await Promise.all(
      issues.map((issueNumber, i) =>
        submitAllocation(stack.t.ctx, {
          userId: alice.user.id,
          idempotencyKey: `crash-merge-allocate-${issueNumber}`,
          request: { issueNumber },
          repoId: REPO.id,
          issueNumber,
          currency: "XDC",
          amount: amount(i),
          issue: { title: `Merged under a crash ${i}`, html_url: `${stack.github.webUrl}/${FULL_NAME}/issues/${issueNumber}` },
        }),
      ),
    );
    await settleInProcess(stack);
    for (const issueNumber of issues) {
      const pr = await stack.github.controls.openPullRequest({ repo: FULL_NAME, author: "bob", title: `Fix #${issueNumber}`, body: `Fixes #${issueNumber}`, head: `bob:fix-${issueNumber}` });
      pulls.push(Number(pr.pull_request.number));
    }
    const keys = issues.map((n) => `merge-payout:${REPO.id}:${n}`);
    const bobBefore = await client.getBalance({ address: bob.wallet });
    const firstNonce = await client.getTransactionCount({ address: operator });
    const firstBlock = (await client.getBlockNumber({ cacheTime: 0 })) + 1n;

    // The maintainer merges them all; the server dies while the payouts are on their way.
    server = await stack.spawn();
    const merging = Promise.all(pulls.map((number) => stack.github.controls.mergePullRequest({ repo: FULL_NAME, number, actor: "alice" }).catch((err: unknown) => err)));
    const payouts = () =>
      stack.t.ctx.database.db
        .select()
        .from(chainTransactions)
        .where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, REPO.id), inArray(chainTransactions.issueNumber, issues)));
    // Killed once a payout is signed or sent: the merges' deliveries are processed side by side now (issue 29), so the
    // eight payouts tend to go out in one batch and be confirmed together, and the default moment (some confirmed
    // while others are in a batch) may never come.
    const inFlight = (rows: ChainTransaction[]) => rows.some((r) => r.status === "signed" || r.status === "sent") || rows.filter((r) => r.status === "confirmed").length >= MERGES / 2;
    const atKill = await killMidFlight(server, payouts, MERGES, Math.max(5_000, setupMs), inFlight);
    const merged = await merging;
    expect(atKill.length < MERGES || atKill.some((r) => r.status !== "confirmed")).toBe(true);

    // The new process finishes what was accepted; deliveries that never got an answer are redelivered (GitHub does
    // not retry by itself), and so, as a careful operator might, is every other delivery of the merges.
    server = await stack.spawn();
    const deliveryIds = merged.flatMap((m) => (m instanceof Error ? [] : (m as { deliveryIds: string[] }).deliveryIds));
    for (const id of deliveryIds) await stack.github.controls.redeliver(id);
    // A delivery the dead process was handling stays leased to it for WEBHOOK_LEASE_MS; only then does the new
    // process take it up (a redelivery of the same id is the same stored delivery).
    const deadline = recoveryDeadline() + WEBHOOK_LEASE_MS;
    await eventually(async () => {
      const rows = await payouts();
      return rows.length === MERGES && rows.every((r) => r.status === "confirmed") ? true : undefined;
    }, deadline - Date.now(), "every merged fix paid");

    const rows = await payouts();
    expect(countBy(rows)).toEqual({ confirmed: MERGES });
    expect(rows.map((r) => r.idempotencyKey).sort()).toEqual([...keys].sort());
    expect(rows.map((r) => r.nonce!).sort((a, b) => a - b)).toEqual(consecutive(firstNonce, MERGES));
    const sent = await sentOnChain(client, operator, firstBlock);
    expect(sent.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(consecutive(firstNonce, MERGES));
    const logs = await client.getLogs({ address: stack.t.ctx.chain.config.contracts.rewards, fromBlock: firstBlock });
    const paid = parseEventLogs({ abi: RepoRewardsAbi, logs, eventName: "BountyPaid" });
    expect(paid.map((e) => Number(e.args.issueNumber)).sort((a, b) => a - b)).toEqual([...issues].sort((a, b) => a - b));
    for (const event of paid) expect(event.args.contributor).toBe(bob.wallet);
    const total = consecutive(0, MERGES).reduce((sum, i) => sum + parseEther(amount(i)), 0n);
    expect((await client.getBalance({ address: bob.wallet })) - bobBefore).toBe(total);
  }, 600_000);

  test("releases of bounties awaiting the pool manager's decision: each paid exactly once to the contributor chosen, retries send nothing more", async () => {
    const RELEASES = 8;
    const amount = (i: number) => `1.${String(i + 70).padStart(2, "0")}`;
    const client = stack.t.ctx.chain.client;
    const issues = await bountiedIssues(RELEASES, "Closed without a pull request", amount);
    // Closed as completed with no pull request paying them (no server runs: the state is set as the webhook would).
    for (const number of issues) {
      await stack.github.controls.closeIssue({ repo: FULL_NAME, number, reason: "completed", actor: "alice" }).catch(() => undefined);
      expect(await markAwaiting(stack.t.ctx, { repoId: REPO.id, issueNumber: number, reason: "closed_completed" })).toBe(true);
      expect(await isAwaiting(stack.t.ctx, REPO.id, number)).toBe(true);
    }
    const keys = issues.map((n) => `crash-release-${n}-${Date.now()}`);
    const release = (i: number) =>
      stack.post(server!, alice, `/api/blockchain/distribute-bounty/${REPO.id}/${issues[i]}`, { contributorLogin: "bob", githubRepoFullName: FULL_NAME }, keys[i]);
    const payouts = () =>
      stack.t.ctx.database.db
        .select()
        .from(chainTransactions)
        .where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, REPO.id), inArray(chainTransactions.issueNumber, issues)));
    const since = {
      firstNonce: await client.getTransactionCount({ address: stack.t.ctx.chain.operator.address }),
      firstBlock: (await client.getBlockNumber({ cacheTime: 0 })) + 1n,
      balanceBefore: await client.getBalance({ address: bob.wallet }),
    };

    server = await stack.spawn();
    const answers = consecutive(0, RELEASES).map((i) => answerOf(release(i)));
    const atKill = await killMidFlight(server, payouts, RELEASES, Math.max(5_000, setupMs));
    await Promise.all(answers);
    expect(atKill.length < RELEASES || atKill.some((r) => r.status !== "confirmed")).toBe(true);

    // The pool manager's browser retries each release with its key until it is confirmed.
    server = await stack.spawn();
    const deadline = recoveryDeadline();
    await Promise.all(consecutive(0, RELEASES).map((i) => retryUntilConfirmed(`release ${i}`, () => release(i), deadline)));
    await expectPaidOnce(issues, bob.wallet, consecutive(0, RELEASES).map((i) => parseEther(amount(i))), since);
    // A second release with a new key is refused: paid once.
    const again = await stack.post(server, alice, `/api/blockchain/distribute-bounty/${REPO.id}/${issues[0]}`, { contributorLogin: "bob", githubRepoFullName: FULL_NAME }, `crash-release-again-${Date.now()}`);
    expect(again.status).toBe(409);
  }, 600_000);

  test("bounties held for an author who then registered: each paid exactly once to their new wallet, across a SIGKILL", async () => {
    const HELD = 6;
    const amount = (i: number) => `1.${String(i + 30).padStart(2, "0")}`;
    const client = stack.t.ctx.chain.client;
    const issues = await bountiedIssues(HELD, "Fixed by a newcomer", amount);
    // frank's merged fixes were held for him (he had no wallet); he has signed in, not registered yet.
    const frankId = ((await (await fetch(`${stack.github.apiUrl}/users/frank`)).json()) as { id: number }).id;
    for (const [i, issueNumber] of issues.entries()) {
      await holdPayout(stack.t.ctx, { repoId: REPO.id, issueNumber, author: { id: frankId, login: "frank" }, pullNumber: 900 + i });
    }
    const frank = await signInThroughGitHub(stack.t, "frank");
    const payouts = () =>
      stack.t.ctx.database.db
        .select()
        .from(chainTransactions)
        .where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, REPO.id), inArray(chainTransactions.issueNumber, issues)));
    const since = {
      firstNonce: await client.getTransactionCount({ address: stack.t.ctx.chain.operator.address }),
      firstBlock: (await client.getBlockNumber({ cacheTime: 0 })) + 1n,
      balanceBefore: 0n,
    };

    // He registers: the server creates his wallet and releases what was held; it dies while the payouts are on their way.
    // The chain mines nothing meanwhile: six payouts can otherwise all confirm between two looks at them on an idle
    // machine (they did), and the kill would land after the flow instead of in it.
    server = await stack.spawn();
    await stack.chain.rpc("evm_setAutomine", [false]);
    let atKill: ChainTransaction[];
    try {
      const registering = answerOf(stack.post(server, frank, "/api/auth/register", { role: "contributor", email: "frank@example.com" }));
      atKill = await killMidFlight(server, payouts, HELD, Math.max(5_000, setupMs), (rows) => rows.some((r) => r.status === "sent"));
      await registering;
    } finally {
      await stack.chain.rpc("evm_setAutomine", [true]);
    }
    await stack.chain.rpc("evm_mine");
    expect(atKill.length).toBeGreaterThan(0);
    expect(atKill.some((r) => r.status !== "confirmed")).toBe(true);

    // The site retries a registration that got no answer (409 once it went through); the webhook worker's sweep
    // releases whatever the dead process had not.
    server = await stack.spawn();
    const deadline = recoveryDeadline();
    await eventually(async () => {
      const res = await stack.post(server!, frank, "/api/auth/register", { role: "contributor", email: "frank@example.com" });
      return res.status === 200 || res.status === 409 ? true : undefined;
    }, deadline - Date.now(), "registered");
    const [wallet] = await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, frank.user.id));
    const frankWallet = wallet!.address as Address;
    await eventually(async () => {
      const rows = await payouts();
      return rows.length === HELD && rows.every((r) => r.status === "confirmed") ? true : undefined;
    }, deadline - Date.now(), "every held bounty paid");
    // A second registration pays nothing more.
    expect((await stack.post(server, frank, "/api/auth/register", { role: "contributor", email: "frank@example.com" })).status).toBe(409);
    await expectPaidOnce(issues, frankWallet, consecutive(0, HELD).map((i) => parseEther(amount(i))), since);
  }, 600_000);
});
