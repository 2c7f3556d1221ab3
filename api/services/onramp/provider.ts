import { z } from "zod";
import { encodeHexLowerCase } from "@oslojs/encoding";
import type { Env } from "../../env.ts";
import { constantTimeEqualStrings } from "../../crypto/tokens.ts";
import type { ONRAMP_STATUSES } from "../../../db/schema/index.ts";

/**
 * The on-ramp provider, shaped like onramp.money: everything that is the
 * provider's convention (page URLs and their parameters, the webhook's
 * signature and fields, its numeric status codes) lives in this file, so
 * switching provider means changing this adapter only. The local simulator
 * (scripts/onramp-simulator) speaks the same protocol.
 *
 * Hosted pages: `${ONRAMP_URL}/main/buy/` and `/main/sell/` with appId,
 * walletAddress, coinCode, network, fiatType (1 = INR), redirectUrl and
 * merchantRecognitionId (our reference, returned in every webhook).
 *
 * Webhook: POST with a JSON body and `X-Onramp-Signature` = lowercase hex
 * HMAC-SHA512 of the raw body bytes under ONRAMP_APP_SECRET.
 */
export type OnrampStatus = (typeof ONRAMP_STATUSES)[number];
/** The statuses the provider reports; `expired` is ours (an order it never took up, orders.ts). */
export type ProviderStatus = Exclude<OnrampStatus, "expired">;
export type OnrampKind = "buy" | "sell";

export const ONRAMP_COIN_CODE = "xdc";
export const ONRAMP_NETWORK = "xdc";
/** The provider's fiat code for INR. */
export const FIAT_TYPE_INR = 1;
export const SIGNATURE_HEADER = "x-onramp-signature";

export function hostedPageUrl(
  env: Pick<Env, "ONRAMP_URL" | "ONRAMP_APP_ID">,
  kind: OnrampKind,
  params: { walletAddress: string; redirectUrl: string; merchantReference: string },
): string {
  const url = new URL(`${env.ONRAMP_URL}/main/${kind}/`);
  url.searchParams.set("appId", env.ONRAMP_APP_ID);
  url.searchParams.set("walletAddress", params.walletAddress);
  url.searchParams.set("coinCode", ONRAMP_COIN_CODE);
  url.searchParams.set("network", ONRAMP_NETWORK);
  url.searchParams.set("fiatType", String(FIAT_TYPE_INR));
  url.searchParams.set("redirectUrl", params.redirectUrl);
  url.searchParams.set("merchantRecognitionId", params.merchantReference);
  return url.toString();
}

async function hmacSha512Hex(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-512" }, false, ["sign"]);
  return encodeHexLowerCase(new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body))));
}

/** What the provider puts in X-Onramp-Signature (the simulator signs with this). */
export function signWebhookBody(secret: string, rawBody: string): Promise<string> {
  return hmacSha512Hex(secret, rawBody);
}

/** Compares in constant time; a missing or malformed signature is simply wrong. */
export async function verifyWebhookSignature(secret: string, rawBody: string, signature: string | undefined): Promise<boolean> {
  if (!signature || !/^[0-9a-fA-F]{128}$/.test(signature.trim())) return false;
  return constantTimeEqualStrings(await hmacSha512Hex(secret, rawBody), signature.trim().toLowerCase());
}

const amount = z.union([z.string().max(80), z.number().nonnegative()]).transform(String);

/** The fields of the provider's webhook that the platform reads (others are kept in the stored payload). */
export const OnrampWebhookPayload = z.object({
  orderId: z.union([z.string().min(1).max(64), z.number().int().nonnegative()]).transform(String),
  merchantRecognitionId: z.string().min(1).max(128),
  eventType: z.enum(["onramp", "offramp"]),
  status: z.number().int(),
  walletAddress: z.string().max(64),
  coinCode: z.string().max(16).optional(),
  network: z.string().max(32).optional(),
  fiatType: z.number().int().optional(),
  fiatAmount: amount.optional(),
  actualCryptoAmount: amount.optional(),
  expectedCryptoAmount: amount.optional(),
  transactionHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).optional(),
  /** Sells: where the provider waits for the crypto. */
  depositAddress: z.string().max(64).optional(),
});
export type OnrampWebhookPayload = z.infer<typeof OnrampWebhookPayload>;

/**
 * The provider's numeric status codes, as onramp.money publishes them
 * (negative: failed or abandoned; 0: created; then deposit and trade steps;
 * 4/5/15/16: completed and the crypto delivered). Check the provider's
 * current list before going live; an unknown code changes nothing.
 */
const STATUS_CODES: Record<number, ProviderStatus> = {
  [-4]: "failed",
  [-3]: "failed",
  [-2]: "failed",
  [-1]: "failed",
  0: "initiated",
  1: "pending",
  2: "pending",
  10: "pending",
  11: "pending",
  3: "processing",
  12: "processing",
  13: "processing",
  14: "processing",
  4: "success",
  5: "success",
  15: "success",
  16: "success",
};

export function statusOfCode(code: number): ProviderStatus | undefined {
  return STATUS_CODES[code];
}

/** A code for each status, for the simulator's webhooks. */
export const STATUS_CODE_OF: Record<ProviderStatus, number> = { initiated: 0, pending: 2, processing: 13, success: 4, failed: -1 };

/**
 * How far along a status is: the platform only ever moves an order forward.
 * `expired` sits just past `initiated`: the provider's word that it did take
 * the order up after all (pending and on) still counts, a late "created" does not.
 */
export const STATUS_RANK: Record<OnrampStatus, number> = { initiated: 0, expired: 0.5, pending: 1, processing: 2, success: 3, failed: 3 };

export const isTerminal = (status: string) => status === "success" || status === "failed";

/**
 * The provider's order-status call, for reconciling an order no webhook has
 * moved: `POST {ONRAMP_STATUS_URL}` with `{ appId, merchantRecognitionId }`,
 * signed like a webhook (X-Onramp-Signature over the raw body). The answer is
 * 200 with the order as its webhook would carry it, signed the same way (so it
 * is applied exactly like a webhook), or 404 when the provider never took the
 * order up (the visitor left its page). The local simulator speaks this;
 * **map it onto the provider's current order-status API before going live**.
 */
export interface OrderStatusAnswer {
  found: boolean;
  rawBody?: string;
  signature?: string;
}

export async function fetchOrderStatus(
  env: Pick<Env, "ONRAMP_STATUS_URL" | "ONRAMP_APP_ID" | "ONRAMP_APP_SECRET">,
  merchantReference: string,
  timeoutMs = 5000,
): Promise<OrderStatusAnswer> {
  if (!env.ONRAMP_STATUS_URL) throw new Error("ONRAMP_STATUS_URL is not set");
  const body = JSON.stringify({ appId: env.ONRAMP_APP_ID, merchantRecognitionId: merchantReference });
  const res = await fetch(env.ONRAMP_STATUS_URL, {
    method: "POST",
    headers: { "content-type": "application/json", [SIGNATURE_HEADER]: await signWebhookBody(env.ONRAMP_APP_SECRET, body) },
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (res.status === 404) return { found: false };
  if (!res.ok) throw new Error(`the provider's order status answered ${res.status}`);
  return { found: true, rawBody: await res.text(), signature: res.headers.get(SIGNATURE_HEADER) ?? undefined };
}
