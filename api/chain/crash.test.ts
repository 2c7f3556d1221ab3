/**
 * Fault test (issue 4): the server is killed with SIGKILL while 50 payouts
 * are in flight, then started again on the same database file and the same
 * chain. Half of the clients retry with their Idempotency-Key, as the site
 * does; the others never come back. Afterwards every bounty is paid exactly
 * once, every payout is confirmed, and the operator's nonces run without a
 * gap or a repeat, on-chain as in the outbox.
 *
 * The server is a real OS process (testing/fault-server.ts), so the kill
 * is real: no shutdown hook runs and whatever was in memory is gone. The
 * test process sets the world up through the same code (in-process app on
 * the same database file), then only reads the database and the chain.
 *
 * Two smaller tests below pin down the recovery bugs this test found (see
 * docs/money-faults.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { encodeFunctionData, parseEther, parseEventLogs, type Address } from "viem";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { chainTransactions, wallets } from "../../db/schema/index.ts";
import { fixtureRepo } from "../../testing/dev-tools.ts";
import { submitAllocation } from "../services/money/bounty-allocate.ts";
import { call, createTestUser, type TestSession } from "../../testing/auth.ts";
import { startProcessStack, type ProcessStack, type ServerProcess } from "../../testing/process-stack.ts";
import { eventually } from "../../testing/stack.ts";
import { countBy, killMidFlight, retryUntilConfirmed, sentOnChain, settleInProcess, whyNotSettled } from "../../testing/crash.ts";
import { createChainAccess } from "./clients.ts";
import { Outbox, SIGNER_LEASE_MS } from "./outbox.ts";

const PAYOUTS = 50;
const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;
const FIRST_ISSUE = 1000;
/** Distinct amounts (1.00 ... 1.49 XDC), so a payment to the wrong person or of the wrong bounty shows. */
const bountyAmount = (i: number) => `1.${String(i).padStart(2, "0")}`;

let stack: ProcessStack;
let server: ServerProcess | undefined;
/**
 * How long setting up the 50 bounties took on this machine, now: the yardstick for the deadlines below,
 * so a busy machine (CI beside other work) gets proportionally more time instead of a fixed guess.
 */
let setupMs = 0;
let alice: TestSession & { wallet: Address };
const contributors: Address[] = [];

beforeAll(async () => {
  stack = await startProcessStack();
  const { t } = stack;
  // A pool manager (admin of the repository on GitHub) and a funded pool.
  alice = await stack.signUp("alice", "poolmanager");
  await stack.registerRepository(FULL_NAME, REPO.id);
  await stack.chain.fund(alice.wallet, { xdc: "200" });
  const funded = await call(t, `/api/blockchain/repository/${REPO.id}/fund`, {
    as: alice,
    body: { amountXdc: "100", repositoryFullName: FULL_NAME },
    headers: { "Idempotency-Key": "crash-test-fund-pool" },
  });
  expect(funded.status).toBe(200);
  await settleInProcess(stack);

  // 50 open bounties, each for a different registered contributor.
  const setupStarted = Date.now();
  for (let i = 0; i < PAYOUTS; i++) {
    const user = await createTestUser(t, { role: "contributor" });
    const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, user.id));
    contributors.push(wallet!.address as Address);
  }
  await Promise.all(
    Array.from({ length: PAYOUTS }, (_, i) =>
      submitAllocation(t.ctx, {
        userId: alice.user.id,
        idempotencyKey: `crash-test-allocate-${i}`,
        request: { i },
        repoId: REPO.id,
        issueNumber: FIRST_ISSUE + i,
        currency: "XDC",
        amount: bountyAmount(i),
        issue: { title: `Crash test issue ${i}`, html_url: `${stack.github.webUrl}/${FULL_NAME}/issues/${FIRST_ISSUE + i}` },
      }),
    ),
  );
  await settleInProcess(stack);
  setupMs = Date.now() - setupStarted;
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

const payoutKey = (i: number) => `crash-test-payout-${i}`;

/** One payout request to the server process, as the site sends it. */
function requestPayout(i: number): Promise<Response> {
  return stack.post(
    server!,
    alice,
    `/api/blockchain/distribute-bounty/${REPO.id}/${FIRST_ISSUE + i}`,
    { contributorAddress: `xdc${contributors[i]!.slice(2)}`, githubRepoFullName: FULL_NAME },
    payoutKey(i),
  );
}

type Outcome = { status: number; body?: { status?: string; transactionHash?: string; message?: string } } | { error: string };

const payoutRows = () =>
  stack.t.ctx.database.db
    .select()
    .from(chainTransactions)
    .where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, REPO.id)));

