/**
 * SIGKILL in the middle of split payouts (issue 29: "a split payout, paid exactly once after the kill"). Bounties
 * earned by co-authored pull requests whose release window is over are paid by the server's release pass; the
 * process is killed while the payouts are on their way; a new process on the same database and chain finishes
 * them. Checked on the chain: each split paid by exactly one transaction, each person exactly their share, the
 * operator's nonces without a gap or a repeat.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray, like } from "drizzle-orm";
import { parseEther, parseEventLogs, type Address } from "viem";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { chainTransactions, payoutSplitShares, repositories, users, wallets, type ChainTransaction } from "../../db/schema/index.ts";
import { fixtureRepo } from "../../testing/dev-tools.ts";
import { submitAllocation } from "../services/money/bounty-allocate.ts";
import { openSplit } from "../services/splits/open.ts";
import { releaseDueSplits } from "../services/splits/release.ts";
import { newCustodialWallet } from "../services/wallets/custodial.ts";
import { call, type TestSession } from "../../testing/auth.ts";
import { consecutive, countBy, killMidFlight, sentOnChain, settleInProcess } from "../../testing/crash.ts";
import { startProcessStack, type ProcessStack, type ServerProcess } from "../../testing/process-stack.ts";
import { eventually } from "../../testing/stack.ts";
import { SIGNER_LEASE_MS } from "./outbox.ts";

const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;
/** The release pass's own lease after a kill (api/server.ts: at least 10 s). */
const RELEASE_LEASE_MS = 10_000;

let stack: ProcessStack;
let server: ServerProcess | undefined;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let carol: TestSession & { wallet: Address };
let setupMs = 0;

beforeAll(async () => {
  const started = Date.now();
  stack = await startProcessStack();
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  carol = await stack.signUp("carol", "contributor");
  await stack.registerRepository(FULL_NAME, REPO.id);
  const installed = await stack.github.controls.install({ account: REPO.owner, repositories: "all", sender: "alice" });
  await stack.t.ctx.database.db.update(repositories).set({ installationId: (installed.installation as { id: number }).id }).where(eq(repositories.githubRepoId, REPO.id));
  await stack.chain.fund(alice.wallet, { xdc: "200" });
  const funded = await call(stack.t, `/api/blockchain/repository/${REPO.id}/fund`, {
    as: alice,
    body: { amountXdc: "100", repositoryFullName: FULL_NAME },
    headers: { "Idempotency-Key": "crash-splits-funding" },
  });
  expect(funded.status).toBe(200);
  await settleInProcess(stack);
  setupMs = Date.now() - started;
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await server?.kill();
  server = undefined;
});

