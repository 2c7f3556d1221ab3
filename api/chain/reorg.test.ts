/**
 * The platform checks its beliefs against the chain and repairs itself (issue 24, item 1; docs/money-faults.md,
 * "The chain goes back"). On a real anvil, while the platform funds a pool and sets bounties through the outbox with
 * its workers running:
 * - a reorganisation (`evm_snapshot` before some of the work, `evm_revert` after it, other blocks mined at the same
 *   heights): the confirmed transactions of the orphaned blocks are broadcast again as they were signed, the indexer
 *   rewinds to the common ancestor and reads again, with no manual step;
 * - a chain restarted from a state saved a moment ago (revert, nothing mined after): the same;
 * - a chain created anew (another genesis block): the old chain's records are retired, nothing of it is broadcast.
 * Afterwards, each time: every transaction the database calls confirmed has its receipt on-chain in the block it
 * records; each signer's nonces run without a gap; the mirror equals the contract for every pool and bounty; the
 * escrow holds exactly the pools plus the open bounties; a new funding confirms.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { encodeFunctionData, keccak256, parseEther, type Address, type Hex } from "viem";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { awaitingDecisions, bounties, bountyBoosts, bountyClaims, repositoryReliability, chainIdentity, chainTransactions, heldPayouts, payoutSplits, payoutSplitShares, repositories, repositoryPools, tips, users, type Wallet } from "../../db/schema/index.ts";
import { startTestChain, type TestChain } from "../../testing/chain.ts";
import { createTestContext, type TestContext } from "../../testing/context.ts";
import { createTestUser } from "../../testing/auth.ts";
import { eventually } from "../../testing/stack.ts";
import { walletOfUser } from "../services/wallets/custodial.ts";
import { ChainReconciler } from "./outbox-reconciling.ts";
import { REBROADCAST_AFTER_MS } from "./outbox.ts";
import type { OutboxRequest } from "./outbox-rows.ts";

let chain: TestChain;
let t: TestContext;
let keySeq = 0;
/** Every repository and issue a test put a bounty on: the mirror is compared with the contract for each. */
const touched = new Map<number, Set<number>>();

beforeAll(async () => {
  chain = await startTestChain();
  t = await createTestContext({ fileDatabase: true, env: chain.env });
}, 60_000);
afterAll(async () => {
  t?.close();
  await chain?.stop();
});

const db = () => t.ctx.database.db;
const client = () => t.ctx.chain.client;
const rewards = () => chain.deployment.repoRewards;
/** The deadline of a repair: a few reconciler intervals plus a lost transaction's re-broadcast, under load. */
const RECONCILE_MS = 250;
const REPAIR_DEADLINE_MS = 20 * RECONCILE_MS + REBROADCAST_AFTER_MS;

function operatorRequest(kind: string, data: Hex, githubRepoId?: number, issueNumber?: number): OutboxRequest {
  const key = `reorg-${kind}-${keySeq++}`;
  return { userId: null, idempotencyKey: key, request: { key }, kind, githubRepoId, issueNumber, intent: {}, signer: { kind: "operator" }, to: rewards(), data };
}

function fundingRequest(wallet: Wallet, repoId: number, amount: bigint, key = `reorg-fund-${keySeq++}`): OutboxRequest {
  return {
    userId: wallet.userId,
    idempotencyKey: key,
    request: { key, amount: amount.toString() },
    kind: "fund_xdc",
    githubRepoId: repoId,
    intent: {},
    signer: { kind: "wallet", wallet },
    to: rewards(),
    data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "fundPoolXdc", args: [BigInt(repoId), 50] }),
    value: amount,
  };
}

const allocation = (repoId: number, issue: number, amount: bigint) => {
  touched.get(repoId)!.add(issue);
  return operatorRequest("allocate_bounty", encodeFunctionData({ abi: RepoRewardsAbi, functionName: "allocateBounty", args: [BigInt(repoId), BigInt(issue), 0, amount] }), repoId, issue);
};

async function settle(request: OutboxRequest, timeoutMs = 10_000) {
  const { tx } = await t.ctx.outbox.submit(request, { timeoutMs });
  return t.ctx.outbox.waitForSettled(tx.id, timeoutMs);
}

