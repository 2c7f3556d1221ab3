/**
 * The one money formatter: integer amounts in the smallest unit in, display
 * strings out. Truncates (never rounds up) so a balance is never shown larger
 * than it is.
 */
export const DECIMALS = { XDC: 18, ROXN: 18, USDC: 6 } as const;
export type Symbol = keyof typeof DECIMALS;

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

/** XDC 4 decimals, ROXN 2, USDC 2 (spec section 9). */
export function formatAmount(value: bigint, symbol: Symbol, shown = symbol === "XDC" ? 4 : 2): string {
  return formatUnits(value, DECIMALS[symbol], shown);
}

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
