import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { formatEther, type Address } from "viem";
import type { Server } from "bun";
import { createTestContext, type TestContext } from "../../testing/context.ts";
import { startTestChain, type TestChain } from "../../testing/chain.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../testing/auth.ts";
import { eventually } from "../../testing/stack.ts";
import { onrampTransactions, wallets } from "../../db/schema/index.ts";
import { anvilPrivateKey } from "../lib/anvil.ts";
import { startOnrampSimulator, type OnrampSimulator } from "./index.ts";
import { inrToXdc, xdcToInr } from "./prices.ts";

let chain: TestChain;
let t: TestContext;
let simulator: OnrampSimulator;
let listener: Server<unknown>;
let bob: TestSession;
let bobWallet: Address;

beforeAll(async () => {
  chain = await startTestChain();
  let handler: (request: Request, server: Server<unknown>) => Response | Promise<Response> = () => new Response("starting", { status: 503 });
  listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request, server) => handler(request, server) });
  const appUrl = `http://127.0.0.1:${listener.port}`;
  const secret = "simulator-test-secret-0123456789";
  simulator = await startOnrampSimulator({
    appId: "issuepool-sim",
    appSecret: secret,
    webhookUrl: `${appUrl}/api/webhooks/onramp`,
    rpcUrl: chain.anvil.rpcUrl,
    providerKey: anvilPrivateKey(9),
    saleTimeoutMs: 20_000,
  });
  t = await createTestContext({
    fileDatabase: true,
    env: { ...chain.env, PUBLIC_URL: appUrl, ONRAMP_URL: simulator.url, ONRAMP_APP_ID: "issuepool-sim", ONRAMP_APP_SECRET: secret },
  });
  handler = (request, server) => t.app.fetch(request, server);
  t.ctx.outbox.start(); // the sale's XDC leaves through the outbox worker, as in the running platform
  bob = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  bobWallet = (await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, bob.user.id)))[0]!.address as Address;
  await chain.fund(bobWallet, { xdc: "20" });
}, 60_000);
afterAll(async () => {
  await t?.ctx.outbox.stop();
  await simulator?.stop();
  listener?.stop(true);
  t?.close();
  await chain?.stop();
});

/** The browser's part: open the hosted page, submit its form, return the order page's path. */
async function placeOrder(kind: "buy" | "sell", amount: string): Promise<{ orderPath: string; reference: string }> {
  const { url } = await (await call(t, `/api/wallet/${kind}-xdc-url`, { as: bob })).json();
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const form = new URLSearchParams();
  for (const [, name, value] of (await page.text()).matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)) form.set(name!, value!.replace(/&amp;/g, "&"));
  form.set("amount", amount);
  const placed = await fetch(`${simulator.url}/orders`, { method: "POST", body: form, redirect: "manual" });
  expect(placed.status).toBe(303);
  return { orderPath: placed.headers.get("location")!, reference: new URL(url).searchParams.get("merchantRecognitionId")! };
}

const orderRow = async (reference: string) =>
  (await t.ctx.database.db.select().from(onrampTransactions).where(eq(onrampTransactions.merchantReference, reference)))[0]!;
const balance = async (address: Address) => formatEther(await t.ctx.chain.client.getBalance({ address }));