/** A registered repository with a pool manager whose custodial wallet holds XDC and a funded pool. */
async function poolWithManager(repoId: number): Promise<Wallet> {
  touched.set(repoId, new Set());
  await db().insert(repositories).values({ githubRepoId: repoId, fullName: `o/r${repoId}`, fullNameKey: `o/r${repoId}`, owner: "o", name: `r${repoId}`, htmlUrl: `http://gh/o/r${repoId}` });
  const user = await createTestUser(t, { role: "poolmanager" });
  const wallet = (await walletOfUser(db(), user.id))!;
  await chain.fund(wallet.address as Address, { xdc: "1000" });
  const manager = await settle(operatorRequest("set_pool_manager", encodeFunctionData({ abi: RepoRewardsAbi, functionName: "addPoolManager", args: [BigInt(repoId), wallet.address as Address] })));
  expect(manager.status).toBe("confirmed");
  expect((await settle(fundingRequest(wallet, repoId, parseEther("40")))).status).toBe("confirmed");
  await t.ctx.indexer.catchUp();
  return wallet;
}

/** The platform's workers as in production, the reconciler on a short schedule; stopped whatever happens. */
async function withWorkers<T>(run: (reconciler: ChainReconciler) => Promise<T>): Promise<T> {
  const reconciler = new ChainReconciler({ db: db(), chain: t.ctx.chain, log: t.ctx.log, indexer: t.ctx.indexer });
  t.ctx.outbox.start();
  t.ctx.indexer.start();
  reconciler.start(RECONCILE_MS);
  try {
    return await run(reconciler);
  } finally {
    await reconciler.stop();
    await t.ctx.outbox.stop();
    await t.ctx.indexer.stop();
  }
}

/**
 * Fundings and bounties one after another (as a pool manager does at a few requests a second) until `stop()`:
 * `done` counts those confirmed. A request may fail while the chain is not where the platform thinks (the
 * contract refuses it at estimation): that changes nothing and is allowed.
 */
function keepWorking(wallet: Wallet, repoId: number, firstIssue: number) {
  let running = true;
  let done = 0;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const request = i % 2 === 0 ? fundingRequest(wallet, repoId, parseEther("2")) : allocation(repoId, firstIssue + i, parseEther("1"));
      const settled = await settle(request, REPAIR_DEADLINE_MS);
      if (settled.status === "confirmed") done++;
    }
  })();
  return {
    done: () => done,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** What the database believes, checked against the chain; the first disagreement, or null. */
async function disagreement(): Promise<string | null> {
  const rows = await db().select().from(chainTransactions).where(isNull(chainTransactions.oldChain));
  const unfinished = rows.filter((r) => r.status === "queued" || r.status === "signed" || r.status === "sent");
  if (unfinished.length) return `${unfinished.length} transactions not settled yet`;
  for (const row of rows.filter((r) => r.status === "confirmed" || r.status === "reverted")) {
    const receipt = await client().getTransactionReceipt({ hash: row.txHash as Hex }).catch(() => null);
    if (!receipt) return `confirmed transaction ${row.txHash} (nonce ${row.nonce}) has no receipt on-chain`;
    if (receipt.blockHash !== row.blockHash || Number(receipt.blockNumber) !== row.blockNumber) return `transaction ${row.txHash} is recorded in another block`;
  }
  // No nonce gap: each signer's used nonces are its rows', one each, up to the chain's count.
  const bySigner = new Map<string, number[]>();
  for (const row of rows) if (row.nonce !== null && row.status !== "failed") bySigner.set(row.fromAddress, [...(bySigner.get(row.fromAddress) ?? []), row.nonce]);
  for (const [from, nonces] of bySigner) {
    nonces.sort((a, b) => a - b);
    const count = await client().getTransactionCount({ address: from as Address });
    if (nonces.at(-1)! + 1 !== count) return `${from}: last nonce ${nonces.at(-1)} but ${count} transactions on-chain`;
    if (nonces.some((n, i) => i > 0 && n !== nonces[i - 1]! + 1)) return `${from}: a gap in nonces ${nonces.join(",")}`;
  }
  await t.ctx.indexer.catchUp();
  // The mirror equals the contract, pool by pool and bounty by bounty.
  let owed = 0n;
  for (const [repoId, issues] of touched) {
    const [xdc] = await client().readContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "getPool", args: [BigInt(repoId)] });
    const [pool] = await db().select().from(repositoryPools).where(and(eq(repositoryPools.githubRepoId, repoId), eq(repositoryPools.currency, "XDC")));
    if (pool?.balance !== xdc) return `repository ${repoId}: pool ${pool?.balance} in the database, ${xdc} on-chain`;
    owed += xdc;
    let locked = 0n;
    for (const issue of issues) {
      const [, amount, status] = await client().readContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "getBounty", args: [BigInt(repoId), BigInt(issue)] });
      const [mirrored] = await db().select().from(bounties).where(and(eq(bounties.githubRepoId, repoId), eq(bounties.issueNumber, issue)));
      const onChain = ["none", "open", "paid", "cancelled", "queued"][status]!;
      if ((mirrored?.status ?? "none") !== onChain) return `bounty ${repoId}#${issue}: ${mirrored?.status ?? "none"} in the database, ${onChain} on-chain`;
      if (mirrored && mirrored.amount !== amount) return `bounty ${repoId}#${issue}: ${mirrored.amount} in the database, ${amount} on-chain`;
      if (onChain === "open") locked += amount;
    }
    if (pool.allocated !== locked) return `repository ${repoId}: ${pool.allocated} allocated in the database, ${locked} in open bounties on-chain`;
    owed += locked;
  }
  // The escrow holds exactly the pools and the open bounties (every repository of this contract is one of ours).
  const escrow = await client().getBalance({ address: rewards() });
  if (escrow !== owed) return `the escrow holds ${escrow}, pools and open bounties come to ${owed}`;
  return null;
}

