import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { cashoutQuotes, cashoutSettings, type CashoutCurrency, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { autoCashoutCodeMail, cashoutCodeMail } from "../../mail/templates.ts";
import { audit } from "../audit.ts";
import { otpThreshold } from "../wallets/send.ts";
import { CODE_TTL_MS, issueCode, maskEmail, otpMailFailed, retireCode } from "../wallets/one-time-codes.ts";
import { isConfirmedUpiId, parseUpiId, upiKey } from "./upi-id.ts";

/**
 * The e-mailed codes of cash-outs (issue 40), so that a stolen session cannot turn a wallet into rupees on someone
 * else's UPI account:
 * - a cash-out needs the code when its amount is above SEND_OTP_THRESHOLD (the rule and figure of sends) or when
 *   its UPI id is not one the user has confirmed with a code before (a first cash-out to a new id); the code is
 *   bound to the currency, the amount and the UPI id (purpose "cashout"), so a new quote for the same cash-out
 *   takes the same code, and no other cash-out does;
 * - turning automatic cash-out on, or moving it to another UPI id, needs the code bound to that UPI id (purpose
 *   "upi"), mailed with what is being changed; automatic cash-outs go only to a confirmed UPI id.
 * A code used confirms its UPI id (`confirmed_upi_ids`), in the same transaction as the action it allowed.
 */

export type CashoutCodeReason = "amount" | "new_upi_id";

/** Why a manual cash-out of `amount` to `upiId` needs the e-mailed code, or null when it does not. */
export async function cashoutCodeReason(
  ctx: Pick<AppContext, "env" | "database">,
  input: { userId: number; currency: CashoutCurrency; amount: bigint; upiId: string },
): Promise<CashoutCodeReason | null> {
  if (input.amount > otpThreshold(ctx, input.currency)) return "amount";
  return (await isConfirmedUpiId(ctx.database.db, input.userId, input.upiId)) ? null : "new_upi_id";
}

/** What a cash-out's code is bound to: the currency, the amount and the UPI id. */
export const cashoutSubject = (currency: CashoutCurrency, amount: bigint, upiId: string) => `${currency}:${amount}:${upiKey(upiId)}`;
/** What automatic cash-out's code is bound to: the UPI id every future reward goes to. */
export const autoCashoutSubject = (upiId: string) => `auto:${upiKey(upiId)}`;

export function cashoutCodeRequired(ctx: Pick<AppContext, "env">, reason: CashoutCodeReason, currency: CashoutCurrency, upiId: string): DomainError {
  return new DomainError({
    code: ErrorCode.CODE_REQUIRED,
    error: "Confirmation code required",
    message:
      reason === "amount"
        ? `Cash-outs above ${ctx.env.SEND_OTP_THRESHOLD} ${currency} need the 6-digit code we e-mail you.`
        : `A first cash-out to ${upiId} needs the 6-digit code we e-mail you.`,
    details: { otpRequired: true, reason },
  });
}

/** Turning automatic cash-out on, moving it to another UPI id, or keeping it on an id no code confirmed. */
export function autoCashoutCodeRequired(change: "on" | "move" | "unconfirmed", upiId: string): DomainError {
  const what = { on: "Turning on automatic cash-out", move: "Changing the UPI id of automatic cash-out", unconfirmed: `Automatic cash-out to ${upiId}` }[change];
  return new DomainError({
    code: ErrorCode.CODE_REQUIRED,
    error: "Confirmation code required",
    message: `${what} needs the 6-digit code we e-mail you.`,
    details: { otpRequired: true, change },
  });
}

/** An automatic cash-out to a UPI id no code confirmed: refused (the reward is kept, and the reason says what to do). */
export const upiIdNotConfirmed = (upiId: string) =>
  new DomainError({
    code: ErrorCode.CODE_REQUIRED,
    error: "UPI id not confirmed",
    message: `The UPI id ${upiId} has not been confirmed with an e-mailed code: save automatic cash-out again and enter the code we e-mail you.`,
    details: { otpRequired: true },
  });

const noEmail = () => new DomainError({ code: ErrorCode.EMAIL_REQUIRED, error: "No e-mail address", message: "Add an e-mail address to your profile to receive the code." });

type CodeSent = { success: true; message: string; expiresAt: string };

/** Issues the code, mails it (a code whose mail never left is retired at once), and says where it went. */
async function mailCode(
  ctx: Pick<AppContext, "database" | "appSecret" | "mailer">,
  input: { user: User; email: string; purpose: "cashout" | "upi"; subject: string; mail: (code: string) => Parameters<AppContext["mailer"]["send"]>[0] },
): Promise<CodeSent> {
  const issued = await issueCode(ctx, { userId: input.user.id, purpose: input.purpose, subject: input.subject });
  try {
    await ctx.mailer.send(input.mail(issued.code));
  } catch (err) {
    await retireCode(ctx.database.db, issued.id);
    throw otpMailFailed(err);
  }
  return { success: true, message: `We sent a 6-digit code to ${maskEmail(input.email)}.`, expiresAt: issued.expiresAt.toISOString() };
}

/** POST /api/wallet/cashout/send-code { quoteId, upiId }: e-mails the code for this cash-out, when it needs one. */
export async function requestCashoutCode(
  ctx: Pick<AppContext, "env" | "database" | "appSecret" | "mailer">,
  input: { user: User; quoteId: string; upiId: unknown; ip?: string; now?: number },
): Promise<CodeSent> {
  const [quote] = await ctx.database.db.select().from(cashoutQuotes).where(and(eq(cashoutQuotes.id, input.quoteId), eq(cashoutQuotes.userId, input.user.id)));
  if (!quote) throw new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not found", message: "No such quote." });
  if (quote.expiresAt.getTime() < (input.now ?? Date.now())) {
    throw new DomainError({ code: ErrorCode.QUOTE_EXPIRED, error: "Quote expired", message: "This quote has expired: ask for a new one. Nothing was sent." });
  }
  const upiId = parseUpiId(input.upiId);
  const reason = await cashoutCodeReason(ctx, { userId: input.user.id, currency: quote.currency, amount: quote.amount, upiId });
  if (!reason) {
    throw new DomainError({
      code: ErrorCode.CODE_NOT_NEEDED,
      error: "No code needed",
      message: `Only cash-outs above ${ctx.env.SEND_OTP_THRESHOLD} ${quote.currency}, or to a UPI id you have not confirmed yet, need a code.`,
    });
  }
  const email = input.user.email;
  if (!email) throw noEmail();
  const amount = toDecimalString(quote.amount, DECIMALS[quote.currency]);
  const sent = await mailCode(ctx, {
    user: input.user,
    email,
    purpose: "cashout",
    subject: cashoutSubject(quote.currency, quote.amount, upiId),
    mail: (code) => cashoutCodeMail({ to: email, code, amount, currency: quote.currency, upiId, validMinutes: CODE_TTL_MS / 60_000 }),
  });
  await audit(ctx.database.db, { userId: input.user.id, action: "wallet.cashout_code_sent", ip: input.ip, detail: { currency: quote.currency, amount: quote.amount.toString(), upiId, reason } });
  return sent;
}

/**
 * Whether saving automatic cash-out as `next` needs the code: turning it on, moving it to another UPI id, or keeping
 * it on with an id no code confirmed (a setting saved before codes were asked for).
 */
export function autoCashoutNeedsCode(
  current: { autoEnabled: boolean; upiId: string | null } | undefined,
  next: { enabled: boolean; upiId: string | null },
  confirmed: boolean,
): boolean {
  if (!next.enabled || !next.upiId) return false;
  if (!current?.autoEnabled || !current.upiId) return true;
  return upiKey(current.upiId) !== upiKey(next.upiId) || !confirmed;
}

/**
 * POST /api/wallet/cashout/settings/send-code { upiId? }: e-mails the code that turns automatic cash-out on to
 * `upiId` (the saved one when absent), or moves it there, saying which.
 */
export async function requestAutoCashoutCode(
  ctx: Pick<AppContext, "env" | "database" | "appSecret" | "mailer">,
  input: { user: User; upiId?: unknown; ip?: string },
): Promise<CodeSent> {
  const [current] = await ctx.database.db.select().from(cashoutSettings).where(eq(cashoutSettings.userId, input.user.id));
  const upiId = input.upiId === undefined || input.upiId === null || input.upiId === "" ? current?.upiId : parseUpiId(input.upiId);
  if (!upiId) throw new DomainError({ code: ErrorCode.UPI_ID_REQUIRED, error: "UPI id required", message: "Enter the UPI id your rewards are paid out to." });
  const confirmed = await isConfirmedUpiId(ctx.database.db, input.user.id, upiId);
  if (!autoCashoutNeedsCode(current, { enabled: true, upiId }, confirmed)) {
    throw new DomainError({ code: ErrorCode.CODE_NOT_NEEDED, error: "No code needed", message: `Automatic cash-out already goes to ${upiId}.` });
  }
  const email = input.user.email;
  if (!email) throw noEmail();
  const previousUpiId = current?.autoEnabled && current.upiId && upiKey(current.upiId) !== upiKey(upiId) ? current.upiId : null;
  const sent = await mailCode(ctx, {
    user: input.user,
    email,
    purpose: "upi",
    subject: autoCashoutSubject(upiId),
    mail: (code) => autoCashoutCodeMail({ to: email, code, upiId, previousUpiId, validMinutes: CODE_TTL_MS / 60_000 }),
  });
  await audit(ctx.database.db, { userId: input.user.id, action: "wallet.auto_cashout_code_sent", ip: input.ip, detail: { upiId, previousUpiId } });
  return sent;
}
