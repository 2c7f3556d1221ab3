import type { Env } from "../../env.ts";
import type { Currency } from "../../../db/schema/index.ts";

/**
 * The configured price source of statements and receipts (issue 40, item 4). Two kinds:
 * - PRICE_SOURCE_URL: a CoinGecko-compatible `simple/price` endpoint, asked
 *   `?ids={coin ids}&vs_currencies=usd,inr&include_last_updated_at=true&precision=full`; PRICE_COIN_IDS names each
 *   currency's coin id; the source is named PRICE_SOURCE_NAME (default: the URL's host); the time is the source's
 *   `last_updated_at`.
 * - else XDC_USD_PRICE: a fixed XDC price in USD, named XDC_USD_PRICE_SOURCE, timed when it is recorded.
 * Neither: no price, and statements say so (no value is made up). Prices are decimal strings per whole token,
 * written as the source wrote them (JSON numbers read back as their shortest decimal form).
 */
export interface PriceQuote {
  currency: Currency;
  usd: string | null;
  inr: string | null;
  source: string;
  pricedAt: Date;
}

type PriceEnv = Pick<Env, "PRICE_SOURCE_URL" | "PRICE_SOURCE_NAME" | "PRICE_COIN_IDS" | "XDC_USD_PRICE" | "XDC_USD_PRICE_SOURCE">;

export const priceSourceConfigured = (env: PriceEnv) => Boolean(env.PRICE_SOURCE_URL || env.XDC_USD_PRICE);

export function priceSourceName(env: PriceEnv): string | null {
  if (env.PRICE_SOURCE_URL) return env.PRICE_SOURCE_NAME ?? new URL(env.PRICE_SOURCE_URL).host;
  if (env.XDC_USD_PRICE) return env.XDC_USD_PRICE_SOURCE ?? "configured XDC price";
  return null;
}

export function coinIds(env: Pick<Env, "PRICE_COIN_IDS">): Map<Currency, string> {
  return new Map(env.PRICE_COIN_IDS.split(",").map((pair) => pair.split(":") as [Currency, string]));
}

/** A JSON number as a plain decimal string (never exponent notation). */
export function decimalOf(value: unknown): string | null {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return null;
  const text = String(value);
  if (!/e/i.test(text)) return text;
  return value.toFixed(20).replace(/0+$/, "").replace(/\.$/, "");
}

/** The prices of these currencies now, from the configured source; currencies it does not price are left out. */
export async function currentPrices(env: PriceEnv, currencies: Currency[], now = Date.now()): Promise<Map<Currency, PriceQuote>> {
  const prices = new Map<Currency, PriceQuote>();
  const name = priceSourceName(env);
  if (!name) return prices;
  if (!env.PRICE_SOURCE_URL) {
    if (currencies.includes("XDC")) prices.set("XDC", { currency: "XDC", usd: env.XDC_USD_PRICE!, inr: null, source: name, pricedAt: new Date(now) });
    return prices;
  }
  const ids = coinIds(env);
  const wanted = currencies.filter((c) => ids.has(c));
  if (!wanted.length) return prices;
  const url = new URL(env.PRICE_SOURCE_URL);
  url.searchParams.set("ids", wanted.map((c) => ids.get(c)!).join(","));
  url.searchParams.set("vs_currencies", "usd,inr");
  url.searchParams.set("include_last_updated_at", "true");
  url.searchParams.set("precision", "full");
  const res = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`the price source answered ${res.status}`);
  const body = (await res.json()) as Record<string, { usd?: unknown; inr?: unknown; last_updated_at?: unknown }>;
  for (const currency of wanted) {
    const entry = body[ids.get(currency)!];
    if (!entry) continue;
    const usd = decimalOf(entry.usd);
    const inr = decimalOf(entry.inr);
    if (usd === null && inr === null) continue;
    const at = typeof entry.last_updated_at === "number" ? new Date(entry.last_updated_at * 1000) : new Date(now);
    prices.set(currency, { currency, usd, inr, source: name, pricedAt: at });
  }
  return prices;
}

/**
 * `units` (10^-decimals of a token) at `price` per whole token, in hundredths of the fiat currency (cents, paise),
 * rounded half up: exact integer arithmetic, never a float.
 */
export function fiatValue(units: bigint, decimals: number, price: string): bigint {
  const [whole = "0", fraction = ""] = price.split(".");
  const scale = 18;
  const priceUnits = BigInt(whole) * 10n ** BigInt(scale) + BigInt((fraction.slice(0, scale) || "0").padEnd(scale, "0"));
  const denominator = 10n ** BigInt(decimals + scale);
  return (units * priceUnits * 100n + denominator / 2n) / denominator;
}

/** Hundredths as a decimal string with 2 places ("1234.50"). */
export const hundredths = (value: bigint) => `${value / 100n}.${String(value % 100n).padStart(2, "0")}`;
