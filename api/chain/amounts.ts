import { formatUnits } from "viem";
import { DECIMALS } from "../../lib/money.ts";

/**
 * Amounts at the API's edge: decimal strings in, smallest-unit bigints
 * inside, decimal strings out. Parsing is strict (no exponents, no more
 * decimals than the token has, no negatives), so "1e18", "-5" or
 * "0.0000000000000000001" XDC are refused instead of rounded. The decimals
 * of each currency are lib/money.ts's `DECIMALS`.
 */

export type ParsedAmount = { ok: true; value: bigint } | { ok: false; reason: "format" | "decimals" | "too_large" };

const MAX_WHOLE_DIGITS = 30;

export function parseAmount(input: unknown, decimals: number): ParsedAmount {
  // Strings as sent: " 2" or "2 " is refused, not trimmed (issue 25). JSON numbers in request bodies arrive here as
  // their exact source text (api/middleware/exact-amounts.ts); a number from code is taken only while it is exact.
  const text = typeof input === "number" && Number.isFinite(input) ? numberToPlain(input) : typeof input === "string" ? input : "";
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return { ok: false, reason: "format" };
  const [, whole, fraction = ""] = match;
  if (whole!.replace(/^0+/, "").length > MAX_WHOLE_DIGITS) return { ok: false, reason: "too_large" };
  const trimmedFraction = fraction.replace(/0+$/, "");
  if (trimmedFraction.length > decimals) return { ok: false, reason: "decimals" };
  return { ok: true, value: BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(trimmedFraction.padEnd(decimals, "0") || "0") };
}

function numberToPlain(n: number): string {
  // 1e21 and friends are refused by the regex; an integer past 2^53 has already lost digits.
  return Number.isInteger(n) && !Number.isSafeInteger(n) ? "" : String(n);
}

/** Full-precision decimal string, trailing zeros trimmed: "1250.5", "0". */
export function toDecimalString(value: bigint, decimals: number): string {
  return formatUnits(value, decimals);
}

export const toXdcString = (value: bigint) => toDecimalString(value, DECIMALS.XDC);
