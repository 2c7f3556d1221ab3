import type { Currency } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { parseAmount } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { MIN_BOUNTY, requireAmountStep } from "../money/rules.ts";

/**
 * The rules of a boost (issue 29), apart from where it is checked:
 * - at least 1 XDC, 0.0001 ROXN or 0.0001 USDC (the contract's minimum bounty), in the currency's step;
 * - the fee (0.5 %, read from the contract) is taken from what the funder pays; the share is the rest;
 * - an expiry, when given, between one day and one year ahead;
 * - the daily funding limit of 1000 XDC counts per funder, across pool fundings and XDC boosts (money/limits.ts).
 */
/** The outbox kind of a boost in each currency (boost_xdc counts in the funder's daily limit). */
export const BOOST_KIND = { XDC: "boost_xdc", ROXN: "boost_roxn", USDC: "boost_usdc" } as const satisfies Record<Currency, string>;

export const MIN_BOOST: Record<Currency, bigint> = MIN_BOUNTY;

export const MIN_EXPIRY_MS = 24 * 3600_000;
export const MAX_EXPIRY_MS = 366 * 24 * 3600_000;
const BPS = 10_000n;

export function parseBoostAmount(input: unknown, currency: Currency): bigint {
  const parsed = parseAmount(input, DECIMALS[currency]);
  if (!parsed.ok || parsed.value === 0n) throw new DomainError({ code: ErrorCode.INVALID_AMOUNT, error: "Invalid Amount", message: `Please enter a valid ${currency} amount.` });
  requireAmountStep(parsed.value, currency);
  if (parsed.value < MIN_BOOST[currency]) {
    throw new DomainError({
      code: ErrorCode.BELOW_MINIMUM,
      error: "Minimum boost not met",
      message: currency === "XDC" ? "The minimum boost is 1 XDC." : `The minimum boost is 0.0001 ${currency}.`,
    });
  }
  return parsed.value;
}

/** What the bounty gains from `gross` at `feeBps` (the contract rounds the fee down, so do we). */
export function splitFee(gross: bigint, feeBps: number): { fee: bigint; share: bigint } {
  const fee = (gross * BigInt(feeBps)) / BPS;
  return { fee, share: gross - fee };
}

export function checkExpiry(expiresAt: Date | null | undefined, now: number): Date | null {
  if (!expiresAt) return null;
  const at = expiresAt.getTime();
  if (!Number.isFinite(at) || at < now + MIN_EXPIRY_MS || at > now + MAX_EXPIRY_MS) {
    throw new DomainError({ code: ErrorCode.INVALID_EXPIRY, error: "Invalid expiry", message: "An expiry date must be between one day and one year from now." });
  }
  return new Date(at);
}
