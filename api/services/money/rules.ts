import type { Currency } from "../../../db/schema/index.ts";

/** Business constants of spec section 9, in the smallest unit. */
export const XDC = 10n ** 18n;
export const MIN_XDC_FUNDING_EXCLUSIVE = 1n * XDC; // "above 1 XDC"
export const GAS_RESERVE = XDC / 10n; // 0.1 XDC stays in the wallet for fees
export const DAILY_FUNDING_LIMIT = 1000n * XDC; // per repository, rolling 24 h
export const DAILY_WINDOW_MS = 24 * 3600 * 1000;

export const MIN_BOUNTY: Record<Currency, bigint> = {
  XDC: 1n * XDC,
  ROXN: 10n ** 14n, // 0.0001 ROXN
  USDC: 100n, // 0.0001 USDC (6 decimals)
};

export const CURRENCY_INDEX: Record<Currency, number> = { XDC: 0, ROXN: 1, USDC: 2 };