describe("the on-ramp simulator with the platform", () => {
  test("prices are exact decimals", () => {
    expect(inrToXdc("1000", 250n)).toBe("400");
    expect(inrToXdc("1", 300n)).toBe("0.3333");
    expect(xdcToInr("5", 250n)).toBe("12.50");
  });

  test("a purchase: XDC arrives from the provider, the order succeeds, the browser returns with status and orderId", async () => {
    const before = await t.ctx.chain.client.getBalance({ address: bobWallet });
    const { orderPath, reference } = await placeOrder("buy", "1000");
    const done = await fetch(`${simulator.url}${orderPath}/complete`, { method: "POST", redirect: "manual" });
    expect(done.status).toBe(303);
    const back = new URL(done.headers.get("location")!);
    const orderId = orderPath.split("/").pop()!;
    expect(back.pathname).toBe("/wallet");
    expect(Object.fromEntries(back.searchParams)).toEqual({ status: "success", orderId });
    expect(formatEther((await t.ctx.chain.client.getBalance({ address: bobWallet })) - before)).toBe("400");
    const row = await orderRow(reference);
    expect(row).toMatchObject({ status: "success", orderId, cryptoAmount: "400", fiatAmount: "1000" });
    expect(row.txHash).toBe(simulator.orders.get(Number(orderId))!.transactionHash!);
    // A second click changes nothing.
    await fetch(`${simulator.url}${orderPath}/complete`, { method: "POST", redirect: "manual" });
    expect(formatEther((await t.ctx.chain.client.getBalance({ address: bobWallet })) - before)).toBe("400");
  });

  test("a purchase abandoned after its amount was chosen is listed with that amount, still initiated (issue 27)", async () => {
    const { reference } = await placeOrder("buy", "250");
    // The tab is closed here: no payment, no return. The provider's first report already carries the amounts.
    const row = await eventually(async () => {
      const current = await orderRow(reference);
      return current.fiatAmount ? current : undefined;
    }, 10_000, "the order's amounts");
    expect(row).toMatchObject({ status: "initiated", fiatAmount: "250", cryptoAmount: "100" });
    const listed = (await (await call(t, "/api/wallet/onramp-transactions?limit=10", { as: bob, csrf: true })).json()) as { transactions: { id: string; status: string; amount: string | null; fiatAmount: string | null }[] };
    expect(listed.transactions.find((tx) => tx.id === row.id)).toMatchObject({ status: "initiated", amount: "100", fiatAmount: "250" });
  });

  test("a sale: the platform sends the XDC to the provider's deposit address, then the order succeeds", async () => {
    const { orderPath, reference } = await placeOrder("sell", "5");
    const done = await fetch(`${simulator.url}${orderPath}/complete`, { method: "POST", redirect: "manual" });
    expect(done.headers.get("location")).toBe(orderPath);
    const order = simulator.orders.get(Number(orderPath.split("/").pop()))!;
    const deadline = Date.now() + 15_000;
    while (order.state === "awaiting_crypto" && Date.now() < deadline) await Bun.sleep(100);
    expect(order.state).toBe("success");
    expect(await balance(order.depositAddress!)).toBe("5");
    const row = await orderRow(reference);
    expect(row).toMatchObject({ status: "success", type: "offramp", cryptoAmount: "5", fiatAmount: "12.5" });
    const page = await (await fetch(`${simulator.url}${orderPath}`)).text();
    expect(page).toContain("status=success");
  }, 30_000);

  test("a failed payment: the order fails and the browser returns with status=failed", async () => {
    const { orderPath, reference } = await placeOrder("buy", "100");
    const failed = await fetch(`${simulator.url}${orderPath}/fail`, { method: "POST", redirect: "manual" });
    expect(new URL(failed.headers.get("location")!).searchParams.get("status")).toBe("failed");
    expect((await orderRow(reference)).status).toBe("failed");
  });

  test("the order-status call: the platform's stale order is reconciled with it, an order never taken up expires", async () => {
    const env = { ...t.env, ONRAMP_STATUS_URL: `${simulator.url}/api/order-status` };
    const { fetchOrderStatus } = await import("../../api/services/onramp/provider.ts");
    const { orderPath, reference } = await placeOrder("buy", "10");
    const answer = await fetchOrderStatus(env, reference);
    expect(answer.found).toBe(true);
    expect(JSON.parse(answer.rawBody!)).toMatchObject({ merchantRecognitionId: reference, status: 0, orderId: Number(orderPath.split("/").pop()) });
    expect(await fetchOrderStatus(env, "ipr_never_seen")).toEqual({ found: false });
    // Unsigned or wrongly signed questions get nothing.
    const forged = await fetch(env.ONRAMP_STATUS_URL, { method: "POST", body: JSON.stringify({ appId: "issuepool-sim", merchantRecognitionId: reference }) });
    expect(forged.status).toBe(401);
    await expect(fetchOrderStatus({ ...env, ONRAMP_APP_SECRET: "another-secret-0123456789" }, reference)).rejects.toThrow("401");
  });

  test("the simulator refuses pages for another app", async () => {
    const res = await fetch(`${simulator.url}/main/buy/?appId=someone-else&walletAddress=${bobWallet}&redirectUrl=http://x/&merchantRecognitionId=r`);
    expect(res.status).toBe(400);
  });
});