describe("SIGKILL while 50 payouts are in flight", () => {
  test("after a restart every bounty is paid exactly once, nothing is lost, no nonce is skipped or reused", async () => {
    try {
      await killAndRecover();
    } catch (err) {
      // The server's log leaves with the stack's directory: show its tail while it is there.
      const log = await Bun.file(stack.logFile).text().catch(() => "");
      console.error(`server log (tail):\n${log.split("\n").slice(-40).join("\n")}`);
      throw err;
    } finally {
      // Whatever happened, no server process outlives this test: a leftover one would keep sending from the
      // operator's key while the next tests count its nonces.
      await server?.kill();
      server = undefined;
    }
  }, 600_000);
});

async function killAndRecover(): Promise<void> {
  const { t } = stack;
  const client = t.ctx.chain.client;
  const operator = t.ctx.chain.operator.address;
  const firstNonce = await client.getTransactionCount({ address: operator });
  const firstBlock = (await client.getBlockNumber({ cacheTime: 0 })) + 1n;
  const balancesBefore = await Promise.all(contributors.map((address) => client.getBalance({ address })));
  const began = Date.now();

  // 1. Fifty payouts at once; kill the server while they are on their way
  //    (ideally with some signed or sent but not yet confirmed).
  server = await stack.spawn();
  const firstPid = server.pid;
  const inFlight: Promise<Outcome>[] = Array.from({ length: PAYOUTS }, (_, i) =>
    requestPayout(i).then(
      async (res) => ({ status: res.status, body: await res.json().catch(() => undefined) }),
      (err: unknown) => ({ error: String(err) }),
    ),
  );
  // The outbox signs a signer's waiting rows together and sends them in nonce order: kill in the middle of such a
  // batch, at the latest once the payouts had as long as the whole setup took.
  const atKill = await killMidFlight(server, payoutRows, PAYOUTS, Math.max(5_000, setupMs));
  const killedAt = Date.now();
  const answered = await Promise.all(inFlight);
  const byState = countBy(atKill);
  const dropped = answered.filter((a) => "error" in a).length;
  // The kill really happened mid-flight: the server had accepted payouts it had not finished, and clients lost their answer.
  expect(atKill.some((r) => r.status !== "confirmed")).toBe(true);
  expect(dropped).toBeGreaterThan(0);
  // Whatever was answered before the kill was an answer, not an error.
  for (const early of answered) if (!("error" in early)) expect([200, 503]).toContain(early.status);

  // 2. Same database file, same chain, same port: a new process. The first half of the clients retry with
  //    their Idempotency-Key, as the site does; the other half give up, and the server must finish their
  //    payouts on its own (a client retries only if its request never reached the database).
  server = await stack.spawn();
  expect(server.pid).not.toBe(firstPid);
  const restartedAt = Date.now();
  // The restarted process first waits out the dead one's signer lease, then sends at most 50 payouts: as
  // long as the 50 allocations of the setup took, three times over for the retries and receipts.
  const deadline = Date.now() + SIGNER_LEASE_MS + 3 * setupMs + 10_000;
  const recorded = new Set(atKill.map((r) => r.issueNumber));
  const retrying = Array.from({ length: PAYOUTS }, (_, i) => i).filter((i) => i < PAYOUTS / 2 || !recorded.has(FIRST_ISSUE + i));
  const retried = new Map(await Promise.all(retrying.map(async (i) => [i, await retryUntilConfirmed(`payout ${i}`, () => requestPayout(i), deadline)] as const)));
  let last: Awaited<ReturnType<typeof payoutRows>> = [];
  await eventually(
    async () => {
      last = await payoutRows();
      return last.length === PAYOUTS && last.every((r) => r.status === "confirmed");
    },
    Math.max(0, deadline - Date.now()),
    "every payout confirmed",
  ).catch(async () => {
    throw new Error(`not all payouts confirmed: ${JSON.stringify(countBy(last))}\n${await whyNotSettled(client, last)}`);
  });
  const doneAt = Date.now();
  await server.stop();
  console.log(
    `SIGKILL after ${killedAt - began} ms: ${atKill.length} payout rows ${JSON.stringify(byState)}, ${dropped}/${PAYOUTS} connections dropped; ` +
      `restarted in ${restartedAt - killedAt} ms; all confirmed ${doneAt - restartedAt} ms later ` +
      `(${retried.size} retried by their client, ${PAYOUTS - retried.size} finished by the worker alone)`,
  );

  // 3. The outbox: exactly one payout row per issue, all confirmed, each from one of our keys; nothing failed.
  const rows = await payoutRows();
  expect(rows).toHaveLength(PAYOUTS);
  expect(countBy(rows)).toEqual({ confirmed: PAYOUTS });
  expect(new Set(rows.map((r) => r.issueNumber)).size).toBe(PAYOUTS);
  expect(rows.map((r) => r.idempotencyKey).sort()).toEqual(Array.from({ length: PAYOUTS }, (_, i) => payoutKey(i)).sort());
  // Every answer (before and after the kill) names the row's transaction.
  for (let i = 0; i < PAYOUTS; i++) {
    const row = rows.find((r) => r.issueNumber === FIRST_ISSUE + i)!;
    if (retried.has(i)) expect(retried.get(i)!.transactionHash).toBe(row.txHash!);
    const early = answered[i]!;
    if (!("error" in early) && early.body?.transactionHash) expect(early.body.transactionHash).toBe(row.txHash!);
  }
  const unsettled = await t.ctx.database.db
    .select({ id: chainTransactions.id })
    .from(chainTransactions)
    .where(inArray(chainTransactions.status, ["queued", "signed", "sent", "failed", "reverted"]));
  expect(unsettled).toHaveLength(0);

  // 4. The chain: the operator sent exactly these 50 transactions, nonces firstNonce..firstNonce+49, once each.
  const lastNonce = firstNonce + PAYOUTS - 1;
  expect(await client.getTransactionCount({ address: operator })).toBe(lastNonce + 1);
  expect(rows.map((r) => r.nonce!).sort((a, b) => a - b)).toEqual(Array.from({ length: PAYOUTS }, (_, i) => firstNonce + i));
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const sent = await sentOnChain(client, operator, firstBlock);
  expect(sent.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(Array.from({ length: PAYOUTS }, (_, i) => firstNonce + i));
  // Each mined transaction is the one the outbox signed and stored before broadcasting (never signed a second time).
  for (const { nonce, hash } of sent) expect(rows.find((r) => r.nonce === nonce)!.txHash).toBe(hash);

  // 5. Each bounty was paid once, to its contributor, who received exactly its amount.
  const logs = await client.getLogs({ address: t.ctx.chain.config.contracts.rewards, fromBlock: firstBlock, toBlock: latest });
  const paidEvents = parseEventLogs({ abi: RepoRewardsAbi, logs, eventName: "BountyPaid" });
  expect(paidEvents).toHaveLength(PAYOUTS);
  expect(new Set(paidEvents.map((e) => e.args.issueNumber)).size).toBe(PAYOUTS);
  for (let i = 0; i < PAYOUTS; i++) {
    const [, amount, status, recipient] = await client.readContract({
      address: t.ctx.chain.config.contracts.rewards,
      abi: RepoRewardsAbi,
      functionName: "getBounty",
      args: [BigInt(REPO.id), BigInt(FIRST_ISSUE + i)],
    });
    expect(status).toBe(2); // Paid
    expect(recipient).toBe(contributors[i]!);
    expect(amount).toBe(parseEther(bountyAmount(i)));
    expect((await client.getBalance({ address: contributors[i]! })) - balancesBefore[i]!).toBe(parseEther(bountyAmount(i)));
  }
}

describe("re-broadcast after a crash, when the node is slow to answer", () => {
  /**
   * The process died after the node accepted (and mined) a transaction but before the row said "sent".
   * The restarted worker sends the same raw transaction again: the node answers "nonce too low", and the
   * worker asks the node whether it knows the transaction. If that question itself fails (a timeout),
   * the answer is "don't know", not "no": the row must stay signed and be retried, never be failed
   * (a failed row frees the issue's payout slot and its nonce, though the money has moved).
   */
  test("a mined transaction is never marked failed because a lookup failed", async () => {
    const { t, chain } = stack;
    let mode: "lose-answers" | "flaky-lookups" | "normal" = "lose-answers";
    const proxy = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const body = await request.text();
        const lookup = body.includes("eth_getTransactionByHash") || body.includes("eth_getTransactionReceipt");
        const forward = () => fetch(chain.anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
        if (mode === "lose-answers" && body.includes("eth_sendRawTransaction")) {
          await forward(); // the node gets it and mines it; the answer is lost
          return new Response("upstream went away", { status: 502 });
        }
        if (mode !== "normal" && lookup) return new Response("upstream timed out", { status: 504 });
        return forward();
      },
    });
    try {
      const viaProxy = createChainAccess({ ...t.env, CHAIN_RPC_URL: `http://127.0.0.1:${proxy.port}` });
      const manager = "0x00000000000000000000000000000000000000d1" as Address;
      const before = await t.ctx.chain.client.getTransactionCount({ address: t.ctx.chain.operator.address });
      const request = {
        userId: null,
        idempotencyKey: "crash-test-lost-answer",
        request: { manager },
        kind: "set_pool_manager",
        intent: { repoId: 777, manager },
        signer: { kind: "operator" as const },
        to: chain.deployment.repoRewards,
        data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "addPoolManager", args: [777n, manager] }),
      };
      // The first process: signs, broadcasts (the node mines it), never learns that it did.
      const first = new Outbox({ db: t.ctx.database.db, chain: viaProxy, keyring: t.ctx.keyring, log: t.log });
      const { tx } = await first.submit(request, { timeoutMs: 300 });
      expect(tx.status).toBe("signed");
      expect(await t.ctx.chain.client.getTransactionCount({ address: t.ctx.chain.operator.address })).toBe(before + 1);

      // The restarted process re-broadcasts ("nonce too low") while the node's lookups time out.
      mode = "flaky-lookups";
      const restarted = new Outbox({ db: t.ctx.database.db, chain: viaProxy, keyring: t.ctx.keyring, log: t.log });
      const during = await restarted.advance(tx.id);
      expect(during.status).toBe("signed");
      expect(during.nonce).toBe(before);

      // Once the node answers again, the row is found sent and confirmed, with its nonce, signed once.
      mode = "normal";
      const settled = await restarted.waitForSettled(tx.id, 10_000);
      expect(settled).toMatchObject({ status: "confirmed", nonce: before, rawTx: tx.rawTx });
      expect(await t.ctx.chain.client.getTransactionCount({ address: t.ctx.chain.operator.address })).toBe(before + 1);
    } finally {
      proxy.stop(true);
    }
  }, 30_000);
});

