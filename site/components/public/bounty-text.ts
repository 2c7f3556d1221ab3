import { bountyText, decimalToUnits, formatFull } from "../../../lib/money-format.ts";
import type { UnifiedRepo } from "../../../api/services/repositories/public.ts";

/**
 * A bounty of the public view as every page shows it (lib/money-format.ts, issue 38): its total, the breakdown
 * when funders added to it, and the funders' names for a title (anonymous ones unnamed). The public page's rows and
 * the embeddable board read it.
 */
export function publicBountyText(b: UnifiedRepo["bounties"][number]): { total: string; breakdown: string | null; names: string } {
  const units = (value: string) => decimalToUnits(value, b.currency) ?? 0n;
  const text = bountyText({ currency: b.currency, pool: units(b.amount), funders: units(b.boosted), funderCount: b.funders.length });
  const names = b.funders.map((f) => `${f.funder ? `@${f.funder}` : "anonymous"}: ${formatFull(units(f.amount), b.currency)} ${b.currency}`).join("\n");
  return { ...text, names };
}
