import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { and, eq, like } from "drizzle-orm";
import { formatEther, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { startTestChain, type TestChain } from "../../../testing/chain.ts";
import { call, createTestUser, databaseDigest, signInAs, type TestSession } from "../../../testing/auth.ts";
import { chainTransactions, onrampTransactions, wallets, webhookDeliveries } from "../../../db/schema/index.ts";
import { toXdcAddress } from "../../chain/address.ts";

let chain: TestChain;
let t: TestContext;
let bob: TestSession;
let bobWallet: Address;
let nextOrderId = 5000;

beforeAll(async () => {
  chain = await startTestChain();
  t = await createTestContext({ fileDatabase: true, env: chain.env });
  bob = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  bobWallet = (await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, bob.user.id)))[0]!.address as Address;
  await chain.fund(bobWallet, { xdc: "50" });
}, 60_000);
afterAll(async () => {
  t?.close();
  await chain?.stop();
});

/** Signed as the provider signs: hex HMAC-SHA512 of the raw body (computed here independently of the app's code). */
function deliver(payload: unknown, options: { secret?: string; signature?: string | null; raw?: string } = {}) {
  const raw = options.raw ?? JSON.stringify(payload);
  const signature = options.signature === undefined ? createHmac("sha512", options.secret ?? t.env.ONRAMP_APP_SECRET).update(raw).digest("hex") : options.signature;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature !== null) headers["x-onramp-signature"] = signature;
  return t.app.request("/api/webhooks/onramp", { method: "POST", headers, body: raw });
}

async function startOrder(session: TestSession, kind: "buy" | "sell") {
  const res = await call(t, `/api/wallet/${kind}-xdc-url`, { as: session });
  expect(res.status).toBe(200);
  const url = new URL((await res.json()).url);
  return { reference: url.searchParams.get("merchantRecognitionId")!, orderId: nextOrderId++ };
}

const event = (order: { reference: string; orderId: number }, status: number, extra: Record<string, unknown> = {}) => ({
  orderId: order.orderId,
  merchantRecognitionId: order.reference,
  eventType: "onramp",
  status,
  walletAddress: toXdcAddress(bobWallet),
  coinCode: "xdc",
  network: "xdc",
  fiatType: 1,
  fiatAmount: 1000,
  actualCryptoAmount: "25.5",
  ...extra,
});

const orderOf = async (reference: string) =>
  (await t.ctx.database.db.select().from(onrampTransactions).where(eq(onrampTransactions.merchantReference, reference)))[0]!;
const transactions = async () => (await (await call(t, "/api/wallet/onramp-transactions?limit=10", { as: bob })).json()).transactions;
const digest = () => databaseDigest(t, ["rate_limits", "__drizzle_migrations"]);
const outcome = async (res: Response) => {
  expect(res.status).toBe(200);
  return (await res.json()).outcome as string;
};

