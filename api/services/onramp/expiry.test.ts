import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { onrampTransactions, wallets } from "../../../db/schema/index.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { orderLifetimeMs } from "./orders.ts";

/**
 * Abandoned on-ramp orders (issues 16 and 38): an order no webhook moved
 * within the provider's order lifetime (an hour by default) is shown as
 * expired, after asking the provider's order-status call, whose signed
 * answer is applied like a webhook.
 */
let t: TestContext;
let alice: TestSession;
let provider: ReturnType<typeof Bun.serve>;
/** What the stub provider knows: reference -> its status code; "down" answers 500 for everything. */
const known = new Map<string, number>();
let down = false;
const asked: string[] = [];
let nextOrderId = 7_000_000;

const sign = (body: string) => createHmac("sha512", t.env.ONRAMP_APP_SECRET).update(body).digest("hex");

beforeAll(async () => {
  provider = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const raw = await req.text();
      if (req.headers.get("x-onramp-signature") !== sign(raw)) return new Response("bad signature", { status: 401 });
      if (down) return new Response("busy", { status: 500 });
      const { merchantRecognitionId } = JSON.parse(raw) as { merchantRecognitionId: string };
      asked.push(merchantRecognitionId);
      const code = known.get(merchantRecognitionId);
      if (code === undefined) return new Response("not found", { status: 404 });
      const [order] = await t.ctx.database.db.select().from(onrampTransactions).where(eq(onrampTransactions.merchantReference, merchantRecognitionId));
      const body = JSON.stringify({
        orderId: nextOrderId++,
        merchantRecognitionId,
        eventType: order!.type,
        status: code,
        walletAddress: toXdcAddress(order!.walletAddress),
        fiatType: 1,
        fiatAmount: "1000",
        actualCryptoAmount: "400",
      });
      return new Response(body, { headers: { "content-type": "application/json", "x-onramp-signature": sign(body) } });
    },
  });
  t = await createTestContext({
    env: { ONRAMP_URL: "https://onramp.example/", ONRAMP_APP_ID: "issuepool-test", ONRAMP_STATUS_URL: `http://127.0.0.1:${provider.port}/api/order-status` },
  });
  alice = await signInAs(t, await createTestUser(t, { role: "contributor" }));
});
afterAll(async () => {
  t?.close();
  await provider?.stop(true);
});

async function startBuy(ageMs: number): Promise<string> {
  const url = new URL((await (await call(t, "/api/wallet/buy-xdc-url", { as: alice })).json()).url);
  const reference = url.searchParams.get("merchantRecognitionId")!;
  await t.ctx.database.db
    .update(onrampTransactions)
    .set({ createdAt: new Date(Date.now() - ageMs) })
    .where(eq(onrampTransactions.merchantReference, reference));
  return reference;
}

const listed = async () => (await (await call(t, "/api/wallet/onramp-transactions?limit=50", { as: alice })).json()).transactions as { id: string; status: string; amount: string | null }[];
const statusOf = async (reference: string) => {
  const [row] = await t.ctx.database.db.select().from(onrampTransactions).where(eq(onrampTransactions.merchantReference, reference));
  return row!;
};

describe("abandoned on-ramp orders", () => {
  test("the documented time is the provider's order lifetime: an hour unless configured, never past a day", () => {
    expect(orderLifetimeMs(t.env)).toBe(3600 * 1000);
    expect(orderLifetimeMs({ ONRAMP_ORDER_LIFETIME_MINUTES: 30 })).toBe(30 * 60 * 1000);
  });

  test("an order the provider never took up expires after its lifetime (not a day later) and is listed as expired", async () => {
    const fresh = await startBuy(orderLifetimeMs(t.env) - 60_000);
    const stale = await startBuy(orderLifetimeMs(t.env) + 60_000);
    asked.length = 0;
    const rows = await listed();
    const [staleId, freshId] = [(await statusOf(stale)).id, (await statusOf(fresh)).id];
    expect(rows.find((r) => r.id === staleId)?.status).toBe("expired");
    expect(rows.find((r) => r.id === freshId)?.status).toBe("initiated");
    // Only the stale one was asked about, once; once expired it is not asked again.
    expect(asked).toEqual([stale]);
    await listed();
    expect(asked).toEqual([stale]);
  });

  test("a provider whose webhook was lost is asked first: its word is applied, not expiry", async () => {
    const reference = await startBuy(orderLifetimeMs(t.env) + 60_000);
    known.set(reference, 4);
    await listed();
    expect(await statusOf(reference)).toMatchObject({ status: "success", cryptoAmount: "400" });
  });

  test("an order the provider still only has as created expires", async () => {
    const reference = await startBuy(orderLifetimeMs(t.env) + 60_000);
    known.set(reference, 0);
    await listed();
    expect((await statusOf(reference)).status).toBe("expired");
  });

  test("a provider that cannot be asked right now leaves the order for the next read", async () => {
    const reference = await startBuy(orderLifetimeMs(t.env) + 60_000);
    down = true;
    try {
      expect((await listed()).length).toBeGreaterThan(0);
      expect((await statusOf(reference)).status).toBe("initiated");
    } finally {
      down = false;
    }
    await listed();
    expect((await statusOf(reference)).status).toBe("expired");
  });

  test("the provider's later word still moves an expired purchase forward; a late 'created' does not revive it", async () => {
    const reference = await startBuy(orderLifetimeMs(t.env) + 60_000);
    await listed();
    expect((await statusOf(reference)).status).toBe("expired");
    const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, alice.user.id));
    const deliver = (status: number) => {
      const body = JSON.stringify({ orderId: 8_000_001, merchantRecognitionId: reference, eventType: "onramp", status, walletAddress: toXdcAddress(wallet!.address), actualCryptoAmount: "12" });
      return t.app.request("/api/webhooks/onramp", { method: "POST", headers: { "content-type": "application/json", "x-onramp-signature": sign(body) }, body });
    };
    expect((await (await deliver(0)).json()).outcome).toBe("ignored");
    expect((await statusOf(reference)).status).toBe("expired");
    expect((await (await deliver(4)).json()).outcome).toBe("processed");
    expect((await statusOf(reference)).status).toBe("success");
  });
});
