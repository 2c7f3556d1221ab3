import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createPublicClient, createWalletClient, encodeFunctionData, http, parseEther, type Hex, type PublicClient } from "viem";
import { createTestContext, type TestContext } from "../../testing/context.ts";
import { startTestChain, type TestChain } from "../../testing/chain.ts";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { bounties, chainEvents, repositories, repositoryPools } from "../../db/schema/index.ts";
import { RewardsIndexer } from "./indexer.ts";

let chain: TestChain;
let t: TestContext;

beforeAll(async () => {
  chain = await startTestChain();
  t = await createTestContext({ fileDatabase: true, env: chain.env });
}, 60_000);
afterAll(async () => {
  t?.close();
  await chain?.stop();
});

/** An operator transaction through the outbox, once confirmed. */
async function operatorSends(key: string, data: Hex, value?: bigint) {
  const { tx } = await t.ctx.outbox.submit({ userId: null, idempotencyKey: key, request: { key }, kind: "test", intent: {}, signer: { kind: "operator" }, to: chain.deployment.repoRewards, data, value });
  const settled = await t.ctx.outbox.waitForSettled(tx.id, 10_000);
  expect(settled.status).toBe("confirmed");
  return settled;
}

/** The next block is stamped 7 s after the latest one: no other block shares its second, with no waiting. */
async function nextBlockInANewSecond(): Promise<void> {
  const latest = await t.ctx.chain.client.getBlock({ blockTag: "latest" });
  await chain.rpc("evm_setNextBlockTimestamp", [Number(latest.timestamp) + 7]);
}

const fundPool = (repoId: number) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "fundPoolXdc", args: [BigInt(repoId), 50] });

describe("the rewards indexer", () => {
  test("requests' catch-ups and the background pass share their runs: no block is indexed twice at once", async () => {
    const repoId = 4201; // each test funds and reads a repository of its own
    await t.ctx.database.db.insert(repositories).values({ githubRepoId: repoId, fullName: "o/idx", fullNameKey: "o/idx", owner: "o", name: "idx", htmlUrl: "http://gh/o/idx" });
    for (let i = 0; i < 5; i++) await operatorSends(`idx-fund-${i}`, fundPool(repoId), parseEther("2"));
    const published: string[][] = [];
    const indexer = new RewardsIndexer({ db: t.ctx.database.db, chain: t.ctx.chain, log: t.ctx.log, onChange: (tags) => published.push(tags) });
    indexer.start(10_000);
    await Promise.all(Array.from({ length: 10 }, () => indexer.catchUp()));
    await indexer.stop();
    // Every batch publishes the repositories it touched: once, not once per concurrent pass.
    expect(published.filter((tags) => tags.includes(`repo:${repoId}`)).length).toBe(1);
    const pools = await t.ctx.database.db.select().from(repositoryPools);
    expect(pools.find((p) => p.githubRepoId === repoId && p.currency === "XDC")?.balance).toBe((parseEther("10") * 9950n) / 10_000n);
  }, 60_000);

  test("block times come from the logs when the node gives them, from the blocks otherwise", async () => {
    const repoId = 4202;
    const fund = async (key: string) => (await operatorSends(key, fundPool(repoId), parseEther("1"))).txHash!;
    const blockTimeOf = async (hash: string) => {
      const receipt = await t.ctx.chain.client.getTransactionReceipt({ hash: hash as `0x${string}` });
      return new Date(Number((await t.ctx.chain.client.getBlock({ blockNumber: receipt.blockNumber })).timestamp) * 1000);
    };
    const recorded = async (hash: string) => (await t.ctx.database.db.select().from(chainEvents).where(eq(chainEvents.txHash, hash)))[0]?.blockTime;

    await nextBlockInANewSecond(); // so a block time taken from another block would show
    const withTimes = await fund("idx-time-1");
    const logsSeen: { blockTimestamp?: unknown }[] = [];
    const watching = { ...t.ctx.chain, client: withLogs(t.ctx.chain.client, (logs) => logsSeen.push(...logs)) };
    await new RewardsIndexer({ db: t.ctx.database.db, chain: watching, log: t.ctx.log }).catchUp();
    expect(logsSeen.some((l) => typeof l.blockTimestamp === "bigint")).toBe(true); // anvil gives them
    expect(await recorded(withTimes)).toEqual(await blockTimeOf(withTimes));

    await nextBlockInANewSecond();
    const withoutTimes = await fund("idx-time-2");
    const stripped = { ...t.ctx.chain, client: withLogs(t.ctx.chain.client, (logs) => logs.forEach((l) => delete l.blockTimestamp)) };
    await new RewardsIndexer({ db: t.ctx.database.db, chain: stripped, log: t.ctx.log }).catchUp();
    expect(await recorded(withoutTimes)).toEqual(await blockTimeOf(withoutTimes));
  }, 60_000);
});

