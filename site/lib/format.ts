/** Amounts (the one definition of money, lib/money.ts, and its formatter, lib/money-format.ts) and relative times for the pages. */
export { bountyText, decimalToUnits, formatAmount, formatFull, formatUnits } from "../../lib/money-format.ts";
export { CURRENCIES, CURRENCY_NAMES, DECIMALS, unitOf, type Currency } from "../../lib/money.ts";

/** 'Registered: 3 days ago' style relative time. */
export function timeAgo(date: Date, now: Date = new Date()): string {
  const seconds = Math.max(0, Math.round((now.getTime() - date.getTime()) / 1000));
  const units: [number, string][] = [
    [365 * 24 * 3600, "year"],
    [30 * 24 * 3600, "month"],
    [7 * 24 * 3600, "week"],
    [24 * 3600, "day"],
    [3600, "hour"],
    [60, "minute"],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(seconds / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? "" : "s"} ago`;
  }
  return "just now";
}

/** An address as the header's wallet box shows it ("xdc1a2b…9f0e"); the full value goes in a title and on copy. */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** A transaction hash shortened the same way ("0x4660d07f…da584a"). */
export function shortHash(hash: string): string {
  return hash.length > 18 ? `${hash.slice(0, 10)}…${hash.slice(-6)}` : hash;
}
