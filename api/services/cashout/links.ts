import type { Currency } from "../../../db/schema/index.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";

/**
 * The link that opens the wallet's "Cash out to UPI" for a reward, prefilled (the payout mail, the bot's comment,
 * the wallet's history rows build the same one). None for ROXN, which cannot be cashed out directly.
 */
export function cashoutLink(publicUrl: string, currency: Currency, amount: bigint): string | null {
  if (currency === "ROXN") return null;
  return `${publicUrl}/wallet?cashout=${currency}&amount=${toDecimalString(amount, DECIMALS[currency])}`;
}
