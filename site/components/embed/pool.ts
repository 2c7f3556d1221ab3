import { decimalToUnits, formatAmount } from "../../../lib/money-format.ts";
import { CURRENCIES } from "../../../lib/money.ts";
import type { UnifiedRepo } from "../../../api/services/repositories/public.ts";

/**
 * What the board says about the pool: the unallocated funds, as on the
 * badge and the repository list. XDC always; ROXN and USDC when there are
 * any. Two decimals, as everywhere on public pages.
 */
export function poolFigures(blockchain: UnifiedRepo["blockchain"]): string[] {
  const figures: string[] = [];
  for (const currency of CURRENCIES) {
    const value = decimalToUnits(blockchain?.poolRewards[currency] ?? "0", currency) ?? 0n;
    if (currency === "XDC" || value > 0n) figures.push(`${formatAmount(value, currency, 2)} ${currency}`);
  }
  return figures;
}
