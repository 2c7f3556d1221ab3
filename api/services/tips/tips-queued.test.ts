import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createWalletClient, http, parseEther, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { chainTransactions, tips } from "../../../db/schema/index.ts";
import { executeDueOutflows } from "../money/refunds.ts";
import { releaseHeldTips } from "./tip-held.ts";

/**
 * A held tip whose payTip the contract queues as an outflow (over its total cap, issue 29): the transaction is
 * confirmed, but nothing reached the recipient yet. Both wallet histories say "queued" (the recipient's
 * transaction list: pending) until the queue runs (OutflowExecuted, TipPaid), then "confirmed" with the
 * transaction that paid.
 */
const UNIT = 10n ** 18n;
let stack: TestStack;
let bob: TestSession & { wallet: Address };
const balance = (address: Address) => stack.t.ctx.chain.client.getBalance({ address });

beforeAll(async () => {
  // 1 XDC in total a day may leave the escrow: a 3 XDC tip's payTip is over it and queued for QUEUE_DELAY.
  stack = await startTestStack({
    caps: {
      XDC: { perRepo: 1n * UNIT, total: 1n * UNIT },
      ROXN: { perRepo: 15n * UNIT, total: 100n * UNIT },
      USDC: { perRepo: 15_000_000n, total: 100_000_000n },
    },
  });
  bob = await stack.signUp("bob", "contributor");
  await stack.chain.fund(bob.wallet, { xdc: "20" });
}, 120_000);
afterAll(() => stack?.stop());

/** Every transaction confirmed; the indexer reads them too unless told not to (the stack runs no workers). */
async function settle(options: { index?: boolean } = {}) {
  await stack.t.ctx.outbox.runOnce();
  for (const row of await stack.t.ctx.database.db.select().from(chainTransactions)) {
    if (row.status === "sent" || row.status === "signed" || row.status === "queued") await stack.t.ctx.outbox.waitForSettled(row.id, 20_000);
  }
  if (options.index !== false) await stack.t.ctx.indexer.catchUp();
}

