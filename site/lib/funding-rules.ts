/**
 * The money rules of the funding panel and the Set Bounty dialog (spec
 * sections 5 and 9), as pure functions over bigint amounts in the smallest
 * unit. The server checks all of them again; these only spare the person a
 * round trip and give the spec's messages before anything is sent.
 */
import { DECIMALS, formatAmount, unitOf, type Currency } from "./format.ts";

export type { Currency };

/** A toast's title and sentence: what went wrong, in the spec's words. */
export interface Problem {
  title: string;
  message: string;
}

const unit = unitOf;

/**
 * Strict decimal parsing of what a person typed: digits with an optional
 * fraction, no sign, no exponent, no more decimals than the token has.
 * Anything else (including "") is null.
 */
export function parseAmount(text: string, currency: Currency): bigint | null {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match) return null;
  const [, whole = "", fraction = ""] = match;
  if (whole === "" && fraction === "") return null;
  if (whole.replace(/^0+/, "").length > 30) return null;
  const decimals = DECIMALS[currency];
  const significant = fraction.replace(/0+$/, "");
  if (significant.length > decimals) return null;
  return BigInt(whole || "0") * unit(currency) + BigInt(significant.padEnd(decimals, "0") || "0");
}

/** Full precision, trailing zeros dropped: what goes back into an input ("1199.9", "1.01"). */
export function toPlainDecimal(value: bigint, currency: Currency): string {
  const base = unit(currency);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const fraction = (abs % base).toString().padStart(DECIMALS[currency], "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${abs / base}${fraction ? `.${fraction}` : ""}`;
}

/** A decimal string from the API ("1250.5") as an amount; unreadable values count as zero. */
export function fromApi(value: string | null | undefined, currency: Currency): bigint {
  return value ? (parseAmount(value, currency) ?? 0n) : 0n;
}

// ---- XDC funding (spec section 5) ----

/** "Minimum funding amount above 1": the input's own minimum is 1.01. */
export const XDC_FUNDING_MIN_INPUT = "1.01";
export const XDC_FUNDING_MIN_EXCLUSIVE = unit("XDC");
export const XDC_FUNDING_FLOOR = 101n * 10n ** 16n; // 1.01 XDC
/** At least 0.1 XDC stays in the wallet for gas. */
export const GAS_RESERVE = unit("XDC") / 10n;
export const FUNDING_STATUS_POLL_MS = 60_000;

/** Max button: wallet balance minus 0.1, capped by the remaining daily limit, never below 1.01. */
export function maxXdcFunding(balance: bigint, remainingLimit: bigint | null): bigint {
  let max = balance - GAS_RESERVE;
  if (remainingLimit !== null && remainingLimit < max) max = remainingLimit;
  return max < XDC_FUNDING_FLOOR ? XDC_FUNDING_FLOOR : max;
}

export function xdcFundingProblem(input: {
  amount: bigint | null;
  balance: bigint | null;
  remainingLimit: bigint | null;
  repositoryFullName: string | null | undefined;
}): Problem | null {
  if (!input.repositoryFullName) return { title: "Error Adding XDC Funds", message: "Repository details missing." };
  if (input.amount === null || input.amount <= 0n) return { title: "Invalid Amount", message: "Please enter a valid XDC amount." };
  if (input.amount <= XDC_FUNDING_MIN_EXCLUSIVE) return { title: "Minimum funding amount not met", message: "Minimum is > 1 XDC" };
  // More than the wallet holds says so (as the server does); only an amount the wallet has, minus the gas reserve, is a gas problem.
  if (input.balance !== null && input.amount > input.balance) {
    return { title: "Insufficient XDC Balance", message: `Your XDC balance is ${formatAmount(input.balance, "XDC")} XDC.` };
  }
  if (input.balance !== null && input.amount + GAS_RESERVE > input.balance) {
    return { title: "Insufficient funds for gas", message: "Leave at least 0.1 XDC for gas." };
  }
  if (input.remainingLimit !== null && input.amount > input.remainingLimit) {
    return { title: "Exceeds daily funding limit", message: `Remaining: ${formatAmount(input.remainingLimit, "XDC")} XDC.` };
  }
  return null;
}

// ---- ROXN funding (spec section 5) ----

export const ROXN_STEP = "0.0001";
const ROXN_LOW_BALANCE = 10n ** 14n; // 0.0001 ROXN

export function roxnFundingProblem(input: { amount: bigint | null; balance: bigint | null; repositoryFullName: string | null | undefined }): Problem | null {
  return tokenFundingProblem("ROXN", input);
}

/** The same checks for a token funding (ROXN or USDC), with that token's texts. */
export function tokenFundingProblem(
  token: "ROXN" | "USDC",
  input: { amount: bigint | null; balance: bigint | null; repositoryFullName: string | null | undefined },
): Problem | null {
  if (!input.repositoryFullName) return { title: `Error Adding ${token} Funds`, message: "Repository details missing." };
  if (input.amount === null || input.amount <= 0n) return { title: "Invalid Amount", message: `Please enter a valid ${token} amount.` };
  if (input.balance !== null && input.amount > input.balance) {
    return { title: `Insufficient ${token} Balance`, message: `Your ${token} balance is ${formatAmount(input.balance, token)} ${token}.` };
  }
  return null;
}

/** 'Low ROXN Balance' is shown for a balance of 0.0001 ROXN or less (Max is disabled at 0). */
export function isLowRoxnBalance(balance: bigint): boolean {
  return balance <= ROXN_LOW_BALANCE;
}

/** The button first approves when the allowance does not cover the amount ('Approve & Add ROXN'). */
export function needsRoxnApproval(amount: bigint | null, allowance: bigint | null): boolean {
  return amount !== null && amount > 0n && (allowance === null || allowance < amount);
}

// ---- Fee (spec section 9: 0.5%, 50 basis points, the net goes to the pool) ----

export const FUNDING_FEE_BPS = 50n;
export const FEE_PERCENT_LABEL = "0.5%";

/** Gross, fee and net as the contract computes them (fee = gross * bps / 10000, rounded down). */
export function feeBreakdown(gross: bigint): { gross: bigint; fee: bigint; net: bigint } {
  const fee = (gross * FUNDING_FEE_BPS) / 10_000n;
  return { gross, fee, net: gross - fee };
}

// ---- Bounties (spec sections 5 and 9) ----

export const BOUNTY_RULES: Record<Currency, { min: string; step: string }> = {
  XDC: { min: "1", step: "0.01" },
  ROXN: { min: "0.0001", step: "0.0001" },
  USDC: { min: "0.0001", step: "0.0001" },
};

export function minimumBounty(currency: Currency): bigint {
  return parseAmount(BOUNTY_RULES[currency].min, currency)!;
}

/** The submit button is disabled for an empty, zero, negative or unreadable amount. */
export function isSubmittableAmount(text: string, currency: Currency): boolean {
  const amount = parseAmount(text, currency);
  return amount !== null && amount > 0n;
}

/**
 * The Set Bounty dialog's checks before sending: the currency's minimum
 * (not for 0, which cannot be submitted), then the available pool, in which
 * case the field is to be set to the pool balance (`clampTo`).
 */
export function bountyProblem(input: { amount: bigint; currency: Currency; pool: bigint | null }): (Problem & { clampTo?: string }) | null {
  const { amount, currency } = input;
  if (amount > 0n && amount < minimumBounty(currency)) {
    return { title: "Invalid Amount", message: `Minimum bounty must be at least ${BOUNTY_RULES[currency].min} ${currency}` };
  }
  if (input.pool !== null && amount > input.pool) {
    return {
      title: "Invalid Amount",
      message: `Amount cannot exceed available ${currency} pool balance (${formatAmount(input.pool, currency, 4)} ${currency})`,
      clampTo: toPlainDecimal(input.pool, currency),
    };
  }
  return null;
}