describe("the worker alone recovers a signed transaction behind a burst", () => {
  /**
   * After a crash, the one signed-but-unsent transaction of a signer blocks every later one until the
   * worker re-broadcasts it. Rows are created with second precision, so a burst shares one createdAt:
   * the worker's pass (oldest first, 25 at a time) must still reach the signed row, or the signer
   * stalls for good once no client retries that exact request.
   */
  test("a signed row is re-broadcast even with more than a pass's worth of queued rows of the same second", async () => {
    const { t, chain } = stack;
    const db = t.ctx.database.db;
    const operator = t.ctx.chain.operator.address;
    const proxy = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const body = await request.text();
        if (body.includes("eth_sendRawTransaction")) return new Response("upstream went away", { status: 502 });
        return fetch(chain.anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
      },
    });
    const setManager = (n: number) => {
      const manager = `0x${(0xe000 + n).toString(16).padStart(40, "0")}` as Address;
      return {
        userId: null,
        idempotencyKey: `crash-test-burst-${n}`,
        request: { n },
        kind: "set_pool_manager",
        intent: { repoId: 888, manager },
        signer: { kind: "operator" as const },
        to: chain.deployment.repoRewards,
        data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "addPoolManager", args: [888n, manager] }),
      };
    };
    try {
      // The first process signs one transaction and dies before the node has it; 40 more arrive in the same burst.
      const first = new Outbox({
        db,
        chain: createChainAccess({ ...t.env, CHAIN_RPC_URL: `http://127.0.0.1:${proxy.port}` }),
        keyring: t.ctx.keyring,
        log: t.log,
      });
      const nonce = await t.ctx.chain.client.getTransactionCount({ address: operator });
      const { tx: head } = await first.submit(setManager(0), { timeoutMs: 300 });
      expect(head).toMatchObject({ status: "signed", nonce });
      const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => first.enqueue(setManager(i + 1))));
      const ids = [head.id, ...burst.map((b) => b.tx.id)];
      await db.update(chainTransactions).set({ createdAt: head.createdAt, leaseOwner: null, leaseUntil: null }).where(inArray(chainTransactions.id, ids));

      // The restarted worker, with no client asking: its passes alone must get everything out.
      const restarted = new Outbox({ db, chain: t.ctx.chain, keyring: t.ctx.keyring, log: t.log });
      for (let pass = 0; pass < 60; pass++) {
        await restarted.runOnce();
        const rows = await db.select().from(chainTransactions).where(inArray(chainTransactions.id, ids));
        if (rows.every((r) => r.status === "confirmed")) break;
      }
      const rows = await db.select().from(chainTransactions).where(inArray(chainTransactions.id, ids));
      expect(countBy(rows)).toEqual({ confirmed: 41 });
      expect(rows.find((r) => r.id === head.id)).toMatchObject({ nonce, rawTx: head.rawTx });
      expect(rows.map((r) => r.nonce!).sort((a, b) => a - b)).toEqual(Array.from({ length: 41 }, (_, i) => nonce + i));
      expect(await t.ctx.chain.client.getTransactionCount({ address: operator })).toBe(nonce + 41);
    } finally {
      proxy.stop(true);
    }
  }, 60_000);
});