async function expectAgreement(what: string): Promise<void> {
  let last: string | null = "not checked";
  try {
    await eventually(async () => (last = await disagreement()) === null, REPAIR_DEADLINE_MS, what);
  } catch (err) {
    console.error(`the platform's warnings:\n${warnings().slice(-15).join("\n")}`);
    throw new Error(`${(err as Error).message}: ${last}`);
  }
}

const warnings = () => t.log.lines.filter((l) => l.includes('"warn"') || l.includes("WARN"));

describe("the chain goes back; the platform repairs itself", () => {
  test("a reorganisation while a pool is funded and bounties set: transactions broadcast again, mirror rewound and read again", async () => {
    const repoId = 6101;
    const wallet = await poolWithManager(repoId);
    // A bounty set and paid before the fork point, and one paid on the branch that is dropped.
    expect((await settle(allocation(repoId, 1, parseEther("3")))).status).toBe("confirmed");
    const snapshot = await chain.rpc("evm_snapshot");
    await withWorkers(async () => {
      const work = keepWorking(wallet, repoId, 100);
      try {
        const payout = await settle(operatorRequest("pay_bounty", encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payBounty", args: [BigInt(repoId), 1n, "0x00000000000000000000000000000000000b0b01"] }), repoId, 1));
        expect(payout.status).toBe("confirmed");
        await eventually(async () => work.done() >= 4, REPAIR_DEADLINE_MS, "work before the reorganisation");
        await t.ctx.indexer.catchUp();
        const cursorBefore = Number(await t.ctx.indexer.lastIndexedBlock());
        // The other branch: back to the fork point, and more blocks than were dropped, with other contents.
        expect(await chain.rpc("evm_revert", [snapshot])).toBe(true);
        const blocks = Math.max(1, cursorBefore + 3 - Number(await client().getBlockNumber({ cacheTime: 0 })));
        await chain.rpc("anvil_mine", [`0x${blocks.toString(16)}`]);
        const seen = work.done();
        await eventually(async () => work.done() >= seen + 4, REPAIR_DEADLINE_MS, "work after the reorganisation");
      } finally {
        await work.stop();
      }
      await expectAgreement("after the reorganisation");
      // The payout made on the dropped branch is made again, by the same signed transaction: paid once, to bob.
      const [, , status, recipient] = await client().readContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "getBounty", args: [BigInt(repoId), 1n] });
      expect([status, recipient.toLowerCase()]).toEqual([2, "0x00000000000000000000000000000000000b0b01"]);
      expect((await settle(fundingRequest(wallet, repoId, parseEther("5")))).status).toBe("confirmed");
      await expectAgreement("after a new funding");
    });
    expect(warnings().some((l) => l.includes("chain reconciliation") && l.includes("sent again"))).toBe(true);
    expect(warnings().some((l) => l.includes("indexer: the chain no longer has block"))).toBe(true);
  }, 180_000);

  test("a chain restarted from a state saved a moment ago: the lost transactions are broadcast again, each once, with their nonces", async () => {
    const repoId = 6102;
    const wallet = await poolWithManager(repoId);
    const snapshot = await chain.rpc("evm_snapshot");
    const lost: Awaited<ReturnType<typeof settle>>[] = [];
    for (let i = 0; i < 3; i++) {
      lost.push(await settle(fundingRequest(wallet, repoId, parseEther("3"))));
      lost.push(await settle(allocation(repoId, 200 + i, parseEther("1"))));
    }
    expect(lost.every((r) => r.status === "confirmed")).toBe(true);
    await t.ctx.indexer.catchUp();
    // The "restart": the chain is back where it was a moment ago, and nothing new is mined.
    expect(await chain.rpc("evm_revert", [snapshot])).toBe(true);
    for (const row of lost) expect(await client().getTransactionReceipt({ hash: row.txHash as Hex }).catch(() => null)).toBeNull();
    await withWorkers(async () => {
      await expectAgreement("after the restart");
      // Each lost transaction is on-chain once, as it was signed: same hash, same nonce.
      for (const row of lost) {
        const mined = await client().getTransaction({ hash: row.txHash as Hex });
        expect(mined.nonce).toBe(row.nonce!);
      }
    });
    // Repaired: a new pass (the scheduled one stopped, its lease handed back) finds nothing left to do.
    const checker = new ChainReconciler({ db: db(), chain: t.ctx.chain, log: t.ctx.log });
    try {
      expect(await checker.runOnce()).toEqual({ rebroadcast: [], moved: [], resent: [], chainReplaced: false });
    } finally {
      await checker.stop();
    }
    // Each repair said once what it repaired.
    for (const row of lost) expect(warnings().filter((l) => l.includes("sent again") && l.includes(row.txHash!))).toHaveLength(1);
  }, 180_000);

  test("a chain created anew (another genesis block): the old chain's records are retired, nothing of it is broadcast", async () => {
    const repoId = 6103;
    // The indexer's catch-ups run between its start and stop (the tests above stopped it).
    t.ctx.indexer.start(60_000);
    try {
      await chainCreatedAnew(repoId);
    } finally {
      await t.ctx.indexer.stop();
    }
  }, 120_000);
});