describe("the on-ramp webhook", () => {
  test("forged, unsigned or tampered: 401 and nothing changes", async () => {
    const order = await startOrder(bob, "buy");
    const before = await digest();
    const payload = event(order, 4, { transactionHash: `0x${"ab".repeat(32)}` });
    const raw = JSON.stringify(payload);
    const signed = createHmac("sha512", t.env.ONRAMP_APP_SECRET).update(raw).digest("hex");
    for (const res of [
      await deliver(payload, { secret: "not-the-secret-0123456789" }),
      await deliver(payload, { signature: null }),
      await deliver(payload, { signature: "" }),
      await deliver(payload, { signature: signed.slice(0, 64) }),
      await deliver(payload, { raw: raw.replace('"status":4', '"status":5'), signature: signed }),
    ]) {
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: "Invalid signature" });
    }
    expect(await digest()).toBe(before);
    expect((await orderOf(order.reference)).status).toBe("initiated");
  });

  test("a purchase moves through its statuses; the platform records the provider's delivery and credits nothing itself", async () => {
    const order = await startOrder(bob, "buy");
    const balanceBefore = await t.ctx.chain.client.getBalance({ address: bobWallet });
    const sentBefore = (await t.ctx.database.db.select().from(chainTransactions)).length;
    expect(await outcome(await deliver(event(order, 2)))).toBe("processed");
    expect((await orderOf(order.reference)).status).toBe("pending");
    expect(await outcome(await deliver(event(order, 13)))).toBe("processed");
    expect((await orderOf(order.reference)).status).toBe("processing");
    const hash = `0x${"cd".repeat(32)}`;
    expect(await outcome(await deliver(event(order, 4, { transactionHash: hash })))).toBe("processed");
    const row = await orderOf(order.reference);
    expect(row).toMatchObject({ status: "success", orderId: String(order.orderId), cryptoAmount: "25.5", fiatAmount: "1000", txHash: hash });
    expect(await t.ctx.chain.client.getBalance({ address: bobWallet })).toBe(balanceBefore);
    expect(await t.ctx.database.db.select().from(chainTransactions)).toHaveLength(sentBefore); // the platform sent nothing

    const listed = (await transactions()).find((tx: { orderId: string }) => tx.orderId === String(order.orderId));
    expect(listed).toMatchObject({ amount: "25.5", status: "success", type: "onramp", fiatAmount: "1000", fiatCurrency: "INR", transactionHash: hash, metadata: { transactionType: "onramp" } });
  });

  test("the same webhook twice is applied once; a replayed older one changes nothing", async () => {
    const order = await startOrder(bob, "buy");
    const pending = event(order, 2);
    const success = event(order, 4, { transactionHash: `0x${"ef".repeat(32)}` });
    await deliver(pending);
    await deliver(success);
    const before = await digest();
    expect(await outcome(await deliver(success))).toBe("duplicate");
    expect(await outcome(await deliver(pending))).toBe("duplicate");
    expect(await digest()).toBe(before);
    // The same status under another code is a new delivery, but a finished order does not go back.
    expect(await outcome(await deliver(event(order, 1)))).toBe("ignored");
    expect(await outcome(await deliver(event(order, -1)))).toBe("ignored");
    expect((await orderOf(order.reference)).status).toBe("success");
  });

  test("concurrent duplicate deliveries are applied once", async () => {
    const order = await startOrder(bob, "buy");
    const results = await Promise.all(Array.from({ length: 5 }, () => deliver(event(order, 2))));
    const outcomes = await Promise.all(results.map(outcome));
    expect(outcomes.filter((o) => o === "processed")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "duplicate")).toHaveLength(4);
  });

  test("an unknown merchant reference is kept for review and touches no order", async () => {
    const before = await t.ctx.database.db.select().from(onrampTransactions);
    const orderId = nextOrderId++;
    expect(await outcome(await deliver(event({ reference: "ipr_somebody-elses", orderId }, 4)))).toBe("unmatched");
    expect(await t.ctx.database.db.select().from(onrampTransactions)).toEqual(before);
    const [delivery] = await t.ctx.database.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.source, "onramp"), like(webhookDeliveries.deliveryId, `${orderId}:4:%`)));
    expect(delivery).toMatchObject({ status: "unmatched", event: "onramp", action: "4" });
    expect(JSON.parse(delivery!.payload).merchantRecognitionId).toBe("ipr_somebody-elses");
  });

  test("events that do not fit the order are ignored", async () => {
    const order = await startOrder(bob, "buy");
    const other = privateKeyToAccount(generatePrivateKey()).address;
    expect(await outcome(await deliver(event(order, 4, { walletAddress: other })))).toBe("ignored");
    expect(await outcome(await deliver(event(order, 4, { eventType: "offramp" })))).toBe("ignored");
    expect(await outcome(await deliver(event(order, 99)))).toBe("ignored");
    expect((await orderOf(order.reference)).status).toBe("initiated");
    await deliver(event(order, 2));
    expect(await outcome(await deliver(event({ ...order, orderId: nextOrderId++ }, 4)))).toBe("ignored");
    expect((await orderOf(order.reference)).status).toBe("pending");
  });

  test("signed but malformed: 400", async () => {
    expect((await deliver(null, { raw: "{not json" })).status).toBe(400);
    expect((await deliver({ orderId: 1 })).status).toBe(400);
  });

  test("a failed purchase", async () => {
    const order = await startOrder(bob, "buy");
    expect(await outcome(await deliver(event(order, -2)))).toBe("processed");
    expect((await orderOf(order.reference)).status).toBe("failed");
  });
});

