/**
 * Splitting an amount among the people a merged pull request pays (issue
 * 29, item 4). Shares are weights: 1 each by default (equal shares), or the
 * pool manager's percentages in basis points (60 % = 6000). Each person gets
 * floor(amount × weight / total weight) in the token's smallest unit; what
 * the floors leave over (less than one unit per person) goes to the pull
 * request's author, or to the first person listed when the pool manager left
 * the author out. So the shares always sum to exactly the amount.
 */

export interface Share<K> {
  key: K;
  weight: bigint;
}

export function splitAmount<K>(amount: bigint, shares: readonly Share<K>[], remainderTo: K): { key: K; amount: bigint }[] {
  if (amount < 0n) throw new RangeError("amount must not be negative");
  if (shares.length === 0) throw new RangeError("a split needs at least one person");
  const total = shares.reduce((sum, s) => {
    if (s.weight <= 0n) throw new RangeError("every weight must be positive");
    return sum + s.weight;
  }, 0n);
  const parts = shares.map((s) => ({ key: s.key, amount: (amount * s.weight) / total }));
  const remainder = amount - parts.reduce((sum, p) => sum + p.amount, 0n);
  const receiver = parts.find((p) => p.key === remainderTo) ?? parts[0]!;
  receiver.amount += remainder;
  return parts;
}

/** 100 % in basis points. */
export const WHOLE_BPS = 10_000n;

/** "60" or "33.33" (at most two decimals) as basis points; undefined when it is not a percentage. */
export function percentToBps(text: string): bigint | undefined {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  const bps = BigInt(match[1]!) * 100n + BigInt((match[2] ?? "").padEnd(2, "0"));
  return bps > 0n && bps <= WHOLE_BPS ? bps : undefined;
}

/** Basis points as the percentage people read ("60", "33.33"). */
export function bpsToPercent(bps: bigint): string {
  const whole = bps / 100n;
  const cents = bps % 100n;
  return cents === 0n ? whole.toString() : `${whole}.${cents.toString().padStart(2, "0").replace(/0$/, "")}`;
}
