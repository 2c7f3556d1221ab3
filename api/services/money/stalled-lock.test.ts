/**
 * Money locks that cannot lapse unnoticed (issue 37, item 4), across two server processes on one libSQL file.
 * Process A reaches the chain through a proxy that holds one of its reads back, while it holds a money lock
 * (pool-guard.ts); process B reaches the chain directly and asks for the same lock meanwhile.
 *
 *   - Stalled past the lock's lease: A keeps renewing it, B waits and gets 503 `pool_busy`, then A's request goes
 *     through. Before (a 5 s lock row never renewed): B took the lapsed lock, both passed the same check, and the
 *     chain refused the second transaction.
 *   - Stalled past the holder's bound (MONEY_LOCK_MS x 6): A's lease lapses and B takes the lock and is served;
 *     when A's read comes back, its outbox row is refused by the fence (the lock is no longer A's) and A answers
 *     `pool_busy`. Without the fence, A wrote a second row on a check B had made stale.
 *
 * Both for a pool (two allocations the pool covers only one of) and for a bounty (a Cancel racing a Release).
 * Either way: exactly one outbox row, no reverted transaction on the chain. Every time derives from MONEY_LOCK_MS.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, gte, inArray } from "drizzle-orm";
import { parseEther, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { chainTransactions, workerLeases, type ChainTransaction } from "../../../db/schema/index.ts";
import { fixtureRepo } from "../../../testing/dev-tools.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { settleInProcess } from "../../../testing/crash.ts";
import { freePort, startProcessStack, type ProcessStack, type ServerProcess } from "../../../testing/process-stack.ts";
import { callsFunction, startRpcFaultProxy, type RpcFaultProxy } from "../../../testing/rpc-fault-proxy.ts";
import { eventually } from "../../../testing/stack.ts";
import { SIGNER_LEASE_MS } from "../../chain/outbox.ts";
import { submitAllocation } from "./bounties.ts";
import { moneyLockTimes } from "./pool-guard.ts";

/** The lock's lease in both server processes; every wait and bound below is derived from it. */
const LOCK_MS = 1_500;
const times = moneyLockTimes(LOCK_MS);
/** A's chain calls never time out while held (the hold is what is tested, not the RPC timeout). */
const A_RPC_TIMEOUT_MS = 20 * times.maxHoldMs;
/** How long a row may take to be signed, sent and confirmed on a busy machine (a signer's lease may have to lapse). */
const CONFIRM_MS = 2 * SIGNER_LEASE_MS + 30_000;

const RENEWED_POOL = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const LOST_POOL = fixtureRepo("issuepool-demo/contract-audit-tools")!;
const BOUNTIES = fixtureRepo("issuepool-demo/roxn-sdk")!;
const RENEWED_BOUNTY = 7_001;
const LOST_BOUNTY = 7_002;
const fullName = (repo: typeof RENEWED_POOL) => `${repo.owner}/${repo.name}`;
/** Each pool holds 4.975 XDC (5 funded, less the fee): it covers one of two 3 XDC bounties, not both. */
const POOL_FUNDING = "5";
const ASKED = "3";

let stack: ProcessStack;
let alice: TestSession & { wallet: `0x${string}` };
let bob: TestSession & { wallet: `0x${string}` };
let proxy: RpcFaultProxy | undefined;
/** A: its chain calls go through the proxy. B: straight to the node. */
let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  stack = await startProcessStack();
  const { t } = stack;
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  for (const repo of [RENEWED_POOL, LOST_POOL, BOUNTIES]) await stack.registerRepository(fullName(repo), repo.id);
  await stack.chain.fund(alice.wallet, { xdc: "100" });
  for (const repo of [RENEWED_POOL, LOST_POOL, BOUNTIES]) {
    const res = await call(t, `/api/blockchain/repository/${repo.id}/fund`, {
      as: alice,
      body: { amountXdc: POOL_FUNDING, repositoryFullName: fullName(repo) },
      headers: { "Idempotency-Key": `stalled-lock-fund-${repo.id}` },
    });
    expect(res.status).toBe(200);
  }
  await settleInProcess(stack);
  // The bounties a Cancel and a Release race for.
  for (const issueNumber of [RENEWED_BOUNTY, LOST_BOUNTY]) {
    await submitAllocation(t.ctx, {
      userId: alice.user.id,
      idempotencyKey: `stalled-lock-bounty-${issueNumber}`,
      request: { issueNumber },
      repoId: BOUNTIES.id,
      issueNumber,
      currency: "XDC",
      amount: "1",
      issue: { title: `Raced for ${issueNumber}`, html_url: `${stack.github.webUrl}/${fullName(BOUNTIES)}/issues/${issueNumber}` },
    });
  }
  await settleInProcess(stack);
  // From here on the server processes do the work; the in-process app only reads.
  proxy = startRpcFaultProxy(stack.env.CHAIN_RPC_URL!);
  const locks = { MONEY_LOCK_MS: String(LOCK_MS) };
  // One after the other: each finds its own "listening" line in the log they share.
  a = await stack.spawn({ ...locks, PORT: String(await freePort()), CHAIN_RPC_URL: proxy.url, CHAIN_RPC_TIMEOUT_MS: String(A_RPC_TIMEOUT_MS) });
  b = await stack.spawn({ ...locks, PORT: String(await freePort()) });
  expect(a.url).not.toBe(b.url);
}, 600_000);

