import { formatEther, parseEther } from "viem";
import { unitOf } from "../../lib/money.ts";

/** The simulator's made-up price, in paise per XDC; amounts as decimal strings, never floats. */
const PAISE_PER_RUPEE = 100n;

/** INR (up to 4 decimals) to XDC, 4 decimals, rounded down. */
export function inrToXdc(inr: string, paisePerXdc: bigint): string {
  const wei = (parseEther(inr) * PAISE_PER_RUPEE) / paisePerXdc;
  return formatXdc(formatEther(wei));
}

/** XDC to INR, 2 decimals, rounded down. */
export function xdcToInr(xdc: string, paisePerXdc: bigint): string {
  const paise = (parseEther(xdc) * paisePerXdc) / unitOf("XDC");
  return `${paise / PAISE_PER_RUPEE}.${String(paise % PAISE_PER_RUPEE).padStart(2, "0")}`;
}

/** A decimal XDC amount cut to 4 decimals, trailing zeros trimmed. */
export function formatXdc(xdc: string): string {
  const [whole, fraction = ""] = xdc.split(".");
  const cut = fraction.slice(0, 4).replace(/0+$/, "");
  return cut ? `${whole}.${cut}` : whole!;
}

export function formatRate(paisePerXdc: bigint): string {
  return `${paisePerXdc / PAISE_PER_RUPEE}.${String(paisePerXdc % PAISE_PER_RUPEE).padStart(2, "0")}`;
}
