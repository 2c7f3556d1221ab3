import type { Currency } from "../../../db/schema/index.ts";
import { CURRENCIES, currencyId, unitOf } from "../../../lib/money.ts";
import { DomainError, ErrorCode } from "../../errors.ts";

/** Business constants of spec section 9, in the smallest unit. */
export const XDC = unitOf("XDC");
export const MIN_XDC_FUNDING_EXCLUSIVE = 1n * XDC; // "above 1 XDC"
export const GAS_RESERVE = XDC / 10n; // 0.1 XDC stays in the wallet for fees
// The daily funding limits (1000 XDC a day per repository and per funder) live in limits.ts, with the rest of their rule.

export const MIN_BOUNTY: Record<Currency, bigint> = {
  XDC: 1n * XDC,
  ROXN: 10n ** 14n, // 0.0001 ROXN
  USDC: 100n, // 0.0001 USDC (6 decimals)
};

/**
 * The finest amount each currency takes in funding, approvals and bounties (spec: ROXN step 0.0001, and the
 * 0.0001 minimum of ROXN and USDC bounties): an amount must be a whole number of steps. XDC keeps all 18.
 */
export const AMOUNT_STEP: Record<Currency, { units: bigint; decimals: number }> = {
  XDC: { units: 1n, decimals: 18 },
  ROXN: { units: 10n ** 14n, decimals: 4 },
  USDC: { units: 100n, decimals: 4 },
};

/**
 * The funding fee users are shown (0.5%), passed to the contract as
 * maxFeeBps: a fee raised on-chain after the page was read refuses the
 * funding instead of taking more (issue 19, L1).
 */
export const MAX_FUNDING_FEE_BPS = 50;

/** The escrow contract's currency ids (lib/money.ts: a currency's index in CURRENCIES). */
export const CURRENCY_INDEX = Object.fromEntries(CURRENCIES.map((c) => [c, currencyId(c)])) as Record<Currency, number>;

/** Refuses an amount finer than its currency's step, before anything else is checked. */
export function requireAmountStep(amount: bigint, currency: Currency): void {
  const step = AMOUNT_STEP[currency];
  if (amount % step.units !== 0n) {
    throw new DomainError({ code: ErrorCode.INVALID_AMOUNT, error: "Invalid Amount", message: `${currency} amounts have at most ${step.decimals} decimal places.` });
  }
}