afterAll(async () => {
  proxy?.release();
  try {
    await stack?.stop();
  } finally {
    await proxy?.stop();
  }
});

const db = () => stack.t.ctx.database.db;
const leaseRow = async (name: string) => (await db().select().from(workerLeases).where(eq(workerLeases.name, name)))[0];
const openIssue = async (repo: typeof RENEWED_POOL, title: string) =>
  Number((await stack.github.controls.openIssue({ repo: fullName(repo), title, author: "alice" })).issue.number);
const allocate = (server: ServerProcess, repo: typeof RENEWED_POOL, issue: number, key: string) =>
  stack.post(server, alice, `/api/blockchain/allocate-bounty/${repo.id}/${issue}`, { githubRepoFullName: fullName(repo), bountyAmount: ASKED, isRoxn: false }, key);
const cancel = (server: ServerProcess, issue: number, key: string) =>
  stack.post(server, alice, `/api/blockchain/cancel-bounty/${BOUNTIES.id}/${issue}`, { githubRepoFullName: fullName(BOUNTIES) }, key);
const release = (server: ServerProcess, issue: number, key: string) =>
  stack.post(server, alice, `/api/blockchain/distribute-bounty/${BOUNTIES.id}/${issue}`, { contributorAddress: bob.wallet, githubRepoFullName: fullName(BOUNTIES) }, key);

/**
 * Sends A's request with `held` calls held back at the proxy, and waits until A holds `lock` and one of its calls
 * is held: A's request is then stalled under the lock. Returns the request's answer (later) and the lock row then.
 */
async function stallUnderLock(lock: string, held: Parameters<RpcFaultProxy["hold"]>[0], request: () => Promise<Response>) {
  proxy!.hold(held);
  let answered: Response | undefined;
  const answer = request().then((res) => (answered = res));
  const first = await eventually(
    async () => {
      if (answered) throw new Error(`A answered (${answered.status}: ${await answered.clone().text()}) before it stalled under the lock`);
      const row = await leaseRow(lock);
      return row && proxy!.held > 0 ? row : undefined;
    },
    30_000 + 10 * times.leaseMs,
    `A holding ${lock} with a chain read held back`,
  );
  return { answer, first };
}

/** Waits until the lock row has been renewed by its first owner past its first lease: the holder stalled past the lock time and still holds it. */
async function renewedPastLease(lock: string, first: { owner: string; until: Date }) {
  return eventually(
    async () => {
      const row = await leaseRow(lock);
      if (row?.owner !== first.owner) throw new Error(`the stalled holder lost ${lock} (now ${row?.owner ?? "free"})`);
      return Date.now() > first.until.getTime() + times.leaseMs && row.until > first.until ? row : undefined;
    },
    10 * times.leaseMs,
    `${lock} renewed past its first lease`,
  );
}

/** Waits until the stalled holder's lease lapsed (past the holder's bound, nobody renews it). */
async function lapsed(lock: string, first: { owner: string }) {
  await eventually(
    async () => {
      const row = await leaseRow(lock);
      if (row && row.owner !== first.owner) throw new Error(`${lock} taken by ${row.owner} before the test asked for it`);
      return !row || row.until.getTime() < Date.now() ? true : undefined;
    },
    times.maxHoldMs + 10 * times.leaseMs,
    `${lock} lapsed past the holder's bound`,
  );
}

