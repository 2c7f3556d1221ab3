/**
 * The simulator's sell-side API (issue 40), as api/services/onramp/sell-api.ts describes it: quotes, KYC states,
 * orders with a fresh deposit address, the INR payout to a UPI id (success, or failure with the crypto returned
 * from the deposit address to the wallet), signed webhooks and the order-status call. Calls and answers are
 * signed like the provider's webhooks.
 *
 * Like a payment provider's sandbox, the outcome follows the UPI id: a UPI id whose name is `failure`
 * (`failure@upi`) has its payout fail, every other one succeeds (`payoutOutcome` overrides it per UPI id). KYC is
 * approved unless set otherwise per customer (`setKyc`, or its page `/kyc/{customerId}`).
 */
import { DECIMALS, unitOf } from "../../lib/money.ts";
import type { Hono } from "hono";
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, formatUnits, getAddress, http, isAddress, parseUnits, type Address, type Chain, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { SIGNATURE_HEADER, signWebhookBody, verifyWebhookSignature } from "../../api/services/onramp/provider.ts";
import { SELL_EVENT_TYPE, SELL_STATUS, type KycStatus } from "../../api/services/onramp/sell-api.ts";
import { kycPage, messagePage } from "./pages.ts";

export interface SellApiOptions {
  appId: string;
  appSecret: string;
  webhookUrl: string;
  rpcUrl: string;
  chain: Chain;
  /** The USDC token on the local chain (USDC cash-outs); unset: only XDC is bought. */
  usdcAddress?: Address;
  /** Paise per whole coin. */
  paisePer: { XDC: bigint; USDC: bigint };
  /** The provider's fee, in basis points of the INR (default 100: 1 %). */
  feeBps?: bigint;
  quoteTtlMs?: number;
  /** How long an order waits for its deposit before it expires. */
  depositTimeoutMs?: number;
  /** Between two steps of a payout (crypto received, INR sent, done). */
  stepMs?: number;
  log: (message: string) => void;
}

interface SimQuote {
  quoteId: string;
  coin: "XDC" | "USDC";
  cryptoAmount: string;
  rate: string;
  providerFee: string;
  fiatAmount: string;
  expiresAt: number;
}

export interface SimSellOrder {
  orderId: number;
  merchantRecognitionId: string;
  coin: "XDC" | "USDC";
  cryptoAmount: string;
  fiatAmount: string;
  depositKey: Hex;
  depositAddress: Address;
  walletAddress: Address;
  upiId: string;
  status: number;
  payoutReference?: string;
  refundTransactionHash?: Hex;
  reason?: string;
  /** Every webhook sent: status code, the signed body and the platform's answer. */
  webhooks: { status: number; body: string; answer: string }[];
}

export interface SellSimulator {
  orders: Map<number, SimSellOrder>;
  setKyc(customerId: string, status: KycStatus): void;
  /** Overrides the sandbox rule for one UPI id. */
  payoutOutcome(upiId: string, outcome: "success" | "fail"): void;
  /** A provider that is down answers 503 to every call. */
  setDown(down: boolean): void;
  /**
   * Orders are still made, but their answers are held until the returned function is called (a lost answer, for
   * crash tests: the caller dies while the provider already has the order).
   */
  holdOrderAnswers(): () => void;
  stop(): void;
}

const COINS: Record<string, "XDC" | "USDC"> = { xdc: "XDC", usdc: "USDC" };
const UPI_ID = /^[a-zA-Z0-9.\-_]{2,256}@[a-zA-Z]{2,64}$/;
const WEBHOOK_ATTEMPTS = 6;

const paiseText = (paise: bigint) => `${paise / 100n}.${String(paise % 100n).padStart(2, "0")}`;

