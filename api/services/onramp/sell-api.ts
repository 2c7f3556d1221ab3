import { z } from "zod";
import type { Env } from "../../env.ts";
import { SIGNATURE_HEADER, signWebhookBody, verifyWebhookSignature } from "./provider.ts";

/**
 * The provider's sell-side (off-ramp) API, for cash-outs to UPI (issue 40), shaped like onramp.money's merchant
 * off-ramp API. Everything that is the provider's convention for selling lives here, beside provider.ts (its
 * hosted pages and webhooks); the local simulator (scripts/onramp-simulator/sell-api.ts) speaks the same protocol.
 *
 * Every call is `POST {ONRAMP_API_URL}/offramp/<call>` with a JSON body carrying `appId`, signed like a webhook
 * (`X-Onramp-Signature`: lowercase hex HMAC-SHA512 of the raw body under ONRAMP_APP_SECRET); every answer is
 * signed the same way, and an answer whose signature does not verify is treated as the provider being down
 * (nothing is acted on). Errors are `{ code, message }` with a 4xx status.
 *
 *   quote        { coinCode, network, fiatType, cryptoAmount }           -> { quoteId, rate, providerFee, fiatAmount, expiresAt }
 *   kyc          { customerId }                                           -> { kycStatus: approved|required|pending|rejected, kycUrl? }
 *   orders       { quoteId, merchantRecognitionId, customerId, walletAddress, payout: { method: "upi", upiId } }
 *                                                                          -> the order (below); the same reference again returns the same order
 *   order-status { merchantRecognitionId }                                -> the order, or 404 for one it never took
 *
 * The order (answer and webhook body, `eventType: "offramp_payout"`): orderId, merchantRecognitionId, status
 * (code below), coinCode, cryptoAmount, fiatAmount, depositAddress, walletAddress (where a refund goes),
 * depositTransactionHash, payoutReference (the bank's UTR), refundTransactionHash, reason.
 *
 * **Map this onto the provider's current off-ramp API before going live** (README, "Cash-out to UPI"): the calls'
 * paths, the status codes and the KYC states are the ones the simulator speaks.
 */
export const SELL_EVENT_TYPE = "offramp_payout";

/** The provider's status codes of a sell order, and what each means to us. */
export const SELL_STATUS = {
  awaitingDeposit: 1,
  cryptoReceived: 2,
  fiatSent: 3,
  completed: 4,
  /** The INR payout failed after the deposit: the provider returns the crypto to `walletAddress`. */
  payoutFailed: -1,
  /** The crypto was returned (`refundTransactionHash`). */
  refunded: -2,
  /** No deposit arrived in time; a deposit that arrives later is returned. */
  expired: -3,
} as const;

export const KYC_STATUSES = ["approved", "required", "pending", "rejected"] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

/** The provider's coin codes for what it buys from us. */
export const SELL_COIN_CODE = { XDC: "xdc", USDC: "usdc" } as const;
export type SellCurrency = keyof typeof SELL_COIN_CODE;

const decimal = z.union([z.string().regex(/^\d+(\.\d+)?$/).max(80), z.number().nonnegative()]).transform(String);

export const SellQuote = z.object({
  quoteId: z.string().min(1).max(128),
  coinCode: z.string(),
  cryptoAmount: decimal,
  /** INR per whole coin. */
  rate: decimal,
  providerFee: decimal,
  fiatAmount: decimal,
  expiresAt: z.string().datetime({ offset: true }),
});
export type SellQuote = z.infer<typeof SellQuote>;

export const KycAnswer = z.object({ customerId: z.string(), kycStatus: z.enum(KYC_STATUSES), kycUrl: z.string().url().optional(), reason: z.string().max(500).optional() });
export type KycAnswer = z.infer<typeof KycAnswer>;

export const SellOrder = z.object({
  orderId: z.union([z.string().min(1).max(64), z.number().int().nonnegative()]).transform(String),
  merchantRecognitionId: z.string().min(1).max(128),
  eventType: z.literal(SELL_EVENT_TYPE).optional(),
  status: z.number().int(),
  coinCode: z.string().max(16),
  cryptoAmount: decimal,
  fiatAmount: decimal.optional(),
  depositAddress: z.string().max(64),
  walletAddress: z.string().max(64),
  depositTransactionHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).optional(),
  payoutReference: z.string().max(64).optional(),
  refundTransactionHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).optional(),
  reason: z.string().max(500).optional(),
});
export type SellOrder = z.infer<typeof SellOrder>;

