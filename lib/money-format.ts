import { DECIMALS, SHOWN_DECIMALS, type Currency } from "./money.ts";

/**
 * The one money formatter: integer amounts in the smallest unit in, display
 * strings out. Truncates (never rounds up) so a balance is never shown larger
 * than it is. In this neutral module because the API (bot comments, badges,
 * error texts), the site and the VS Code extension all show amounts. The
 * currencies, their decimals and how many are shown are defined in lib/money.ts.
 */

export function formatUnits(value: bigint, decimals: number, shown: number): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  let fraction = (abs % base).toString().padStart(decimals, "0").slice(0, shown);
  if (shown > 0) fraction = fraction.padEnd(shown, "0");
  const wholeText = whole.toLocaleString("en-US");
  return `${negative ? "-" : ""}${wholeText}${shown > 0 ? `.${fraction}` : ""}`;
}

/** XDC 4 decimals, ROXN 2, USDC 2 (spec section 9; SHOWN_DECIMALS in lib/money.ts). */
export function formatAmount(value: bigint, symbol: Currency, shown = SHOWN_DECIMALS[symbol]): string {
  return formatUnits(value, DECIMALS[symbol], shown);
}

/** A decimal string from the API ("12.5") in the token's smallest unit; undefined when it is not one. */
export function decimalToUnits(decimal: string | null | undefined, symbol: Currency): bigint | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(decimal?.trim() ?? "");
  if (!match) return undefined;
  const decimals = DECIMALS[symbol];
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (fraction.length > decimals) return undefined;
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

/**
 * The exact amount, every decimal the token has, trailing zeros dropped
 * ("1.000000000000000001", "12.5", "1,000"): for a bounty named in a
 * message or a bot comment, where rounding would hide part of it.
 */
export function formatExact(value: bigint, symbol: Currency): string {
  const text = formatUnits(value, DECIMALS[symbol], DECIMALS[symbol]);
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}