describe("SIGKILL in the middle of split payouts", () => {
  test("each co-authored bounty paid exactly once, 50/50 to bob and carol, across a SIGKILL", async () => {
    const SPLITS = 5;
    const amount = (i: number) => `2.${String(i + 10).padStart(2, "0")}`;
    const client = stack.t.ctx.chain.client;
    const issues: number[] = [];
    for (let i = 0; i < SPLITS; i++) issues.push(Number((await stack.github.controls.openIssue({ repo: FULL_NAME, title: `Co-authored ${i}`, author: "alice" })).issue.number));
    for (const [i, issueNumber] of issues.entries()) {
      await submitAllocation(stack.t.ctx, {
        userId: alice.user.id,
        idempotencyKey: `crash-splits-allocate-${issueNumber}`,
        request: { issueNumber },
        repoId: REPO.id,
        issueNumber,
        currency: "XDC",
        amount: amount(i),
        issue: { title: `Co-authored ${i}`, html_url: `${stack.github.webUrl}/${FULL_NAME}/issues/${issueNumber}` },
      });
    }
    await settleInProcess(stack);
    await stack.t.ctx.indexer.catchUp();
    // Merged pull requests by bob co-authored by carol, whose release windows are over (opened a window ago).
    const people = [
      { id: bob.user.githubId, login: "bob" },
      { id: carol.user.githubId, login: "carol" },
    ];
    for (const [i, issueNumber] of issues.entries()) {
      await openSplit(stack.t.ctx, { repository: { githubRepoId: REPO.id }, issueNumber, pullNumber: 700 + i, people, unresolved: [], now: Date.now() - stack.t.ctx.env.SPLIT_RELEASE_WINDOW_MS - 1_000 });
    }
    const payouts = () =>
      stack.t.ctx.database.db
        .select()
        .from(chainTransactions)
        .where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, REPO.id), inArray(chainTransactions.issueNumber, issues)));
    const since = {
      firstNonce: await client.getTransactionCount({ address: stack.t.ctx.chain.operator.address }),
      firstBlock: (await client.getBlockNumber({ cacheTime: 0 })) + 1n,
      bob: await client.getBalance({ address: bob.wallet }),
      carol: await client.getBalance({ address: carol.wallet }),
    };

    // The server's release pass pays them; it dies while they are on their way (the chain mines nothing meanwhile,
    // so the kill lands in the flow, not after it).
    server = await stack.spawn({ SPLIT_RELEASE_INTERVAL_MS: "100" });
    await stack.chain.rpc("evm_setAutomine", [false]);
    let atKill: ChainTransaction[];
    try {
      atKill = await killMidFlight(server, payouts, SPLITS, Math.max(5_000, setupMs), (rows) => rows.some((r) => r.status === "sent"));
    } finally {
      await stack.chain.rpc("evm_setAutomine", [true]);
    }
    await stack.chain.rpc("evm_mine");
    expect(atKill.length).toBeGreaterThan(0);
    expect(atKill.some((r) => r.status !== "confirmed")).toBe(true);

    // A new process finishes: after the dead one's signer and release leases, within three setups' time.
    server = await stack.spawn({ SPLIT_RELEASE_INTERVAL_MS: "100" });
    const deadline = Date.now() + Math.max(SIGNER_LEASE_MS, RELEASE_LEASE_MS) + 3 * setupMs + 10_000;
    await eventually(async () => {
      const rows = await payouts();
      return rows.length === SPLITS && rows.every((r) => r.status === "confirmed") ? true : undefined;
    }, deadline - Date.now(), "every split paid");

    const rows = await payouts();
    expect(countBy(rows)).toEqual({ confirmed: SPLITS });
    expect(rows.map((r) => r.nonce!).sort((a, b) => a - b)).toEqual(consecutive(since.firstNonce, SPLITS));
    const sent = await sentOnChain(client, stack.t.ctx.chain.operator.address, since.firstBlock);
    expect(sent.map((x) => x.nonce).sort((a, b) => a - b)).toEqual(consecutive(since.firstNonce, SPLITS));
    const logs = await client.getLogs({ address: stack.t.ctx.chain.config.contracts.rewards, fromBlock: since.firstBlock });
    const shares = parseEventLogs({ abi: RepoRewardsAbi, logs, eventName: "BountySharePaid" });
    expect(shares).toHaveLength(2 * SPLITS);
    const total = issues.reduce((sum, _, i) => sum + parseEther(amount(i)), 0n);
    // Each bounty halves exactly (an even number of wei): bob and carol each got half of everything, once.
    expect((await client.getBalance({ address: bob.wallet })) - since.bob).toBe(total / 2n);
    expect((await client.getBalance({ address: carol.wallet })) - since.carol).toBe(total / 2n);
    const paid = parseEventLogs({ abi: RepoRewardsAbi, logs, eventName: "BountyPaid" });
    expect(paid.map((e) => Number(e.args.issueNumber)).sort((a, b) => a - b)).toEqual([...issues].sort((a, b) => a - b));
  }, 600_000);
  test("shares held for a co-author without a wallet are each paid to her exactly once when she registers, across a SIGKILL", async () => {
    const SPLITS = 3;
    const amount = (i: number) => `3.${String(i + 10).padStart(2, "0")}`;
    const client = stack.t.ctx.chain.client;
    const db = stack.t.ctx.database.db;
    // erin (GitHub id 1005 in the emulator's fixture) has not signed up yet.
    const erin = { id: 1005, login: "erin" };
    const issues: number[] = [];
    for (let i = 0; i < SPLITS; i++) issues.push(Number((await stack.github.controls.openIssue({ repo: FULL_NAME, title: `Held share ${i}`, author: "alice" })).issue.number));
    for (const [i, issueNumber] of issues.entries()) {
      await submitAllocation(stack.t.ctx, {
        userId: alice.user.id,
        idempotencyKey: `crash-held-allocate-${issueNumber}`,
        request: { issueNumber },
        repoId: REPO.id,
        issueNumber,
        currency: "XDC",
        amount: amount(i),
        issue: { title: `Held share ${i}`, html_url: `${stack.github.webUrl}/${FULL_NAME}/issues/${issueNumber}` },
      });
    }
    await settleInProcess(stack);
    await stack.t.ctx.indexer.catchUp();
    for (const [i, issueNumber] of issues.entries()) {
      const people = [{ id: bob.user.githubId, login: "bob" }, erin];
      await openSplit(stack.t.ctx, { repository: { githubRepoId: REPO.id }, issueNumber, pullNumber: 800 + i, people, unresolved: [], now: Date.now() - stack.t.ctx.env.SPLIT_RELEASE_WINDOW_MS - 1_000 });
    }
    // Released in this process (once the earlier test's servers' release lease is over): bob paid, erin's halves
    // escrowed for her GitHub id.
    const escrowedShares = () => db.select().from(payoutSplitShares).where(and(eq(payoutSplitShares.githubUserId, erin.id), inArray(payoutSplitShares.issueNumber, issues)));
    await eventually(async () => {
      await releaseDueSplits(stack.t.ctx, { owner: "crash-held-test", leaseMs: 1_000 });
      return (await escrowedShares()).every((s) => s.status === "escrowed") ? true : undefined;
    }, RELEASE_LEASE_MS + 3 * setupMs + 10_000, "held shares escrowed");
    await settleInProcess(stack);
    const escrowed = await escrowedShares();
    const owedToErin = escrowed.reduce((sum, s) => sum + s.amount!, 0n);
    expect(owedToErin).toBe(issues.reduce((sum, _, i) => sum + parseEther(amount(i)) / 2n, 0n));

    // She registers: her user and wallet are written (what registration commits first); the process that would pay
    // her at once is the server's, which dies while the payments are on their way.
    const [user] = await db.insert(users).values({ githubId: erin.id, username: erin.login, email: "erin@example.com", role: "contributor", isProfileComplete: true }).returning();
    const wallet = await newCustodialWallet(stack.t.ctx, user!.id);
    await db.insert(wallets).values(wallet);
    const erinAddress = wallet.address as Address;
    const payments = () => db.select().from(chainTransactions).where(and(eq(chainTransactions.kind, "pay_tip"), like(chainTransactions.idempotencyKey, `split-share:${REPO.id}:%:${erin.id}%`)));
    const since = {
      firstNonce: await client.getTransactionCount({ address: stack.t.ctx.chain.operator.address }),
      firstBlock: (await client.getBlockNumber({ cacheTime: 0 })) + 1n,
    };
    server = await stack.spawn({});
    await stack.chain.rpc("evm_setAutomine", [false]);
    let atKill: ChainTransaction[];
    try {
      atKill = await killMidFlight(server, payments, SPLITS, Math.max(5_000, setupMs), (rows) => rows.some((r) => r.status === "sent"));
    } finally {
      await stack.chain.rpc("evm_setAutomine", [true]);
    }
    await stack.chain.rpc("evm_mine");
    expect(atKill.length).toBeGreaterThan(0);
    expect(atKill.some((r) => r.status !== "confirmed")).toBe(true);

    // A new process finishes (its webhook worker's pass pays what registration left), within three setups' time.
    server = await stack.spawn({});
    const deadline = Date.now() + SIGNER_LEASE_MS + 3 * setupMs + 10_000;
    await eventually(async () => {
      const rows = await payments();
      return rows.length === SPLITS && rows.every((r) => r.status === "confirmed") ? true : undefined;
    }, deadline - Date.now(), "every held share paid");
    await server.kill();
    server = undefined;

    expect(countBy(await payments())).toEqual({ confirmed: SPLITS });
    const sent = await sentOnChain(client, stack.t.ctx.chain.operator.address, since.firstBlock);
    expect(sent.map((x) => x.nonce).sort((a, b) => a - b)).toEqual(consecutive(since.firstNonce, sent.length));
    const logs = await client.getLogs({ address: stack.t.ctx.chain.config.contracts.rewards, fromBlock: since.firstBlock });
    const tipPaid = parseEventLogs({ abi: RepoRewardsAbi, logs, eventName: "TipPaid" });
    // Each held share once, to her wallet, and nothing else to her.
    expect(tipPaid).toHaveLength(SPLITS);
    expect(new Set(tipPaid.map((e) => e.args.tipId)).size).toBe(SPLITS);
    expect(tipPaid.every((e) => e.args.recipient.toLowerCase() === erinAddress.toLowerCase())).toBe(true);
    expect(await client.getBalance({ address: erinAddress })).toBe(owedToErin);
    const shares = await db.select().from(payoutSplitShares).where(and(eq(payoutSplitShares.githubUserId, erin.id), inArray(payoutSplitShares.issueNumber, issues)));
    expect(shares.map((s) => s.status)).toEqual(issues.map(() => "paying"));
  }, 600_000);
});