async function chainCreatedAnew(repoId: number): Promise<void> {
  const wallet = await poolWithManager(repoId);
  const reconciler = new ChainReconciler({ db: db(), chain: t.ctx.chain, log: t.ctx.log, indexer: t.ctx.indexer });
  try {
    await retireTheOldChain(reconciler, wallet, repoId);
  } finally {
    await reconciler.stop();
  }
}

async function retireTheOldChain(reconciler: ChainReconciler, wallet: Wallet, repoId: number): Promise<void> {
  await reconciler.runOnce(); // records the chain's genesis
  const funding = fundingRequest(wallet, repoId, parseEther("4"), "reorg-fund-same-key");
  const first = await settle(funding);
  expect(first.status).toBe("confirmed");
  // A transaction signed for the old chain and sent there, but never mined on this one.
  const operator = t.ctx.chain.operator;
  const nonce = await client().getTransactionCount({ address: operator.address, blockTag: "pending" });
  const rawTx = await operator.signTransaction({ chainId: t.ctx.chain.config.chain.id, to: "0x00000000000000000000000000000000000c0c01", value: 1n, nonce, gas: 21_000n, gasPrice: await client().getGasPrice(), type: "legacy" });
  const { tx: sent } = await t.ctx.outbox.enqueue(operatorRequest("send_xdc", "0x"));
  await db().update(chainTransactions).set({ status: "sent", nonce, rawTx, txHash: keccak256(rawTx), sentAt: new Date(Date.now() - 2 * REBROADCAST_AFTER_MS) }).where(eq(chainTransactions.id, sent.id));

  // What the platform kept about the old chain's bounties: who works on one, a payout held, a decision awaited.
  const [someone] = await db().select({ id: users.id }).from(users).limit(1);
  await db().insert(bountyClaims).values({ githubRepoId: repoId, issueNumber: 1, userId: someone!.id });
  await db().insert(heldPayouts).values({ githubRepoId: repoId, issueNumber: 1, githubUserId: 424242, githubLogin: "walletless" });
  await db().insert(awaitingDecisions).values({ githubRepoId: repoId, issueNumber: 2, allocatedTx: `0x${"cd".repeat(32)}`, reason: "closed_completed" });
  await db().insert(bountyBoosts).values({ githubRepoId: repoId, issueNumber: 1, userId: someone!.id, funderAddress: wallet.address, currency: "XDC", amount: 10n ** 18n, fee: 0n, status: "active", idempotencyKey: "reorg-boost" });
  await db().insert(repositoryReliability).values({ githubRepoId: repoId, paidCount: 3 });
  // A co-authored bounty's split, and a tip held in the old chain's escrow.
  await db().insert(payoutSplits).values({ githubRepoId: repoId, issueNumber: 3, allocatedTx: `0x${"ef".repeat(32)}`, pullNumber: 9, authorGithubId: 1002, authorLogin: "bob", currency: "XDC", amount: 1n, releaseAt: new Date() });
  await db().insert(payoutSplitShares).values({ githubRepoId: repoId, issueNumber: 3, githubUserId: 1002, githubLogin: "bob", position: 0, weight: 1 });
  const [heldTip] = await db().insert(tips).values({ fromUserId: someone!.id, toGithubId: 424242, toLogin: "walletless", currency: "XDC", amount: 1n, fee: 0n, source: "profile", idempotencyKey: "reorg-tip", status: "held", escrowed: true }).returning();

  // The database's records belong to another chain than this one: as if the chain had been lost and created again.
  const oldGenesis = `0x${"ab".repeat(32)}`;
  await db().update(chainIdentity).set({ genesisHash: oldGenesis }).where(eq(chainIdentity.chainId, t.ctx.chain.config.chain.id));
  const lines = t.log.lines.length;
  expect((await reconciler.runOnce()).chainReplaced).toBe(true);
  // Gone with the bounties they were about (before: kept, and the held row blocked holding a new bounty's payout).
  for (const table of [bountyClaims, heldPayouts, awaitingDecisions, payoutSplits, payoutSplitShares, bountyBoosts, repositoryReliability]) expect(await db().select().from(table).where(eq(table.githubRepoId, repoId))).toHaveLength(0);
  // Its escrow is gone with the old chain: the tip is failed, never paid from the new one.
  expect((await db().select().from(tips).where(eq(tips.id, heldTip!.id)))[0]!.status).toBe("failed");
  const plain = t.log.lines.slice(lines).filter((l) => l.includes("the chain was created again"));
  expect(plain).toHaveLength(1);

  const retired = await db().select().from(chainTransactions).where(inArray(chainTransactions.id, [first.id, sent.id]));
  for (const row of retired) {
    expect(row.oldChain).toBe(oldGenesis);
    expect(row.idempotencyKey).toStartWith(`old-chain:${oldGenesis}:`);
  }
  expect(retired.find((r) => r.id === sent.id)!.status).toBe("failed");
  expect(retired.find((r) => r.id === first.id)!.status).toBe("confirmed");
  // Nothing of the old chain is broadcast: not by the outbox's passes, not by the reconciler.
  await t.ctx.outbox.runOnce();
  await reconciler.runOnce();
  expect(await client().getTransactionCount({ address: operator.address, blockTag: "pending" })).toBe(nonce);
  expect(await client().getTransaction({ hash: keccak256(rawTx) }).catch(() => null)).toBeNull();
  expect((await reconciler.runOnce()).chainReplaced).toBe(false);

  // The same request again is a new transaction on the new chain, and the mirror is read anew from it.
  const again = await settle(funding);
  expect(again.id).not.toBe(first.id);
  expect(again.status).toBe("confirmed");
  await expectAgreement("on the new chain");
}
