/**
 * SIGKILL in the middle of a cash-out to UPI (issue 40). The server is a real OS process
 * (testing/fault-server.ts) talking to the on-ramp simulator's sell side; it is killed with SIGKILL
 *
 * 1. after the provider made the order but before its answer reached us (the simulator holds the answer): our row
 *    knows no order and no deposit address, the provider waits for a deposit;
 * 2. as soon as the crypto's transfer is signed or on its way: the send happened (or is about to), the records
 *    around it (the order's progress, the webhooks that arrive meanwhile) are not written.
 *
 * Each time a new server process on the same database and chain finds the cash-out (the status poll, or a
 * client retrying its confirmation), finishes it, and the chain shows exactly one transfer of exactly the amount
 * to the deposit address, with the wallet's nonces running without a gap or a repeat.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { parseEther, type Address } from "viem";
import { cashouts, chainTransactions, confirmedUpiIds } from "../../db/schema/index.ts";
import type { TestSession } from "../../testing/auth.ts";
import { anvilPrivateKey, startOnrampSimulator, type OnrampSimulator } from "../../testing/dev-tools.ts";
import { consecutive, sentOnChain } from "../../testing/crash.ts";
import { startProcessStack, type ProcessStack, type ServerProcess } from "../../testing/process-stack.ts";
import { eventually } from "../../testing/stack.ts";

const POLL_MS = 300;

let stack: ProcessStack;
let simulator: OnrampSimulator;
let server: ServerProcess | undefined;
let bob: TestSession & { wallet: Address };
let firstBlock: bigint;

beforeAll(async () => {
  stack = await startProcessStack();
  bob = await stack.signUp("bob", "contributor");
  await stack.chain.fund(bob.wallet, { xdc: "50" });
  // bob confirmed his UPI id with an e-mailed code before (the codes: api/routes/wallet/cashout-codes.test.ts).
  await stack.t.ctx.database.db.insert(confirmedUpiIds).values({ userId: bob.user.id, upiId: "bob@okaxis", via: "cashout" });
  simulator = await startOnrampSimulator({
    appId: stack.env.ONRAMP_APP_ID!,
    appSecret: stack.env.ONRAMP_APP_SECRET!,
    webhookUrl: `${stack.origin}/api/webhooks/onramp`,
    rpcUrl: stack.chain.anvil.rpcUrl,
    providerKey: anvilPrivateKey(9),
  });
  firstBlock = await stack.t.ctx.chain.client.getBlockNumber({ cacheTime: 0 });
}, 60_000);
afterAll(async () => {
  await server?.kill();
  await simulator?.stop();
  await stack?.stop();
});

/** `pollMs`: how often the server asks the provider about its open cash-outs (what finds an order whose answer was lost). */
const start = (pollMs = POLL_MS) => stack.spawn({ ONRAMP_API_URL: simulator.url, CASHOUT_POLL_INTERVAL_MS: String(pollMs) });
const rowOf = async (quoteId: string) => (await stack.t.ctx.database.db.select().from(cashouts).where(eq(cashouts.quoteId, quoteId)))[0];
const sendsOf = (id: string) => stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.idempotencyKey, `cashout:${id}`));

async function quote(amount: string): Promise<string> {
  const res = await stack.post(server!, bob, "/api/wallet/cashout/quote", { currency: "XDC", amount });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).id;
}

/** Exactly one transfer, of exactly `amount`, reached the cash-out's deposit address; it completed. */
async function finishedOnce(quoteId: string, amount: string): Promise<void> {
  const done = await eventually(async () => {
    const row = await rowOf(quoteId);
    return row?.status === "completed" ? row : undefined;
  }, 60_000, "the cash-out completed after the restart");
  const sends = await sendsOf(done.id);
  expect(sends).toHaveLength(1);
  expect(sends[0]!.status).toBe("confirmed");
  expect(await stack.t.ctx.chain.client.getBalance({ address: done.depositAddress as Address })).toBe(parseEther(amount));
  const order = [...simulator.sell.orders.values()].filter((o) => o.merchantRecognitionId === done.merchantReference);
  expect(order).toHaveLength(1);
  expect(order[0]!.status).toBe(4);
}

describe("a cash-out survives SIGKILL", () => {
  const killedAfterTheOrder = async () => { // killed after the provider made the order, before its answer arrived: the order is found and funded once
    // No poll pass before the kill: it would find the order by its reference while the answer is held (it did on a
    // busy machine, and sent the crypto), and the kill would leave nothing to recover.
    server = await start(3_600_000);
    const quoteId = await quote("3");
    const release = simulator.sell.holdOrderAnswers();
    const ordersBefore = simulator.sell.orders.size;
    const confirming = stack.post(server, bob, "/api/wallet/cashout", { quoteId, upiId: "bob@okaxis" }).catch(() => undefined);
    await eventually(async () => simulator.sell.orders.size > ordersBefore, 20_000, "the provider's order");
    await server.kill();
    release();
    await confirming;
    // What the kill left: our row, no order known, nothing queued.
    const row = await rowOf(quoteId);
    expect(row).toMatchObject({ status: "initiated", providerOrderId: null, depositAddress: null });
    expect(await sendsOf(row!.id)).toHaveLength(0);

    server = await start();
    await finishedOnce(quoteId, "3");
    // The client's retry of its confirmation gets the same cash-out, not a second one.
    const retried = await stack.post(server, bob, "/api/wallet/cashout", { quoteId, upiId: "bob@okaxis" });
    expect((await retried.json()).id).toBe(row!.id);
    expect(await sendsOf(row!.id)).toHaveLength(1);
  };

  const killedAsTheCryptoLeaves = async () => { // killed as the crypto leaves: the transfer is sent once and the order finished
    const quoteId = await quote("4");
    const confirming = stack.post(server!, bob, "/api/wallet/cashout", { quoteId, upiId: "bob@okaxis" }).catch(() => undefined);
    // The moment its transfer is signed (or already on its way), the process dies.
    await eventually(async () => {
      const row = await rowOf(quoteId);
      if (!row) return undefined;
      const sends = await stack.t.ctx.database.db.select().from(chainTransactions).where(inArray(chainTransactions.idempotencyKey, [`cashout:${row.id}`]));
      return sends.some((s) => s.status !== "queued") ? true : undefined;
    }, 30_000, "the transfer signed");
    await server!.kill();
    await confirming;

    server = await start();
    await finishedOnce(quoteId, "4");
  };

  const eachTransferSentOnce = async () => { // bob's wallet sent each transfer once: its nonces run without a gap or a repeat
    const sent = await sentOnChain(stack.t.ctx.chain.client, bob.wallet, firstBlock);
    expect(sent).toHaveLength(2);
    const nonces = sent.map((s) => s.nonce).sort((a, b) => a - b);
    expect(nonces).toEqual(consecutive(nonces[0]!, 2));
  };
  // In order: the last step counts the transfers the two kills sent (the suite runs tests in random order).
  test("killed after the provider made the order, and as the crypto leaves: each found and finished, each transfer sent once, nonces without gap or repeat", async () => {
    // killed after the provider made the order, before its answer arrived: the order is found and funded once
    await killedAfterTheOrder();
    // killed as the crypto leaves: the transfer is sent once and the order finished
    await killedAsTheCryptoLeaves();
    // bob's wallet sent each transfer once: its nonces run without a gap or a repeat
    await eachTransferSentOnce();
  }, 300_000);
});