async function expectPoolBusy(res: Response) {
  expect(res.status, await res.clone().text()).toBe(503);
  expect(res.headers.get("Retry-After")).toBe("2");
  expect(await res.json()).toMatchObject({ code: "pool_busy", error: "Pool busy" });
}

/** The outbox rows of these kinds for the repository (and issue) written since `since`, once each has settled. */
async function settledRows(kinds: string[], repoId: number, since: Date, issues?: number[]): Promise<ChainTransaction[]> {
  const rows = () =>
    db()
      .select()
      .from(chainTransactions)
      .where(and(inArray(chainTransactions.kind, kinds), eq(chainTransactions.githubRepoId, repoId), gte(chainTransactions.createdAt, since), issues ? inArray(chainTransactions.issueNumber, issues) : undefined));
  return eventually(async () => {
    const now = await rows();
    return now.every((r) => ["confirmed", "reverted", "failed"].includes(r.status)) ? now : undefined;
  }, CONFIRM_MS, `the ${kinds.join("/")} rows settled`);
}

/** Transactions the chain refused (reverted) in the blocks from `fromBlock` on. */
async function revertedSince(fromBlock: bigint): Promise<Hex[]> {
  const client = stack.t.ctx.chain.client;
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const reverted: Hex[] = [];
  for (let n = fromBlock; n <= head; n++) {
    const block = await client.getBlock({ blockNumber: n });
    for (const hash of block.transactions) {
      if ((await client.getTransactionReceipt({ hash })).status === "reverted") reverted.push(hash);
    }
  }
  return reverted;
}

const scenarioStart = async () => ({ since: new Date(Date.now() - 1), fromBlock: (await stack.t.ctx.chain.client.getBlockNumber({ cacheTime: 0 })) + 1n });
const onChainBounty = (issue: number) =>
  stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(BOUNTIES.id), BigInt(issue)] });

describe("a pool's lock, held by a process whose chain read is held back", () => {
  test("stalled past the lock's lease: A keeps the lock (renewed), B's allocation waits and gets pool_busy, then A's is sent; one row, nothing reverted", async () => {
    const lock = `pool:${RENEWED_POOL.id}`;
    const [issueA, issueB] = [await openIssue(RENEWED_POOL, "Stalled holder"), await openIssue(RENEWED_POOL, "Other process")];
    const { since, fromBlock } = await scenarioStart();
    try {
      // The allocation reads the bounty at its snapshot's block (getBounty) and awaits it under the pool's lock.
      const { answer, first } = await stallUnderLock(lock, callsFunction(RepoRewardsAbi, "getBounty"), () => allocate(a, RENEWED_POOL, issueA, "stalled-pool-renewed-a"));
      await renewedPastLease(lock, first);
      const asked = Date.now();
      const other = await allocate(b, RENEWED_POOL, issueB, "stalled-pool-renewed-b");
      await expectPoolBusy(other);
      expect(Date.now() - asked).toBeGreaterThanOrEqual(times.waitMs);
      // A was still stalled, and still held the lock, all the while.
      expect(proxy!.held).toBeGreaterThan(0);
      expect((await leaseRow(lock))?.owner).toBe(first.owner);
      proxy!.release();
      const mine = await answer;
      expect(mine.status, await mine.clone().text()).toBe(200);
    } finally {
      proxy!.release();
    }
    const rows = await settledRows(["allocate_bounty", "withdraw_pool"], RENEWED_POOL.id, since);
    expect(rows.map((r) => ({ issue: r.issueNumber, status: r.status }))).toEqual([{ issue: issueA, status: "confirmed" }]);
    expect(await revertedSince(fromBlock)).toEqual([]);
  }, 600_000);

  test("stalled past the holder's bound: A's lease lapses, B's allocation takes the lock and is sent, A's fenced row is refused (pool_busy); one row, nothing reverted", async () => {
    const lock = `pool:${LOST_POOL.id}`;
    const [issueA, issueB] = [await openIssue(LOST_POOL, "Stalled holder"), await openIssue(LOST_POOL, "Other process")];
    const { since, fromBlock } = await scenarioStart();
    let mine: Response;
    try {
      const { answer, first } = await stallUnderLock(lock, callsFunction(RepoRewardsAbi, "getBounty"), () => allocate(a, LOST_POOL, issueA, "stalled-pool-lost-a"));
      await lapsed(lock, first);
      expect(proxy!.held).toBeGreaterThan(0);
      const other = await allocate(b, LOST_POOL, issueB, "stalled-pool-lost-b");
      expect(other.status, await other.clone().text()).toBe(200);
      // A's read comes back: its check passes on what it read before B's row existed; its row must not be written.
      proxy!.release();
      mine = await answer;
    } finally {
      proxy!.release();
    }
    await expectPoolBusy(mine);
    const rows = await settledRows(["allocate_bounty", "withdraw_pool"], LOST_POOL.id, since);
    expect(rows.map((r) => ({ issue: r.issueNumber, status: r.status }))).toEqual([{ issue: issueB, status: "confirmed" }]);
    expect(await revertedSince(fromBlock)).toEqual([]);
    // What A's retry is told now: the pool no longer covers it (the platform's refusal, nothing sent).
    const retried = await allocate(a, LOST_POOL, issueA, "stalled-pool-lost-a-again");
    expect(retried.status, await retried.clone().text()).toBe(400);
    expect((await retried.json()).message).toMatch(/^Amount cannot exceed available XDC pool balance/);
  }, 600_000);
});

