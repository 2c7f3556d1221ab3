import { and, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { chainTransactions, TX_STATUSES } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { toXdcString } from "../../chain/amounts.ts";
import { requesterOf } from "../../chain/outbox.ts";
import { formatAmount } from "../../../lib/money-format.ts";
import { XDC } from "./rules.ts";

/**
 * The daily funding limits, defined once (issue 37): what every figure the platform shows is computed by
 * (funding-status, GET /api/wallet/limits, the funding terms, the funding panel's Max, the boost dialog) and
 * what the write path enforces, inside the outbox's write transaction that records the request (`enforceLimits`
 * as the `enqueue` guard), so concurrent requests cannot overrun a limit and a figure is never one the write
 * path would disagree with.
 *
 * The window. At a time `now` an outbox row counts while now − 24 h < createdAt: from the instant it was asked
 * (inclusive) to 24 hours later (exclusive). The figure grows again (`resetsAt`) at the oldest counted row's
 * createdAt + 24 h, the first instant that row no longer counts; that is the time the refusal's text names
 * ("Limit resets at …"). A request's row is stamped with the instant its limits were checked at (`createdAt`
 * of the outbox request), so the check and the row's later counting use one clock (`AppContext.clock`).
 *
 * What counts: rows of the scope's kinds that have not failed or reverted (queued, signed, sent, confirmed: money
 * counts as soon as it is asked, before the chain has it), on the current chain (a row of a lost chain moved
 * nothing on this one), by their `value`: the wei that leaves the wallet, fee included.
 *
 * The scopes, and the requests each one limits (a request is checked against every scope that counts its kind):
 *
 *   repository  XDC pool fundings into one repository, by anyone     1000 XDC a day   fund_xdc             spec §9
 *   funder      one person's XDC pool fundings and XDC boosts         1000 XDC a day   fund_xdc, boost_xdc  issue 29
 *
 * What a request may move is the smallest remaining figure of its scopes: the binding one. There is no
 * separate per-wallet limit: a user has exactly one wallet (wallets_user_idx), so a wallet's figure
 * (GET /api/wallet/limits) is its owner's funder figure; sends, tips and token fundings are not limited by a
 * daily amount (large sends need an e-mailed code instead) and count in no window.
 */
export const DAILY_FUNDING_LIMIT = 1000n * XDC;
export const DAILY_WINDOW_MS = 24 * 3600 * 1000;

/** The outbox kinds a limit counts (and limits). */
export type LimitedKind = "fund_xdc" | "boost_xdc";

const SCOPES = {
  repository: { limit: DAILY_FUNDING_LIMIT, kinds: ["fund_xdc"] as LimitedKind[] },
  funder: { limit: DAILY_FUNDING_LIMIT, kinds: ["fund_xdc", "boost_xdc"] as LimitedKind[] },
} as const;

export type LimitScopeName = keyof typeof SCOPES;
export type LimitScope = { name: "repository"; repoId: number } | { name: "funder"; userId: number };

/** A request the limits apply to: its kind says which scopes count it. */
export type LimitedRequest = { kind: "fund_xdc"; userId: number; repoId: number } | { kind: "boost_xdc"; userId: number };

/** Not failed, not reverted: every status in which the money is asked for, on its way or moved. */
const COUNTED_STATUSES = TX_STATUSES.filter((s) => s !== "failed" && s !== "reverted");

export interface LimitFigure {
  scope: LimitScopeName;
  limit: bigint;
  /** What counts in the window now. */
  used: bigint;
  /** limit − used, never below 0. */
  remaining: bigint;
  /** When the oldest counted amount leaves the window (the figure grows); null when nothing counts. */
  resetsAt: Date | null;
}

/** One scope's window at `now`. */
export async function limitFigure(db: Database, scope: LimitScope, now: number): Promise<LimitFigure> {
  const { limit, kinds } = SCOPES[scope.name];
  // The funder's rows by requester: the leading column of the outbox's (requester, idempotency_key) index.
  const owner = scope.name === "repository" ? eq(chainTransactions.githubRepoId, scope.repoId) : eq(chainTransactions.requester, requesterOf(scope.userId));
  const rows = await db
    .select({ value: chainTransactions.value, createdAt: chainTransactions.createdAt })
    .from(chainTransactions)
    .where(
      and(
        owner,
        inArray(chainTransactions.kind, kinds),
        inArray(chainTransactions.status, COUNTED_STATUSES),
        isNull(chainTransactions.oldChain),
        gt(chainTransactions.createdAt, new Date(now - DAILY_WINDOW_MS)),
      ),
    );
  let used = 0n;
  let oldest: number | null = null;
  for (const row of rows) {
    used += row.value;
    const at = row.createdAt.getTime();
    if (oldest === null || at < oldest) oldest = at;
  }
  return { scope: scope.name, limit, used, remaining: used >= limit ? 0n : limit - used, resetsAt: oldest === null ? null : new Date(oldest + DAILY_WINDOW_MS) };
}

/** The scopes that count (and so limit) a request, in the order of SCOPES. */
export function scopesOf(request: LimitedRequest): LimitScope[] {
  const scopes: LimitScope[] = [];
  for (const name of Object.keys(SCOPES) as LimitScopeName[]) {
    if (!SCOPES[name].kinds.includes(request.kind)) continue;
    if (name === "repository") {
      if (request.kind !== "fund_xdc") throw new Error(`limits: ${request.kind} has no repository`);
      scopes.push({ name, repoId: request.repoId });
    } else scopes.push({ name, userId: request.userId });
  }
  return scopes;
}

export interface Allowance {
  /** The most the request may move now: the smallest remaining figure of its scopes. */
  remaining: bigint;
  /**
   * The figure that binds: the smallest remaining; on a tie, the one that grows last, so its `resetsAt` is
   * when `remaining` grows.
   */
  binding: LimitFigure;
  /** Every scope's figure, in the order of SCOPES. */
  figures: LimitFigure[];
}

/** What a request of this kind may move at `now`, and why. */
export async function allowanceOf(db: Database, request: LimitedRequest, now: number): Promise<Allowance> {
  const figures: LimitFigure[] = [];
  for (const scope of scopesOf(request)) figures.push(await limitFigure(db, scope, now));
  return allowanceFrom(figures);
}

export function allowanceFrom(figures: LimitFigure[]): Allowance {
  const growsAt = (f: LimitFigure) => f.resetsAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  const binding = figures.reduce((best, f) => (f.remaining < best.remaining || (f.remaining === best.remaining && growsAt(f) > growsAt(best)) ? f : best));
  return { remaining: binding.remaining, binding, figures };
}

/**
 * The write path's check, run as the outbox's `enqueue` guard (inside the write transaction that inserts the
 * request's row, stamped `now`): refuses an amount above what the request may move.
 */
export async function enforceLimits(tx: Database, request: LimitedRequest, amount: bigint, now: number): Promise<void> {
  const allowance = await allowanceOf(tx, request, now);
  if (amount > allowance.remaining) throw limitExceeded(allowance, now);
}

/**
 * The refusal (spec sections 7 and 9): 429 `limit_exceeded`, 'Exceeds daily funding limit' / 'Daily funding limit
 * reached. Remaining: X XDC. Limit resets at {time}.', with `details.remainingLimit` (exact XDC),
 * `details.limitResetTime` (ISO) and `details.limit` (which scope binds), and Retry-After in seconds.
 */
export function limitExceeded(allowance: Allowance, now: number): DomainError {
  // Nothing counts and the amount is above the whole limit: no time makes it fit; the window's length is the honest wait.
  const resetAt = allowance.binding.resetsAt ?? new Date(now + DAILY_WINDOW_MS);
  const when = `${resetAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return new DomainError({
    code: ErrorCode.LIMIT_EXCEEDED,
    error: "Exceeds daily funding limit",
    message: `Daily funding limit reached. Remaining: ${formatAmount(allowance.remaining, "XDC")} XDC. Limit resets at ${when}.`,
    details: { remainingLimit: toXdcString(allowance.remaining), limitResetTime: resetAt.toISOString(), limit: allowance.binding.scope },
    headers: { "Retry-After": String(Math.max(1, Math.ceil((resetAt.getTime() - now) / 1000))) },
  });
}

/** A figure as the API shows it: exact decimal XDC strings and an ISO time. */
export interface LimitFigureJson {
  scope: LimitScopeName;
  dailyLimitXdc: string;
  usedXdc: string;
  remainingXdc: string;
  resetsAt: string | null;
}

export const limitFigureJson = (f: LimitFigure): LimitFigureJson => ({
  scope: f.scope,
  dailyLimitXdc: toXdcString(f.limit),
  usedXdc: toXdcString(f.used),
  remainingXdc: toXdcString(f.remaining),
  resetsAt: f.resetsAt?.toISOString() ?? null,
});
