import { getAddress, isAddress } from "viem";
import { DECIMALS, formatAmount, type Currency } from "./format.ts";
import { toUnits } from "./wallet-data.ts";

/**
 * The send form's checks, for an answer before any request: the same rules
 * and sentences as the server (api/services/wallets/send.ts), which checks
 * everything again and has the last word. Max comes from the server
 * (`GET /api/wallet/send-max`): only it knows the fee.
 */
export const GAS_RESERVE_UNITS = 10n ** 17n; // 0.1 XDC

export function recipientProblem(input: string, ownAddress: string | null): string | null {
  const text = input.trim();
  if (!text) return "Enter the recipient's address (xdc… or 0x…).";
  const hex = /^xdc/i.test(text) ? `0x${text.slice(3)}` : text;
  if (!/^0x[0-9a-fA-F]{40}$/.test(hex)) return "Enter a valid XDC address: xdc or 0x followed by 40 hexadecimal characters.";
  if (!isAddress(hex, { strict: true })) return "The address's mixed upper and lower case does not match its checksum: check it for a typo.";
  if (/^0x0{40}$/.test(hex)) return "Sending to the zero address would destroy the funds.";
  if (ownAddress && getAddress(hex) === getAddress(`0x${ownAddress.replace(/^(xdc|0x)/i, "")}`)) {
    return "This is your own wallet: enter the address you want to send to.";
  }
  return null;
}

export function amountProblem(input: string, symbol: Currency, balance: bigint | undefined): string | null {
  const text = input.trim();
  const fraction = /^\d+\.(\d+)$/.exec(text)?.[1]?.replace(/0+$/, "");
  if (fraction && fraction.length > DECIMALS[symbol]) return `${symbol} amounts have at most ${DECIMALS[symbol]} decimal places.`;
  const units = toUnits(text, symbol);
  if (units === undefined || units === 0n) return `Please enter a valid ${symbol} amount.`;
  if (balance !== undefined && units > balance) return `Your ${symbol} balance is ${formatAmount(balance, symbol)} ${symbol}.`;
  if (balance !== undefined && symbol === "XDC" && units + GAS_RESERVE_UNITS > balance) return "Leave at least 0.1 XDC for gas.";
  return null;
}
