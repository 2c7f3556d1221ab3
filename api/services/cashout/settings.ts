import { eq } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { cashoutSettings, CASHOUT_CURRENCIES, type CashoutCurrency } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { hmacBase64url } from "../../crypto/tokens.ts";
import { parseAmount, toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { sellApiConfigured } from "../onramp/sell-api.ts";

/**
 * What a user keeps for cash-outs (issue 40): the UPI id (filled in next time), and automatic cash-out of every
 * reward above a threshold per currency. Which currencies can be cashed out: XDC and USDC, whatever the provider
 * buys; ROXN cannot, and the answer says so.
 */
export const UPI_ID_PATTERN = /^[a-zA-Z0-9.\-_]{2,256}@[a-zA-Z]{2,64}$/;

export interface CashoutCurrencyView {
  symbol: "XDC" | "USDC" | "ROXN";
  supported: boolean;
  /** Why not, in a sentence (ROXN). */
  reason: string | null;
}

export const ROXN_NOT_SUPPORTED = "ROXN cannot be cashed out directly: the provider buys only XDC and USDC. Send your ROXN to an exchange that lists it, or keep it.";

export const CASHOUT_CURRENCY_VIEWS: CashoutCurrencyView[] = [
  { symbol: "XDC", supported: true, reason: null },
  { symbol: "USDC", supported: true, reason: null },
  { symbol: "ROXN", supported: false, reason: ROXN_NOT_SUPPORTED },
];

export interface CashoutSettingsView {
  /** Whether the platform offers cash-out at all (the provider's sell side is configured). */
  available: boolean;
  upiId: string | null;
  auto: { enabled: boolean; minXdc: string | null; minUsdc: string | null };
  currencies: CashoutCurrencyView[];
}

const refusal = (code: ErrorCode, error: string, message: string) => new DomainError({ code, error, message });

export function parseUpiId(input: unknown): string {
  const text = typeof input === "string" ? input.trim() : "";
  if (!UPI_ID_PATTERN.test(text)) throw refusal(ErrorCode.INVALID_UPI_ID, "Invalid UPI id", "Enter your UPI id as name@bank, for example ravi@okaxis.");
  return text;
}

/** The currency of a cash-out, or the refusal that says why not (ROXN plainly). */
export function parseCashoutCurrency(input: unknown): CashoutCurrency {
  if (input === "ROXN") throw new DomainError({ code: ErrorCode.CASHOUT_UNSUPPORTED, error: "ROXN cannot be cashed out", message: ROXN_NOT_SUPPORTED });
  if (typeof input === "string" && (CASHOUT_CURRENCIES as readonly string[]).includes(input)) return input as CashoutCurrency;
  throw refusal(ErrorCode.INVALID_CURRENCY, "Invalid currency", "Choose XDC or USDC.");
}

/** The provider knows our users by an opaque id (not their GitHub name or our row id). */
export async function customerIdOf(ctx: Pick<AppContext, "appSecret">, userId: number): Promise<string> {
  return `ipu_${(await hmacBase64url(ctx.appSecret, `onramp-customer:v1:${userId}`)).slice(0, 24)}`;
}

export async function cashoutSettingsOf(ctx: Pick<AppContext, "database" | "env">, userId: number): Promise<CashoutSettingsView> {
  const [row] = await ctx.database.db.select().from(cashoutSettings).where(eq(cashoutSettings.userId, userId));
  return {
    available: sellApiConfigured(ctx.env),
    upiId: row?.upiId ?? null,
    auto: {
      enabled: row?.autoEnabled ?? false,
      minXdc: row?.autoMinXdc != null ? toDecimalString(row.autoMinXdc, DECIMALS.XDC) : null,
      minUsdc: row?.autoMinUsdc != null ? toDecimalString(row.autoMinUsdc, DECIMALS.USDC) : null,
    },
    currencies: CASHOUT_CURRENCY_VIEWS,
  };
}

function threshold(input: unknown, currency: CashoutCurrency): bigint | null {
  if (input === null || input === undefined || input === "") return null;
  const parsed = parseAmount(input, DECIMALS[currency]);
  if (!parsed.ok) throw refusal(ErrorCode.INVALID_AMOUNT, "Invalid Amount", `Enter the ${currency} threshold as an amount, or leave it empty.`);
  return parsed.value;
}

/**
 * Saves the UPI id and the automatic cash-out choice. Automatic cash-out needs a UPI id and at least one
 * threshold. (Who may change them: the session's own user, with the anti-forgery token, like every write.)
 */
export async function saveCashoutSettings(
  ctx: Pick<AppContext, "database" | "env">,
  userId: number,
  input: { upiId?: unknown; auto?: { enabled?: unknown; minXdc?: unknown; minUsdc?: unknown } },
): Promise<CashoutSettingsView> {
  const current = await cashoutSettingsOf(ctx, userId);
  const upiId = input.upiId === undefined ? current.upiId : input.upiId === null || input.upiId === "" ? null : parseUpiId(input.upiId);
  const enabled = input.auto?.enabled === undefined ? current.auto.enabled : input.auto.enabled === true;
  const minXdc = input.auto && "minXdc" in input.auto ? threshold(input.auto.minXdc, "XDC") : current.auto.minXdc === null ? null : threshold(current.auto.minXdc, "XDC");
  const minUsdc = input.auto && "minUsdc" in input.auto ? threshold(input.auto.minUsdc, "USDC") : current.auto.minUsdc === null ? null : threshold(current.auto.minUsdc, "USDC");
  if (enabled && !upiId) throw refusal(ErrorCode.UPI_ID_REQUIRED, "UPI id required", "Enter the UPI id your rewards are paid out to.");
  if (enabled && minXdc === null && minUsdc === null) throw refusal(ErrorCode.THRESHOLD_REQUIRED, "Threshold required", "Enter the amount above which a reward is cashed out (XDC, USDC or both).");
  const values = { upiId, autoEnabled: enabled, autoMinXdc: minXdc, autoMinUsdc: minUsdc, updatedAt: new Date() };
  await ctx.database.db.insert(cashoutSettings).values({ userId, ...values }).onConflictDoUpdate({ target: cashoutSettings.userId, set: values });
  return cashoutSettingsOf(ctx, userId);
}

/** Remembers the UPI id of a confirmed cash-out for next time. */
export async function rememberUpiId(ctx: DatabaseDeps, userId: number, upiId: string): Promise<void> {
  await ctx.database.db
    .insert(cashoutSettings)
    .values({ userId, upiId })
    .onConflictDoUpdate({ target: cashoutSettings.userId, set: { upiId, updatedAt: new Date() } });
}