/** The client, with `see` called on every batch of logs it returns (and may change them). */
function withLogs(client: TestContext["ctx"]["chain"]["client"], see: (logs: { blockTimestamp?: unknown }[]) => void) {
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop !== "getLogs") return Reflect.get(target, prop, receiver);
      return async (...args: Parameters<typeof target.getLogs>) => {
        const logs = await target.getLogs(...args);
        see(logs as { blockTimestamp?: unknown }[]);
        return logs;
      };
    },
  });
}

describe("a fresh look at the chain", () => {
  test("a catch-up covers the block just mined, even when the client's block number was read a moment before", async () => {
    // A client whose cached block number lasts 5 s (viem caches it for a polling interval).
    const slow = { ...t.ctx.chain, client: createPublicClient({ chain: t.ctx.chain.config.chain, transport: http(chain.anvil.rpcUrl), pollingInterval: 5_000 }) as PublicClient };
    const indexer = new RewardsIndexer({ db: t.ctx.database.db, chain: slow, log: t.ctx.log });
    await indexer.catchUp();
    await slow.client.getBlockNumber(); // cached now
    const operator = createWalletClient({ account: t.ctx.chain.operator, chain: t.ctx.chain.config.chain, transport: http(chain.anvil.rpcUrl) });
    const hash = await operator.writeContract({ address: chain.deployment.repoRewards, abi: RepoRewardsAbi, functionName: "fundPoolXdc", args: [4203n, 50], value: parseEther("1") });
    await t.ctx.chain.client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
    await indexer.catchUp();
    expect(await t.ctx.database.db.select().from(chainEvents).where(eq(chainEvents.txHash, hash))).toHaveLength(1);
  }, 30_000);
});

describe("the mirrored bounties", () => {
  test("equal the contract's view after allocations, payments, cancellations and a new allocation, however batched", async () => {
    const repoId = 4204n;
    const rewards = chain.deployment.repoRewards;
    const send = (key: string, data: Hex) => operatorSends(key, data);
    const allocate = (issue: bigint, currency: number, amount: bigint) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "allocateBounty", args: [repoId, issue, currency, amount] });
    const contributor = "0x00000000000000000000000000000000000000e1";
    await t.ctx.database.db.insert(repositories).values({ githubRepoId: Number(repoId), fullName: "o/mirror", fullNameKey: "o/mirror", owner: "o", name: "mirror", htmlUrl: "http://gh/o/mirror" });
    const indexer = new RewardsIndexer({ db: t.ctx.database.db, chain: t.ctx.chain, log: t.ctx.log });
    await operatorSends("m-fund", encodeFunctionData({ abi: RepoRewardsAbi, functionName: "fundPoolXdc", args: [repoId, 50] }), parseEther("10"));
    await send("m-a1", allocate(1n, 0, parseEther("1")));
    await send("m-a2", allocate(2n, 0, parseEther("2")));
    await indexer.catchUp(); // a batch with allocations only
    await send("m-p1", encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payBounty", args: [repoId, 1n, contributor] }));
    await send("m-c2", encodeFunctionData({ abi: RepoRewardsAbi, functionName: "cancelBounty", args: [repoId, 2n] }));
    await send("m-a3", allocate(3n, 0, parseEther("1.5")));
    await send("m-a2b", allocate(2n, 0, parseEther("1.25"))); // allocated again after the cancellation, in the same batch
    await send("m-p3", encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payBounty", args: [repoId, 3n, contributor] }));
    await indexer.catchUp();
    const mirrored = await t.ctx.database.db.select().from(bounties).where(eq(bounties.githubRepoId, Number(repoId)));
    for (const issue of [1n, 2n, 3n]) {
      const [currency, amount, status, recipient] = await t.ctx.chain.client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getBounty", args: [repoId, issue] });
      const row = mirrored.find((b) => b.issueNumber === Number(issue))!;
      expect({ currency: row.currency, amount: row.amount, status: row.status, recipient: row.recipient?.toLowerCase() ?? null }).toEqual({
        currency: (["XDC", "ROXN", "USDC"] as const)[currency]!,
        amount,
        status: ([null, "open", "paid", "cancelled"] as const)[status]!,
        recipient: status === 2 ? recipient.toLowerCase() : null,
      });
    }
    expect(mirrored.map((b) => [b.issueNumber, b.status]).sort()).toEqual([[1, "paid"], [2, "open"], [3, "paid"]]);
  }, 60_000);
});
