import { and, eq, gte, inArray, notInArray } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { chainTransactions, type Currency } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { formatExact } from "../../../lib/money-format.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { DAILY_WINDOW_MS } from "../money/rules.ts";

/**
 * The daily funding limit per funder (issue 29): 1000 XDC in any rolling 24 hours across pool fundings and
 * boosts, counted from the outbox (pending transactions count), inside the write transaction that queues the
 * next one, so concurrent requests cannot overrun it. The per-repository limit of pool funding stays too.
 */
export const BOOST_KIND: Record<Currency, string> = { XDC: "boost_xdc", ROXN: "boost_roxn", USDC: "boost_usdc" };

/** XDC a funder has put into pools and boosts in the rolling window (pending ones count). */
export async function funderWindow(db: Database, userId: number, now: number): Promise<{ total: bigint; oldest: Date | null }> {
  const rows = await db
    .select({ value: chainTransactions.value, createdAt: chainTransactions.createdAt })
    .from(chainTransactions)
    .where(
      and(
        eq(chainTransactions.userId, userId),
        inArray(chainTransactions.kind, ["fund_xdc", BOOST_KIND.XDC]),
        notInArray(chainTransactions.status, ["failed", "reverted"]),
        gte(chainTransactions.createdAt, new Date(now - DAILY_WINDOW_MS)),
      ),
    );
  return {
    total: rows.reduce((sum, r) => sum + r.value, 0n),
    oldest: rows.reduce<Date | null>((min, r) => (!min || r.createdAt < min ? r.createdAt : min), null),
  };
}

export function funderLimitReached(remaining: bigint, resetAt: Date, now = Date.now()): DomainError {
  return new DomainError({
    code: ErrorCode.LIMIT_EXCEEDED,
    error: "Exceeds daily funding limit",
    message: `Daily funding limit reached: ${formatExact(remaining, "XDC")} XDC left today across pools and boosts.`,
    details: { remainingLimit: toDecimalString(remaining, DECIMALS.XDC), limitResetTime: resetAt.toISOString() },
    headers: { "Retry-After": String(Math.max(1, Math.ceil((resetAt.getTime() - now) / 1000))) },
  });
}

