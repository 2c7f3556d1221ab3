import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray, like } from "drizzle-orm";
import { createWalletClient, http, parseEther, parseEventLogs, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { eventually, registerFundedRepository, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { chainTransactions, webhookDeliveries } from "../../../db/schema/index.ts";
import { executeDueOutflows } from "../money/refunds.ts";
import { releaseDueSplits } from "./release.ts";
import { releaseHeldShares } from "./release-held.ts";

/**
 * A co-author's held split share (issue 29, item 4) is paid with the operator's payTip when they register; a
 * payTip to a wallet never paid before, or over the repository's cap, is queued by the contract, and the guardian
 * may drop it (cancelOutflow: the share is held in the escrow again). The platform then pays it again to the
 * registered wallet, once per drop, as it does a dropped tip; the split shows the share held meanwhile.
 */
const UNIT = 10n ** 18n;
const WINDOW_MS = 1_000;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let n = 0;
const key = () => `dropped-share-${n++}-${Date.now()}`;
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });
const splitOfIssue = async (issue: number) => (await call(stack.t, `/api/splits/${LITE.id}/${issue}`)).json();
const sharePayments = (issue: number) =>
  stack.t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.kind, "pay_tip"), like(chainTransactions.idempotencyKey, `split-share:${LITE.id}:${issue}:%`)));
const balance = (address: Address) => stack.t.ctx.chain.client.getBalance({ address });

async function settled() {
  await stack.github.controls.settle();
  await eventually(async () => {
    await stack.t.ctx.webhooks.runOnce();
    const pending = await stack.t.ctx.database.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.status, ["pending", "processing"]));
    return pending.length === 0 ? true : undefined;
  }, 20_000, "deliveries processed");
}

/** Every transaction of the outbox settled, then read by the indexer. */
async function confirmed() {
  await stack.t.ctx.outbox.runOnce();
  for (const row of await stack.t.ctx.database.db.select().from(chainTransactions)) {
    if (row.status === "sent" || row.status === "signed" || row.status === "queued") await stack.t.ctx.outbox.waitForSettled(row.id, 20_000);
  }
  await stack.t.ctx.indexer.catchUp();
}

beforeAll(async () => {
  // 3 XDC a day may leave for the repository: bob's 2 XDC share goes out at once, carol's 2 XDC payTip after it is queued.
  stack = await startTestStack({
    env: { SPLIT_RELEASE_WINDOW_MS: String(WINDOW_MS) },
    caps: {
      XDC: { perRepo: 3n * UNIT, total: 100n * UNIT },
      ROXN: { perRepo: 15n * UNIT, total: 100n * UNIT },
      USDC: { perRepo: 15_000_000n, total: 100_000_000n },
    },
  });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "100" });
  await registerFundedRepository(stack, alice, LITE, "50");
}, 120_000);
afterAll(() => stack?.stop());

describe("a held split share whose queued payment the guardian drops", () => {
  test("reads as held again and is paid again once to the co-author's wallet", async () => {
    const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Dropped share", author: "alice" });
    const issue = (opened.issue as { number: number }).number;
    const allocated = await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, { bountyAmount: "4", currency: "XDC", githubRepoFullName: LITE.fullName });
    expect(allocated.status, await allocated.clone().text()).toBe(200);
    await stack.t.ctx.indexer.catchUp();
    const pr = await stack.github.controls.openPullRequest({
      repo: LITE.fullName,
      author: "bob",
      title: `Fix #${issue}`,
      body: `Fixes #${issue}`,
      head: `bob:${key()}`,
      commits: [{ message: "Fix the parser\n\nCo-authored-by: Carol Private <1003+carol@users.noreply.github.com>" }],
    });
    await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: (pr.pull_request as { number: number }).number, actor: "alice" });
    await settled();
    const split = await splitOfIssue(issue);
    await releaseDueSplits(stack.t.ctx, { now: Date.parse(split.releaseAt), owner: "test" });
    await confirmed();
    expect((await splitOfIssue(issue)).shares.map((s: { login: string; status: string }) => [s.login, s.status])).toEqual([["bob", "paid"], ["carol", "held"]]);

    // carol registers: her share's payTip is queued by the contract (over the repository's cap).
    const carol = await stack.signUp("carol", "contributor");
    await eventually(async () => {
      await releaseHeldShares(stack.t.ctx);
      await confirmed();
      const [pay] = await sharePayments(issue);
      return pay?.status === "confirmed" ? pay : undefined;
    }, 30_000, "the held share's payTip confirmed");
    expect(await balance(carol.wallet)).toBe(0n);
    expect((await splitOfIssue(issue)).shares.map((s: { status: string }) => s.status)).toEqual(["paid", "queued"]);

    // The guardian drops it: the escrow holds the share again; the split says so.
    const rewards = stack.t.ctx.chain.config.contracts.rewards;
    const outflow = (await stack.t.ctx.chain.client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "nextOutflowId" })) as bigint;
    const guardian = createWalletClient({ account: privateKeyToAccount(stack.chain.guardianKey), chain: stack.t.ctx.chain.config.chain, transport: http(stack.chain.anvil.rpcUrl) });
    await stack.t.ctx.chain.client.waitForTransactionReceipt({ hash: await guardian.writeContract({ address: rewards, abi: RepoRewardsAbi, functionName: "cancelOutflow", args: [outflow] }) });
    await stack.t.ctx.indexer.catchUp();
    expect((await splitOfIssue(issue)).shares.map((s: { status: string }) => s.status)).toEqual(["paid", "held"]);

    // Paid again, once per drop, however often the pass runs.
    await releaseHeldShares(stack.t.ctx);
    await releaseHeldShares(stack.t.ctx, { githubUserId: 1003 });
    const again = await sharePayments(issue);
    expect(again.map((p) => p.idempotencyKey).sort()).toEqual([`split-share:${LITE.id}:${issue}:1003`, `split-share:${LITE.id}:${issue}:1003:dropped:${outflow}`]);
    await confirmed();
    expect(await releaseHeldShares(stack.t.ctx)).toBe(0);
    expect(await sharePayments(issue)).toHaveLength(2);
    expect((await splitOfIssue(issue)).shares.map((s: { status: string }) => s.status)).toEqual(["paid", "queued"]);

    // The queue's delay passes and the queue runs: carol is paid her 2 XDC exactly once.
    await stack.chain.rpc("evm_increaseTime", [2 * 24 * 3600 + 60]);
    await stack.chain.rpc("evm_mine");
    await stack.t.ctx.indexer.catchUp();
    expect(await executeDueOutflows(stack.t.ctx)).toBe(1);
    await confirmed();
    expect(await balance(carol.wallet)).toBe(parseEther("2"));
    expect(await executeDueOutflows(stack.t.ctx)).toBe(0);
    const execution = (await stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.kind, "execute_outflow"))).at(-1)!;
    const receipt = await stack.t.ctx.chain.client.getTransactionReceipt({ hash: execution.txHash! as `0x${string}` });
    expect(parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs, eventName: "TipPaid" }).map((e) => e.args.recipient.toLowerCase())).toEqual([carol.wallet.toLowerCase()]);
    expect((await splitOfIssue(issue)).shares.map((s: { status: string }) => s.status)).toEqual(["paid", "paid"]);
    expect(await releaseHeldShares(stack.t.ctx)).toBe(0);
    expect(await sharePayments(issue)).toHaveLength(2);
  }, 180_000);
});