/** A refusal the provider answered with (4xx): its code and sentence. */
export class SellApiRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The provider could not be asked (not configured, unreachable, 5xx, an unsigned or malformed answer). */
export class SellApiUnavailable extends Error {}

type SellEnv = Pick<Env, "ONRAMP_API_URL" | "ONRAMP_APP_ID" | "ONRAMP_APP_SECRET">;

export const sellApiConfigured = (env: Pick<Env, "ONRAMP_API_URL">) => Boolean(env.ONRAMP_API_URL);

const TIMEOUT_MS = 8000;

/** A connection closed under a request (not a timeout, not a refused connection). */
const connectionReset = (err: unknown) => (err as { code?: unknown } | null)?.code === "ECONNRESET";

async function call<T>(env: SellEnv, path: string, body: Record<string, unknown>, schema: z.ZodType<T>, options: { notFound?: true } = {}): Promise<T | undefined> {
  if (!env.ONRAMP_API_URL) throw new SellApiUnavailable("the provider's sell-side API (ONRAMP_API_URL) is not configured");
  const raw = JSON.stringify({ appId: env.ONRAMP_APP_ID, ...body });
  const headers = { "content-type": "application/json", [SIGNATURE_HEADER]: await signWebhookBody(env.ONRAMP_APP_SECRET, raw) };
  let res: Response | undefined;
  for (let attempt = 1; !res; attempt++) {
    try {
      res = await fetch(`${env.ONRAMP_API_URL}/offramp/${path}`, { method: "POST", headers, body: raw, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      // A kept-alive connection the provider closed (its idle timeout) just as we reused it fails at once with a
      // reset, before any answer: asked again once, on a new connection. Every call here is safe to repeat: quotes
      // and statuses are reads, and an order is keyed by our merchant reference (the same reference again is the
      // same order). A timeout is not repeated.
      if (attempt === 1 && connectionReset(err)) continue;
      throw new SellApiUnavailable(`the provider did not answer: ${(err as Error).message}`);
    }
  }
  const text = await res.text();
  if (res.status === 404 && options.notFound) return undefined;
  if (res.status >= 500) throw new SellApiUnavailable(`the provider answered ${res.status}`);
  // Its answers are signed like its webhooks: an answer we cannot verify is not acted on.
  if (!(await verifyWebhookSignature(env.ONRAMP_APP_SECRET, text, res.headers.get(SIGNATURE_HEADER) ?? undefined))) {
    throw new SellApiUnavailable(`the provider's answer (${res.status}) is not signed with our secret`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SellApiUnavailable("the provider's answer is not JSON");
  }
  if (!res.ok) {
    const refusal = z.object({ code: z.string().max(64), message: z.string().max(500) }).passthrough().safeParse(json);
    if (!refusal.success) throw new SellApiUnavailable(`the provider answered ${res.status} without a reason`);
    const { code, message, ...details } = refusal.data;
    throw new SellApiRefusal(res.status, code, message, details);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new SellApiUnavailable(`the provider's answer does not read as expected: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

export async function requestSellQuote(env: SellEnv, input: { currency: SellCurrency; cryptoAmount: string }): Promise<SellQuote> {
  return (await call(env, "quote", { coinCode: SELL_COIN_CODE[input.currency], network: "xdc", fiatType: 1, cryptoAmount: input.cryptoAmount }, SellQuote))!;
}

export async function kycStatus(env: SellEnv, customerId: string): Promise<KycAnswer> {
  return (await call(env, "kyc", { customerId }, KycAnswer))!;
}

export async function createSellOrder(
  env: SellEnv,
  input: { quoteId: string; merchantReference: string; customerId: string; walletAddress: string; upiId: string },
): Promise<SellOrder> {
  return (await call(
    env,
    "orders",
    {
      quoteId: input.quoteId,
      merchantRecognitionId: input.merchantReference,
      customerId: input.customerId,
      walletAddress: input.walletAddress,
      payout: { method: "upi", upiId: input.upiId },
    },
    SellOrder,
  ))!;
}

/** Where the order stands; undefined when the provider never took it (no order was made under this reference). */
export async function sellOrderStatus(env: SellEnv, merchantReference: string): Promise<SellOrder | undefined> {
  return call(env, "order-status", { merchantRecognitionId: merchantReference }, SellOrder, { notFound: true });
}