describe("selling XDC", () => {
  const sellEvent = (order: { reference: string; orderId: number }, status: number, extra: Record<string, unknown> = {}) =>
    event(order, status, { eventType: "offramp", fiatAmount: 500, actualCryptoAmount: "5", ...extra });
  const offrampRows = async (reference: string) => {
    const order = await orderOf(reference);
    return (await t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.kind, "offramp_xdc"))).filter(
      (r) => JSON.parse(r.intent).onrampTransactionId === order.id,
    );
  };

  test("when the provider awaits the crypto, the XDC goes to its deposit address exactly once", async () => {
    const order = await startOrder(bob, "sell");
    const deposit = privateKeyToAccount(generatePrivateKey()).address;
    const awaiting = sellEvent(order, 2, { depositAddress: toXdcAddress(deposit) });
    expect(await outcome(await deliver(awaiting))).toBe("processed");
    expect(await outcome(await deliver(awaiting))).toBe("duplicate");
    expect(await outcome(await deliver(sellEvent(order, 13, { depositAddress: deposit })))).toBe("processed");
    const rows = await offrampRows(order.reference);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ userId: null, toAddress: deposit, value: 5n * 10n ** 18n, fromAddress: bobWallet });

    const settled = await t.ctx.outbox.waitForSettled(rows[0]!.id, 10_000);
    expect(settled.status).toBe("confirmed");
    expect(formatEther(await t.ctx.chain.client.getBalance({ address: deposit }))).toBe("5");

    expect(await outcome(await deliver(sellEvent(order, 4)))).toBe("processed");
    const listed = (await transactions()).find((tx: { orderId: string }) => tx.orderId === String(order.orderId));
    expect(listed).toMatchObject({ type: "offramp", status: "success", amount: "5", transactionHash: settled.txHash, metadata: { transactionType: "offramp" } });
    expect(formatEther(await t.ctx.chain.client.getBalance({ address: deposit }))).toBe("5");
  });

  test("a later event naming another deposit address or amount is not followed", async () => {
    const order = await startOrder(bob, "sell");
    const deposit = privateKeyToAccount(generatePrivateKey()).address;
    await deliver(sellEvent(order, 2, { depositAddress: deposit }));
    const thief = privateKeyToAccount(generatePrivateKey()).address;
    expect(await outcome(await deliver(sellEvent(order, 13, { depositAddress: thief })))).toBe("ignored");
    expect(await outcome(await deliver(sellEvent(order, 12, { depositAddress: deposit, actualCryptoAmount: "9" })))).toBe("ignored");
    const rows = await offrampRows(order.reference);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.toAddress).toBe(deposit);
    await t.ctx.outbox.waitForSettled(rows[0]!.id, 10_000);
    expect(await t.ctx.chain.client.getBalance({ address: thief })).toBe(0n);
  });

  test("more than the wallet holds (with the gas reserve): the sale fails and nothing is sent", async () => {
    const order = await startOrder(bob, "sell");
    const balance = await t.ctx.chain.client.getBalance({ address: bobWallet });
    const deposit = privateKeyToAccount(generatePrivateKey()).address;
    await deliver(sellEvent(order, 2, { depositAddress: deposit, actualCryptoAmount: formatEther(balance - 10n ** 16n) }));
    expect(await offrampRows(order.reference)).toHaveLength(0);
    const row = await orderOf(order.reference);
    expect(row.status).toBe("failed");
    expect(JSON.parse(row.metadata).failureReason).toContain("not enough XDC");
    // The provider's own success afterwards does not revive it.
    expect(await outcome(await deliver(sellEvent(order, 4)))).toBe("ignored");
  });

  test("a buy order cannot be used to pull XDC out", async () => {
    const order = await startOrder(bob, "buy");
    const deposit = privateKeyToAccount(generatePrivateKey()).address;
    expect(await outcome(await deliver(sellEvent(order, 2, { depositAddress: deposit })))).toBe("ignored");
    expect(await outcome(await deliver(event(order, 2, { depositAddress: deposit })))).toBe("processed");
    expect(await offrampRows(order.reference)).toHaveLength(0);
  });

  test("a sale comes back to the wallet marked as a sale, a purchase as before (issue 16)", async () => {
    const redirect = async (kind: "buy" | "sell") =>
      new URL((await (await call(t, `/api/wallet/${kind}-xdc-url`, { as: bob })).json()).url).searchParams.get("redirectUrl");
    expect(await redirect("sell")).toBe(`${t.env.PUBLIC_URL}/wallet?onramp=sell`);
    expect(await redirect("buy")).toBe(`${t.env.PUBLIC_URL}/wallet`);
  });

  test("selling needs XDC above 0", async () => {
    const empty = await signInAs(t, await createTestUser(t, { role: "contributor" }));
    const res = await call(t, "/api/wallet/sell-xdc-url", { as: empty });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "Insufficient XDC Balance", message: "You have no XDC to withdraw." });
  });
});
