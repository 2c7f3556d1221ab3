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

/**
 * An amount that must not be rounded: the token's display decimals (XDC 4, ROXN 2, USDC 2), more when the amount
 * has more ("54.9750", "0.0001", "1.000000000000000001"), never fewer, so a bounty's parts always add up to the
 * total shown. The one rule for a bounty's amount wherever it shows (issue 38: the same bounty read 20.0000 XDC,
 * 20.00 XDC and 20 XDC on different pages).
 */
export function formatFull(value: bigint, symbol: Currency): string {
  const shown = SHOWN_DECIMALS[symbol];
  const exact = formatUnits(value, DECIMALS[symbol], DECIMALS[symbol]);
  const [whole, fraction = ""] = exact.split(".");
  const kept = fraction.replace(/0+$/, "");
  return `${whole}.${kept.padEnd(shown, "0")}`;
}

/** A bounty's parts (smallest units): the pool's share and its funders' active shares (issue 29). */
export interface BountyParts {
  currency: Currency;
  /** The pool's share (0 for a bounty its pool manager left to its funders). */
  pool: bigint;
  /** The funders' active shares together. */
  funders: bigint;
  /** How many funders' shares `funders` is made of. */
  funderCount: number;
}

/**
 * A bounty as every page, feed, badge and the bot's comment show it: the total ("54.9750 XDC") and, when funders
 * added to it, the same breakdown ("50.0000 XDC from the pool + 4.9750 XDC from 1 funder"; a bounty the pool left
 * to its funders: "4.9750 XDC from 2 funders"); null without funders.
 */
export function bountyText(parts: BountyParts): { total: string; breakdown: string | null } {
  const { currency, pool, funders, funderCount } = parts;
  const money = (value: bigint) => `${formatFull(value, currency)} ${currency}`;
  const total = money(pool + funders);
  if (funders === 0n || funderCount === 0) return { total, breakdown: null };
  const backers = `${money(funders)} from ${funderCount} ${funderCount === 1 ? "funder" : "funders"}`;
  return { total, breakdown: pool > 0n ? `${money(pool)} from the pool + ${backers}` : backers };
}