describe("a bounty's lock: a Cancel held back by its chain read, racing a Release", () => {
  test("stalled past the lock's lease: the Cancel keeps the lock (renewed), the Release waits and gets pool_busy, then the Cancel is sent; one row, nothing reverted", async () => {
    const lock = `bounty:${BOUNTIES.id}:${RENEWED_BOUNTY}`;
    const { since, fromBlock } = await scenarioStart();
    try {
      // The Cancel reads the contract's claimants under the bounty's lock, after its decision.
      const { answer, first } = await stallUnderLock(lock, callsFunction(RepoRewardsAbi, "claimants"), () => cancel(a, RENEWED_BOUNTY, "stalled-bounty-renewed-cancel"));
      await renewedPastLease(lock, first);
      const asked = Date.now();
      const other = await release(b, RENEWED_BOUNTY, "stalled-bounty-renewed-release");
      await expectPoolBusy(other);
      expect(Date.now() - asked).toBeGreaterThanOrEqual(times.waitMs);
      expect(proxy!.held).toBeGreaterThan(0);
      expect((await leaseRow(lock))?.owner).toBe(first.owner);
      proxy!.release();
      const mine = await answer;
      expect(mine.status, await mine.clone().text()).toBe(200);
    } finally {
      proxy!.release();
    }
    const rows = await settledRows(["pay_bounty", "cancel_bounty"], BOUNTIES.id, since, [RENEWED_BOUNTY]);
    expect(rows.map((r) => ({ kind: r.kind, status: r.status }))).toEqual([{ kind: "cancel_bounty", status: "confirmed" }]);
    expect(await revertedSince(fromBlock)).toEqual([]);
    expect((await onChainBounty(RENEWED_BOUNTY)).status).toBe(3); // cancelled
  }, 600_000);

  test("stalled past the holder's bound: the Cancel's lease lapses, the Release takes the lock and pays, the Cancel's fenced row is refused (pool_busy); one row, nothing reverted", async () => {
    const lock = `bounty:${BOUNTIES.id}:${LOST_BOUNTY}`;
    const { since, fromBlock } = await scenarioStart();
    const bobBefore = await stack.t.ctx.chain.client.getBalance({ address: bob.wallet });
    let mine: Response;
    try {
      const { answer, first } = await stallUnderLock(lock, callsFunction(RepoRewardsAbi, "claimants"), () => cancel(a, LOST_BOUNTY, "stalled-bounty-lost-cancel"));
      await lapsed(lock, first);
      expect(proxy!.held).toBeGreaterThan(0);
      const other = await release(b, LOST_BOUNTY, "stalled-bounty-lost-release");
      expect(other.status, await other.clone().text()).toBe(200);
      proxy!.release();
      mine = await answer;
    } finally {
      proxy!.release();
    }
    await expectPoolBusy(mine);
    const rows = await settledRows(["pay_bounty", "cancel_bounty"], BOUNTIES.id, since, [LOST_BOUNTY]);
    expect(rows.map((r) => ({ kind: r.kind, status: r.status }))).toEqual([{ kind: "pay_bounty", status: "confirmed" }]);
    expect(await revertedSince(fromBlock)).toEqual([]);
    expect((await onChainBounty(LOST_BOUNTY)).status).toBe(2); // paid
    expect((await stack.t.ctx.chain.client.getBalance({ address: bob.wallet })) - bobBefore).toBe(parseEther("1"));
  }, 600_000);
});
