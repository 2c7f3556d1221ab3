/**
 * A local stand-in for the on-ramp provider (onramp.money-shaped, see
 * api/services/onramp/provider.ts), for the embedded default and tests:
 *
 * - its hosted buy and sell pages take the same URL parameters as the real
 *   ones; each order gets a small page where you complete or fail the payment;
 * - a completed purchase sends the XDC from the provider's hot wallet (a
 *   funded anvil account) to the user's wallet, then reports success with the
 *   transaction hash;
 * - a completed sale reports that it awaits the crypto at a fresh deposit
 *   address, watches that address until the platform has sent the XDC, then
 *   reports success (or failure after a timeout);
 * - every report is a webhook signed like the provider's (HMAC-SHA512 of the
 *   raw body), retried until the platform answers 2xx;
 * - afterwards the browser goes back to the redirect URL with `status` and
 *   `orderId`;
 * - `POST /api/order-status` answers where an order stands, signed like a
 *   webhook (404 for one never taken up), for reconciling abandoned orders.
 *
 * The prices are made up and the money is test money on the local chain.
 */
import { Hono } from "hono";
import { createPublicClient, createWalletClient, getAddress, http, isAddress, parseEther, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import {
  FIAT_TYPE_INR,
  ONRAMP_COIN_CODE,
  ONRAMP_NETWORK,
  SIGNATURE_HEADER,
  signWebhookBody,
  STATUS_CODE_OF,
  verifyWebhookSignature,
  type ProviderStatus,
} from "../../api/services/onramp/provider.ts";
import { formatXdc, inrToXdc, xdcToInr } from "./prices.ts";
import { orderPage, startPage, messagePage } from "./pages.ts";
import type { SimulatedOrder, SimulatedOrderState } from "./order.ts";
import { localChain } from "../../api/chain/config.ts";
import { addPriceApi, addSellApi, type SellSimulator } from "./sell-api.ts";

export interface OnrampSimulatorOptions {
  /** 0 or unset: a free port. */
  port?: number;
  appId: string;
  appSecret: string;
  /** The platform's POST /api/webhooks/onramp. */
  webhookUrl: string;
  rpcUrl: string;
  /** The provider's hot wallet, which delivers purchased XDC (an anvil account; topped up with anvil_setBalance). */
  providerKey: Hex;
  /** Price in paise per XDC (default 250: 1 XDC = ₹2.50). */
  paisePerXdc?: bigint;
  /** How long a sale waits for the XDC before it fails (also a cash-out's deposit). */
  saleTimeoutMs?: number;
  /** The USDC token on the local chain, for USDC cash-outs. */
  usdcAddress?: Address;
  /** Paise per USDC (default 8400: 1 USDC = ₹84.00). */
  paisePerUsdc?: bigint;
  /** How long a cash-out quote is valid (default 60 s). */
  quoteTtlMs?: number;
  /** CoinGecko coin ids the price endpoint answers for (default xdce-crowd-sale and usd-coin). */
  priceCoinIds?: Record<string, "XDC" | "USDC">;
  log?: (message: string) => void;
}

export type { SimulatedOrder, SimulatedOrderState };

export interface OnrampSimulator {
  url: string;
  orders: Map<number, SimulatedOrder>;
  /** The sell-side API (cash-outs to UPI; sell-api.ts): its orders and controls. */
  sell: SellSimulator;
  /** The CoinGecko-shaped price endpoint (PRICE_SOURCE_URL). */
  priceUrl: string;
  stop(): Promise<void>;
}

const WEBHOOK_ATTEMPTS = 6;

export async function startOnrampSimulator(options: OnrampSimulatorOptions): Promise<OnrampSimulator> {
  const log = options.log ?? (() => {});
  const paisePerXdc = options.paisePerXdc ?? 250n;
  const saleTimeoutMs = options.saleTimeoutMs ?? 120_000;
  const chainId = await rpcChainId(options.rpcUrl);
  const chain = localChain(chainId, options.rpcUrl);
  const client = createPublicClient({ chain, transport: http(options.rpcUrl), pollingInterval: 50 });
  const provider = privateKeyToAccount(options.providerKey);
  const wallet = createWalletClient({ account: provider, chain, transport: http(options.rpcUrl) });
  const orders = new Map<number, SimulatedOrder>();
  const watchers = new Set<ReturnType<typeof setInterval>>();
  let nextOrderId = Date.now(); // unique across restarts: the platform keeps order ids unique
  // One delivery at a time from the hot wallet, so its nonces never collide.
  let deliveries: Promise<unknown> = Promise.resolve();

  /** The order as a webhook carries it, with the status code of `status`. */
  function eventBody(order: SimulatedOrder, status: ProviderStatus): string {
    const code = STATUS_CODE_OF[status];
    return JSON.stringify({
      orderId: order.orderId,
      merchantRecognitionId: order.merchantRecognitionId,
      eventType: order.kind === "buy" ? "onramp" : "offramp",
      status: code,
      walletAddress: order.walletAddress,
      coinCode: ONRAMP_COIN_CODE,
      network: ONRAMP_NETWORK,
      fiatType: FIAT_TYPE_INR,
      fiatAmount: order.fiatAmount,
      actualCryptoAmount: order.cryptoAmount,
      ...(order.transactionHash && order.kind === "buy" ? { transactionHash: order.transactionHash } : {}),
      ...(order.depositAddress ? { depositAddress: order.depositAddress } : {}),
      createdAt: order.createdAt.toISOString(),
      updatedAt: new Date().toISOString(),
    });
  }

  /** Where an order stands, as the provider would report it. */
  function statusOf(order: SimulatedOrder): ProviderStatus {
    return order.state === "created" ? "initiated" : order.state === "success" ? "success" : order.state === "failed" ? "failed" : "pending";
  }

  async function webhook(order: SimulatedOrder, status: ProviderStatus): Promise<void> {
    const code = STATUS_CODE_OF[status];
    const body = eventBody(order, status);
    const signature = await signWebhookBody(options.appSecret, body);
    let answer = "not sent";
    for (let attempt = 0; attempt < WEBHOOK_ATTEMPTS; attempt++) {
      try {
        const res = await fetch(options.webhookUrl, { method: "POST", headers: { "content-type": "application/json", "x-onramp-signature": signature }, body });
        answer = `${res.status} ${await res.text()}`;
        if (res.ok) break;
      } catch (err) {
        answer = `unreachable: ${(err as Error).message}`;
      }
      await Bun.sleep(200 * 2 ** attempt);
    }
    order.webhooks.push({ status, code, answer });
    log(`on-ramp simulator: order ${order.orderId} ${status} -> ${answer.slice(0, 120)}`);
  }

  async function deliverPurchase(order: SimulatedOrder): Promise<void> {
    const amount = parseEther(order.cryptoAmount);
    const run = deliveries.then(async () => {
      const balance = await client.getBalance({ address: provider.address });
      if (balance < amount + parseEther("1")) {
        await rpc(options.rpcUrl, "anvil_setBalance", [provider.address, `0x${(balance + amount + parseEther("1000000")).toString(16)}`]);
      }
      const hash = await wallet.sendTransaction({ to: order.walletAddress, value: amount });
      const receipt = await client.waitForTransactionReceipt({ hash, timeout: 30_000 });
      if (receipt.status !== "success") throw new Error("the delivery reverted");
      return hash;
    });
    deliveries = run.catch(() => undefined);
    order.transactionHash = await run;
  }

  function watchDeposit(order: SimulatedOrder): void {
    const deadline = Date.now() + saleTimeoutMs;
    const wanted = parseEther(order.cryptoAmount);
    let checking = false;
    const timer = setInterval(async () => {
      if (checking) return;
      checking = true;
      try {
        const received = await client.getBalance({ address: order.depositAddress! });
        if (received >= wanted || Date.now() > deadline) {
          clearInterval(timer);
          watchers.delete(timer);
          order.state = received >= wanted ? "success" : "failed";
          if (order.state === "failed") order.error = "the XDC did not arrive in time";
          await webhook(order, order.state);
        }
      } catch {
        // the chain did not answer: try again on the next tick
      } finally {
        checking = false;
      }
    }, 250);
    watchers.add(timer);
  }

  const back = (order: SimulatedOrder) => {
    const url = new URL(order.redirectUrl);
    url.searchParams.set("status", order.state === "success" ? "success" : order.state === "failed" ? "failed" : "pending");
    url.searchParams.set("orderId", String(order.orderId));
    return url.toString();
  };

  const app = new Hono();
  for (const kind of ["buy", "sell"] as const) {
    app.get(`/main/${kind}/`, (c) => {
      const q = c.req.query();
      const problem = checkStart(q, options.appId);
      if (problem) return c.html(messagePage("Cannot start this order", problem), 400);
      return c.html(startPage({ kind, walletAddress: getAddress(xdcTo0x(q.walletAddress!)), redirectUrl: q.redirectUrl!, merchantRecognitionId: q.merchantRecognitionId!, paisePerXdc }));
    });
  }
  app.post("/orders", async (c) => {
    const form = await c.req.parseBody();
    const field = (name: string) => (typeof form[name] === "string" ? (form[name] as string).trim() : "");
    const kind = field("kind") === "sell" ? "sell" : "buy";
    const problem = checkStart({ appId: options.appId, walletAddress: field("walletAddress"), redirectUrl: field("redirectUrl"), merchantRecognitionId: field("merchantRecognitionId") }, options.appId);
    if (problem) return c.html(messagePage("Cannot start this order", problem), 400);
    const amount = field("amount");
    if (!/^\d+(\.\d{1,4})?$/.test(amount) || Number(amount) <= 0) return c.html(messagePage("Invalid amount", "Enter an amount above 0 with at most 4 decimals."), 400);
    const order: SimulatedOrder = {
      orderId: nextOrderId++,
      kind,
      merchantRecognitionId: field("merchantRecognitionId"),
      walletAddress: getAddress(xdcTo0x(field("walletAddress"))),
      redirectUrl: field("redirectUrl"),
      fiatAmount: kind === "buy" ? amount : xdcToInr(amount, paisePerXdc),
      cryptoAmount: kind === "buy" ? inrToXdc(amount, paisePerXdc) : formatXdc(amount),
      state: "created",
      webhooks: [],
      createdAt: new Date(),
    };
    orders.set(order.orderId, order);
    // The provider reports a purchase as soon as its amount is chosen (status 0, "initiated"): an order whose tab
    // is closed before paying still shows what was asked for, then expires (issue 27).
    if (kind === "buy") await webhook(order, "initiated");
    return c.redirect(`/orders/${order.orderId}`, 303);
  });
  app.get("/orders/:id", (c) => {
    const order = orders.get(Number(c.req.param("id")));
    if (!order) return c.html(messagePage("Order not found", "This order does not exist (the simulator keeps orders in memory)."), 404);
    return c.html(orderPage(order, back(order)));
  });
  app.post("/orders/:id/complete", async (c) => {
    const order = orders.get(Number(c.req.param("id")));
    if (!order) return c.html(messagePage("Order not found", "This order does not exist."), 404);
    if (order.state !== "created") return c.redirect(`/orders/${order.orderId}`, 303);
    if (order.kind === "buy") {
      order.state = "delivering";
      await webhook(order, "pending");
      try {
        await deliverPurchase(order);
        order.state = "success";
      } catch (err) {
        order.state = "failed";
        order.error = (err as Error).message;
      }
      await webhook(order, order.state);
      return c.redirect(back(order), 303);
    }
    order.depositAddress = privateKeyToAccount(generatePrivateKey()).address;
    order.state = "awaiting_crypto";
    await webhook(order, "pending");
    watchDeposit(order);
    return c.redirect(`/orders/${order.orderId}`, 303);
  });
  app.post("/orders/:id/fail", async (c) => {
    const order = orders.get(Number(c.req.param("id")));
    if (!order) return c.html(messagePage("Order not found", "This order does not exist."), 404);
    if (order.state !== "created") return c.redirect(`/orders/${order.orderId}`, 303);
    order.state = "failed";
    order.error = "the payment failed";
    await webhook(order, "failed");
    return c.redirect(back(order), 303);
  });
  // The order-status call (api/services/onramp/provider.ts): signed both ways; 404 for an order never taken up.
  app.post("/api/order-status", async (c) => {
    const raw = await c.req.text();
    if (!(await verifyWebhookSignature(options.appSecret, raw, c.req.header(SIGNATURE_HEADER)))) return c.json({ error: "invalid signature" }, 401);
    let asked: { appId?: unknown; merchantRecognitionId?: unknown };
    try {
      asked = JSON.parse(raw);
    } catch {
      return c.json({ error: "malformed JSON" }, 400);
    }
    if (asked.appId !== options.appId) return c.json({ error: "unknown appId" }, 403);
    const order = [...orders.values()].find((o) => o.merchantRecognitionId === asked.merchantRecognitionId);
    if (!order) return c.json({ error: "order not found" }, 404);
    const body = eventBody(order, statusOf(order));
    return c.body(body, 200, { "content-type": "application/json", [SIGNATURE_HEADER]: await signWebhookBody(options.appSecret, body) });
  });
  app.get("/", (c) => c.html(messagePage("On-ramp simulator", "Open the buy or sell page from the Issuepool wallet.")));
  const paisePer = { XDC: paisePerXdc, USDC: options.paisePerUsdc ?? 8400n };
  let url = "";
  const sell = addSellApi(app, () => url, {
    appId: options.appId,
    appSecret: options.appSecret,
    webhookUrl: options.webhookUrl,
    rpcUrl: options.rpcUrl,
    chain,
    usdcAddress: options.usdcAddress,
    paisePer,
    quoteTtlMs: options.quoteTtlMs,
    depositTimeoutMs: saleTimeoutMs,
    log,
  });
  addPriceApi(app, paisePer, options.priceCoinIds ?? { "xdce-crowd-sale": "XDC", "usd-coin": "USDC" });

  const server = Bun.serve({ hostname: "127.0.0.1", port: options.port ?? 0, fetch: app.fetch });
  url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    orders,
    sell,
    priceUrl: `${url}/api/v3/simple/price`,
    async stop() {
      sell.stop();
      for (const timer of watchers) clearInterval(timer);
      await server.stop(true);
    },
  };
}

function xdcTo0x(address: string): string {
  return /^xdc/i.test(address) ? `0x${address.slice(3)}` : address;
}

/** What the provider checks before showing its page: its app, a wallet, where to return, our reference. */
function checkStart(q: Record<string, string | undefined>, appId: string): string | undefined {
  if (q.appId !== appId) return "Unknown appId.";
  if (!q.walletAddress || !isAddress(xdcTo0x(q.walletAddress), { strict: false })) return "walletAddress is missing or not an address.";
  if (!q.merchantRecognitionId) return "merchantRecognitionId is missing.";
  try {
    const url = new URL(q.redirectUrl ?? "");
    if (url.protocol !== "http:" && url.protocol !== "https:") return "redirectUrl must be an http(s) URL.";
  } catch {
    return "redirectUrl must be an http(s) URL.";
  }
  return undefined;
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

async function rpcChainId(url: string): Promise<number> {
  return Number(await rpc(url, "eth_chainId", []));
}