describe("a tip queued behind the contract's outflow caps", () => {
  test("reads as queued for tipper and recipient until the queue runs, then as confirmed", async () => {
    const res = await call(stack.t, "/api/tips", { as: bob, body: { login: "carol", amount: "3", currency: "XDC" }, headers: { "Idempotency-Key": "queued-tip" } });
    expect(res.status, await res.clone().text()).toBe(200);
    const held = await res.json();
    expect(held.status).toBe("held");
    await settle();

    // carol registers: the platform pays the held tip, and the contract queues it (3 XDC > the 1 XDC cap).
    const carol = await stack.signUp("carol", "contributor");
    const payTips = () => stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.idempotencyKey, `tip-pay:${held.id}`));
    await eventually(async () => {
      await releaseHeldTips(stack.t.ctx);
      await settle({ index: false });
      const [pay] = await payTips();
      return pay?.status === "confirmed" ? pay : undefined;
    }, 30_000, "payTip confirmed");
    expect(await balance(carol.wallet)).toBe(0n);

    // Both sides read it as queued; carol's transaction list as pending.
    const tipsOf = async (session: TestSession) => (await call(stack.t, "/api/tips", { as: session })).json();
    const historyOf = async (session: TestSession) => (await (await call(stack.t, "/api/wallet/transactions?limit=20", { as: session })).json()).transactions as { kind: string; isIncoming: boolean; status: string; hash: string }[];
    // Before the indexer has read the payTip, its receipt says so.
    expect((await tipsOf(bob)).given.find((t: { id: number }) => t.id === held.id)).toMatchObject({ status: "queued" });
    await stack.t.ctx.indexer.catchUp();
    const given = (await tipsOf(bob)).given.find((t: { id: number }) => t.id === held.id);
    const received = (await tipsOf(carol)).received.find((t: { id: number }) => t.id === held.id);
    expect(given).toMatchObject({ status: "queued" });
    expect(received).toMatchObject({ status: "queued" });
    expect(received.message).toContain("queued");
    const incoming = (await historyOf(carol)).filter((t) => t.kind === "tip" && t.isIncoming);
    expect(incoming.map((t) => t.status)).toEqual(["pending"]);

    // The queue's delay passes; the platform runs the outflow; carol is paid, and both read it as confirmed.
    await stack.chain.rpc("evm_increaseTime", [2 * 24 * 3600 + 60]);
    await stack.chain.rpc("evm_mine");
    await stack.t.ctx.indexer.catchUp();
    // This test's execution, not one the other test made (the tests run in any order).
    const executions = () => stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.kind, "execute_outflow"));
    const earlier = new Set((await executions()).map((r) => r.id));
    expect(await executeDueOutflows(stack.t.ctx)).toBe(1);
    await settle();
    expect(await balance(carol.wallet)).toBe(parseEther("2.985"));
    const [execution] = (await executions()).filter((r) => !earlier.has(r.id));
    if (!execution) throw new Error("no execute_outflow of this test");
    expect((await tipsOf(bob)).given.find((t: { id: number }) => t.id === held.id)).toMatchObject({ status: "confirmed", transactionHash: execution.txHash });
    expect((await tipsOf(carol)).received.find((t: { id: number }) => t.id === held.id)).toMatchObject({ status: "confirmed", transactionHash: execution.txHash });
    const paid = (await historyOf(carol)).filter((t) => t.kind === "tip" && t.isIncoming);
    expect(paid).toEqual([expect.objectContaining({ status: "confirmed", hash: execution.txHash, tokenSymbol: "XDC" })]);
  }, 120_000);

  test("dropped by the guardian, it reads as held again and is paid again once to the recipient's wallet", async () => {
    const res = await call(stack.t, "/api/tips", { as: bob, body: { login: "dave", amount: "3", currency: "XDC" }, headers: { "Idempotency-Key": "dropped-tip" } });
    expect(res.status, await res.clone().text()).toBe(200);
    const held = await res.json();
    await settle();
    const dave = await stack.signUp("dave", "contributor");
    const payTips = () => stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.kind, "pay_tip"));
    const mine = async () => (await payTips()).filter((p) => (JSON.parse(p.intent) as { tipId: number }).tipId === held.id);
    await eventually(async () => {
      await releaseHeldTips(stack.t.ctx);
      await settle({ index: false });
      const [pay] = await mine();
      return pay?.status === "confirmed" ? pay : undefined;
    }, 30_000, "payTip confirmed");
    await stack.t.ctx.indexer.catchUp();
    const tipsOf = async (session: TestSession) => (await call(stack.t, "/api/tips", { as: session })).json();
    const historyOf = async (session: TestSession) => (await (await call(stack.t, "/api/wallet/transactions?limit=20", { as: session })).json()).transactions as { kind: string; isIncoming: boolean; status: string; hash: string }[];
    expect((await tipsOf(dave)).received.find((t: { id: number }) => t.id === held.id)).toMatchObject({ status: "queued" });

    // The guardian drops the queued payout: the contract holds the tip in the escrow again.
    const outflow = (await stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "nextOutflowId" })) as bigint;
    const guardian = createWalletClient({ account: privateKeyToAccount(stack.chain.guardianKey), chain: stack.t.ctx.chain.config.chain, transport: http(stack.chain.anvil.rpcUrl) });
    await stack.t.ctx.chain.client.waitForTransactionReceipt({ hash: await guardian.writeContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "cancelOutflow", args: [outflow] }) });
    await stack.t.ctx.indexer.catchUp();
    const given = (await tipsOf(bob)).given.find((t: { id: number }) => t.id === held.id);
    const received = (await tipsOf(dave)).received.find((t: { id: number }) => t.id === held.id);
    expect(given).toMatchObject({ status: "held" });
    expect(received).toMatchObject({ status: "held" });
    expect(received.message).toContain("guardian");
    expect((await historyOf(dave)).filter((t) => t.kind === "tip" && t.isIncoming).map((t) => t.status)).toEqual(["pending"]);

    // The platform pays it again, once per drop, whatever is retried.
    await releaseHeldTips(stack.t.ctx);
    await releaseHeldTips(stack.t.ctx);
    const again = await mine();
    expect(again.map((p) => p.idempotencyKey).sort()).toEqual([`tip-pay:${held.id}`, `tip-pay:${held.id}:dropped:${outflow}`]);
    const [row] = await stack.t.ctx.database.db.select().from(tips).where(eq(tips.id, held.id));
    expect(row?.payTxId).toBe(again.find((p) => p.idempotencyKey.includes("dropped"))!.id);
    await settle();
    expect(await releaseHeldTips(stack.t.ctx)).toBe(0);
    expect(await mine()).toHaveLength(2);
    // Queued again (over the cap); the queue runs; dave is paid exactly once.
    expect((await tipsOf(dave)).received.find((t: { id: number }) => t.id === held.id)).toMatchObject({ status: "queued" });
    await stack.chain.rpc("evm_increaseTime", [2 * 24 * 3600 + 60]);
    await stack.chain.rpc("evm_mine");
    await stack.t.ctx.indexer.catchUp();
    expect(await executeDueOutflows(stack.t.ctx)).toBe(1);
    await settle();
    expect(await balance(dave.wallet)).toBe(parseEther("2.985"));
    expect(await executeDueOutflows(stack.t.ctx)).toBe(0);
    expect((await tipsOf(bob)).given.find((t: { id: number }) => t.id === held.id)).toMatchObject({ status: "confirmed" });
    expect((await historyOf(dave)).filter((t) => t.kind === "tip" && t.isIncoming).map((t) => t.status)).toEqual(["confirmed"]);
  }, 120_000);
});