export function addSellApi(app: Hono, baseUrl: () => string, options: SellApiOptions): SellSimulator {
  const client = createPublicClient({ chain: options.chain, transport: http(options.rpcUrl), pollingInterval: 50 });
  const feeBps = options.feeBps ?? 100n;
  const quoteTtlMs = options.quoteTtlMs ?? 60_000;
  const depositTimeoutMs = options.depositTimeoutMs ?? 120_000;
  const stepMs = options.stepMs ?? 300;
  const quotes = new Map<string, SimQuote>();
  const orders = new Map<number, SimSellOrder>();
  const byReference = new Map<string, SimSellOrder>();
  const kyc = new Map<string, KycStatus>();
  const outcomes = new Map<string, "success" | "fail">();
  const timers = new Set<ReturnType<typeof setTimeout> | ReturnType<typeof setInterval>>();
  let down = false;
  let orderGate: Promise<void> | undefined;
  let nextOrderId = Date.now() * 10;
  let nextQuote = 1;

  const signed = async (body: unknown, status = 200) => {
    const text = JSON.stringify(body);
    return new Response(text, { status, headers: { "content-type": "application/json", [SIGNATURE_HEADER]: await signWebhookBody(options.appSecret, text) } });
  };
  const refuse = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) => signed({ code, message, ...extra }, status);

  /** The caller's signed JSON, or the answer that refuses it. */
  async function request(raw: string, signature: string | undefined): Promise<Record<string, unknown> | Response> {
    if (down) return new Response(JSON.stringify({ error: "service unavailable" }), { status: 503 });
    if (!(await verifyWebhookSignature(options.appSecret, raw, signature))) return new Response(JSON.stringify({ error: "invalid signature" }), { status: 401 });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return refuse(400, "malformed_json", "The body is not JSON.");
    }
    if (body.appId !== options.appId) return refuse(403, "unknown_app", "Unknown appId.");
    return body;
  }

  const orderBody = (order: SimSellOrder) => ({
    orderId: order.orderId,
    merchantRecognitionId: order.merchantRecognitionId,
    eventType: SELL_EVENT_TYPE,
    status: order.status,
    coinCode: order.coin.toLowerCase(),
    cryptoAmount: order.cryptoAmount,
    fiatAmount: order.fiatAmount,
    depositAddress: order.depositAddress,
    walletAddress: order.walletAddress,
    ...(order.payoutReference ? { payoutReference: order.payoutReference } : {}),
    ...(order.refundTransactionHash ? { refundTransactionHash: order.refundTransactionHash } : {}),
    ...(order.reason ? { reason: order.reason } : {}),
  });

  async function webhook(order: SimSellOrder): Promise<void> {
    const body = JSON.stringify(orderBody(order));
    const signature = await signWebhookBody(options.appSecret, body);
    let answer = "not sent";
    for (let attempt = 0; attempt < WEBHOOK_ATTEMPTS; attempt++) {
      try {
        const res = await fetch(options.webhookUrl, { method: "POST", headers: { "content-type": "application/json", [SIGNATURE_HEADER]: signature }, body });
        answer = `${res.status} ${await res.text()}`;
        if (res.ok) break;
      } catch (err) {
        answer = `unreachable: ${(err as Error).message}`;
      }
      await Bun.sleep(200 * 2 ** attempt);
    }
    order.webhooks.push({ status: order.status, body, answer });
    options.log(`on-ramp simulator: sell order ${order.orderId} status ${order.status} -> ${answer.slice(0, 120)}`);
  }

  const later = (ms: number, run: () => Promise<void>) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run().catch((err) => options.log(`on-ramp simulator: sell step failed: ${(err as Error).message}`));
    }, ms);
    timers.add(timer);
  };

  async function depositBalance(order: SimSellOrder): Promise<bigint> {
    if (order.coin === "XDC") return client.getBalance({ address: order.depositAddress });
    return client.readContract({ address: options.usdcAddress!, abi: erc20Abi, functionName: "balanceOf", args: [order.depositAddress] });
  }

  /** The crypto goes back from the deposit address to the wallet (the deposit address gets test XDC for the gas). */
  async function refund(order: SimSellOrder): Promise<Hex> {
    const amount = parseUnits(order.cryptoAmount, DECIMALS[order.coin]);
    const gasMoney = unitOf("XDC"); // 1 XDC for the gas
    const held = await client.getBalance({ address: order.depositAddress });
    await rpc(options.rpcUrl, "anvil_setBalance", [order.depositAddress, `0x${(held + gasMoney).toString(16)}`]);
    const wallet = createWalletClient({ account: privateKeyToAccount(order.depositKey), chain: options.chain, transport: http(options.rpcUrl) });
    const hash =
      order.coin === "XDC"
        ? await wallet.sendTransaction({ to: order.walletAddress, value: amount })
        : await wallet.sendTransaction({ to: options.usdcAddress!, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [order.walletAddress, amount] }) });
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: 30_000 });
    if (receipt.status !== "success") throw new Error("the refund reverted");
    return hash;
  }

  /** Watches the deposit address; once the crypto is there, pays the INR out (or fails and returns the crypto). */
  function watchDeposit(order: SimSellOrder): void {
    const deadline = Date.now() + depositTimeoutMs;
    const wanted = parseUnits(order.cryptoAmount, DECIMALS[order.coin]);
    let checking = false;
    const timer = setInterval(async () => {
      if (checking) return;
      checking = true;
      try {
        const received = await depositBalance(order);
        if (received < wanted && Date.now() <= deadline) return;
        clearInterval(timer);
        timers.delete(timer);
        if (received < wanted) {
          order.status = SELL_STATUS.expired;
          order.reason = "no deposit arrived in time";
          await webhook(order);
          return;
        }
        order.status = SELL_STATUS.cryptoReceived;
        await webhook(order);
        later(stepMs, async () => {
          order.status = SELL_STATUS.fiatSent;
          await webhook(order);
          later(stepMs, async () => {
            const fails = outcomes.get(order.upiId) === "fail" || (!outcomes.has(order.upiId) && order.upiId.split("@")[0]!.toLowerCase() === "failure");
            if (!fails) {
              order.status = SELL_STATUS.completed;
              order.payoutReference = `SIMUTR${String(order.orderId).slice(-10)}`;
              await webhook(order);
              return;
            }
            order.status = SELL_STATUS.payoutFailed;
            order.reason = "the bank refused the UPI payout (simulated)";
            await webhook(order);
            order.refundTransactionHash = await refund(order);
            order.status = SELL_STATUS.refunded;
            await webhook(order);
          });
        });
      } catch {
        // the chain did not answer: the next tick asks again
      } finally {
        checking = false;
      }
    }, 250);
    timers.add(timer);
  }

  app.post("/offramp/quote", async (c) => {
    const body = await request(await c.req.text(), c.req.header(SIGNATURE_HEADER));
    if (body instanceof Response) return body;
    const coin = COINS[String(body.coinCode)];
    if (!coin || (coin === "USDC" && !options.usdcAddress)) return refuse(400, "unsupported_coin", `The provider does not buy ${String(body.coinCode)}.`);
    const text = String(body.cryptoAmount ?? "");
    if (!/^\d+(\.\d+)?$/.test(text)) return refuse(400, "invalid_amount", "cryptoAmount must be a decimal amount.");
    let units: bigint;
    try {
      units = parseUnits(text, DECIMALS[coin]);
    } catch {
      return refuse(400, "invalid_amount", "cryptoAmount has too many decimals.");
    }
    if (units <= 0n) return refuse(400, "invalid_amount", "cryptoAmount must be above 0.");
    const gross = (units * options.paisePer[coin]) / 10n ** BigInt(DECIMALS[coin]);
    const fee = (gross * feeBps + 9_999n) / 10_000n;
    if (gross - fee < 100n) return refuse(400, "below_minimum", "The provider pays out at least ₹1.00.");
    const quote: SimQuote = {
      quoteId: `q_${nextQuote++}_${crypto.randomUUID().slice(0, 8)}`,
      coin,
      cryptoAmount: formatUnits(units, DECIMALS[coin]),
      rate: paiseText(options.paisePer[coin]),
      providerFee: paiseText(fee),
      fiatAmount: paiseText(gross - fee),
      expiresAt: Date.now() + quoteTtlMs,
    };
    quotes.set(quote.quoteId, quote);
    return signed({ ...quote, coinCode: coin.toLowerCase(), expiresAt: new Date(quote.expiresAt).toISOString() });
  });

  const kycOf = (customerId: string) => kyc.get(customerId) ?? "approved";
  const kycAnswer = (customerId: string) => ({ customerId, kycStatus: kycOf(customerId), ...(kycOf(customerId) === "approved" ? {} : { kycUrl: `${baseUrl()}/kyc/${encodeURIComponent(customerId)}` }) });

  app.post("/offramp/kyc", async (c) => {
    const body = await request(await c.req.text(), c.req.header(SIGNATURE_HEADER));
    if (body instanceof Response) return body;
    if (typeof body.customerId !== "string" || !body.customerId) return refuse(400, "invalid_customer", "customerId is required.");
    return signed(kycAnswer(body.customerId));
  });

  app.post("/offramp/orders", async (c) => {
    const body = await request(await c.req.text(), c.req.header(SIGNATURE_HEADER));
    if (body instanceof Response) return body;
    const reference = typeof body.merchantRecognitionId === "string" ? body.merchantRecognitionId : "";
    if (!reference) return refuse(400, "invalid_reference", "merchantRecognitionId is required.");
    // The same reference again is the same order (the merchant retried after a lost answer).
    const existing = byReference.get(reference);
    if (existing) return signed(orderBody(existing));
    const quote = quotes.get(String(body.quoteId));
    if (!quote) return refuse(404, "quote_not_found", "No such quote.");
    if (quote.expiresAt < Date.now()) return refuse(410, "quote_expired", "The quote has expired: ask for a new one.");
    const customerId = String(body.customerId ?? "");
    const state = kycOf(customerId);
    if (state !== "approved") return refuse(403, `kyc_${state}`, `KYC ${state}.`, kycAnswer(customerId));
    const payout = body.payout as { method?: unknown; upiId?: unknown } | undefined;
    const upiId = typeof payout?.upiId === "string" ? payout.upiId : "";
    if (payout?.method !== "upi" || !UPI_ID.test(upiId)) return refuse(400, "invalid_upi", "The UPI id is not valid.");
    const walletAddress = typeof body.walletAddress === "string" && isAddress(body.walletAddress) ? getAddress(body.walletAddress) : undefined;
    if (!walletAddress) return refuse(400, "invalid_wallet", "walletAddress (where a refund goes) is required.");
    const depositKey = generatePrivateKey();
    const order: SimSellOrder = {
      orderId: nextOrderId++,
      merchantRecognitionId: reference,
      coin: quote.coin,
      cryptoAmount: quote.cryptoAmount,
      fiatAmount: quote.fiatAmount,
      depositKey,
      depositAddress: privateKeyToAccount(depositKey).address,
      walletAddress,
      upiId,
      status: SELL_STATUS.awaitingDeposit,
      webhooks: [],
    };
    quotes.delete(quote.quoteId); // a quote makes one order
    orders.set(order.orderId, order);
    byReference.set(reference, order);
    watchDeposit(order);
    if (orderGate) await orderGate;
    return signed(orderBody(order));
  });

  app.post("/offramp/order-status", async (c) => {
    const body = await request(await c.req.text(), c.req.header(SIGNATURE_HEADER));
    if (body instanceof Response) return body;
    const order = byReference.get(String(body.merchantRecognitionId));
    if (!order) return refuse(404, "order_not_found", "No order under this reference.");
    return signed(orderBody(order));
  });

  // The provider's KYC page, where the customer proves who they are (simulated: one button).
  app.get("/kyc/:customerId", (c) => {
    const id = c.req.param("customerId");
    return c.html(kycPage(id, kycOf(id)));
  });
  app.post("/kyc/:customerId", (c) => {
    kyc.set(c.req.param("customerId"), "approved");
    return c.html(messagePage("Identity verified", "You can return to Issuepool and cash out."));
  });

  return {
    orders,
    setKyc: (customerId, status) => void kyc.set(customerId, status),
    payoutOutcome: (upiId, outcome) => void outcomes.set(upiId, outcome),
    setDown: (value) => void (down = value),
    holdOrderAnswers() {
      let release!: () => void;
      orderGate = new Promise((resolve) => (release = resolve));
      return () => {
        orderGate = undefined;
        release();
      };
    },
    stop() {
      for (const timer of timers) clearTimeout(timer as ReturnType<typeof setTimeout>);
      timers.clear();
    },
  };
}

/**
 * Prices in the shape of CoinGecko's `simple/price` (what PRICE_SOURCE_URL speaks), from the simulator's made-up
 * rates: INR as the sell side quotes, USD at ₹84 per dollar. For statements in the embedded default.
 */
export function addPriceApi(app: Hono, paisePer: { XDC: bigint; USDC: bigint }, coinIds: Record<string, "XDC" | "USDC">): void {
  app.get("/api/v3/simple/price", (c) => {
    const ids = (c.req.query("ids") ?? "").split(",").filter(Boolean);
    const at = Math.floor(Date.now() / 1000);
    const answer: Record<string, { usd: number; inr: number; last_updated_at: number }> = {};
    for (const id of ids) {
      const coin = coinIds[id];
      if (!coin) continue;
      const paise = paisePer[coin];
      // Whole paise to rupees, and rupees at 84 to the dollar, as decimal texts read as JSON numbers.
      answer[id] = { inr: Number(paiseText(paise)), usd: Number((Number(paise) / 8400).toFixed(6)), last_updated_at: at };
    }
    return c.json(answer);
  });
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}
