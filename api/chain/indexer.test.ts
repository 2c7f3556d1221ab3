import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { encodeFunctionData, parseEther } from "viem";
import { createTestContext, type TestContext } from "../testing/context.ts";
import { startTestChain, type TestChain } from "../testing/chain.ts";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { repositories, repositoryPools } from "../../db/schema/index.ts";
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

describe("the rewards indexer", () => {
  test("requests' catch-ups and the background pass share their runs: no block is indexed twice at once", async () => {
    const repoId = 4242;
    await t.ctx.database.db.insert(repositories).values({ githubRepoId: repoId, fullName: "o/idx", fullNameKey: "o/idx", owner: "o", name: "idx", htmlUrl: "http://gh/o/idx" });
    for (let i = 0; i < 5; i++) {
      const { tx } = await t.ctx.outbox.submit({
        userId: null,
        idempotencyKey: `idx-fund-${i}`,
        request: { i },
        kind: "fund_xdc",
        intent: {},
        signer: { kind: "operator" },
        to: chain.deployment.repoRewards,
        data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "fundPoolXdc", args: [BigInt(repoId)] }),
        value: parseEther("2"),
      });
      expect((await t.ctx.outbox.waitForSettled(tx.id, 10_000)).status).toBe("confirmed");
    }
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
});
