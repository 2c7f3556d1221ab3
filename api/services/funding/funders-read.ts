import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { bountyBoosts, users, type BountyBoost, type Currency, type RefundReason } from "../../../db/schema/index.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";

/** Reading the funders of issues (boosts.ts writes them): for every place a bounty shows. */

/** A funder as everyone sees them: no login when they chose to be anonymous (their own view keeps it). */
export interface BoostView {
  id: number;
  funder: string | null;
  anonymous: boolean;
  currency: Currency;
  amount: string;
  fee: string;
  status: BountyBoost["status"];
  refundReason: RefundReason | null;
  fundedAt: string;
  expiresAt: string | null;
}

export function boostView(row: BountyBoost, login: string | null, owner = false): BoostView {
  const decimals = DECIMALS[row.currency];
  return {
    id: row.id,
    funder: row.anonymous && !owner ? null : login,
    anonymous: row.anonymous,
    currency: row.currency,
    amount: toDecimalString(row.amount, decimals),
    fee: toDecimalString(row.fee, decimals),
    status: row.status,
    refundReason: row.refundReason ?? null,
    fundedAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

export interface IssueFunders {
  currency: Currency;
  /** Sum of the active shares, in the smallest unit. */
  boosted: bigint;
  funders: BoostView[];
}

/**
 * The funders of issues (active shares, oldest first), for every place the bounty shows. Pending and
 * refunded boosts are not part of the bounty; the funder's wallet history shows them.
 */
export async function fundersOfIssues(db: Database, repoId: number, issueNumbers?: number[]): Promise<Map<number, IssueFunders>> {
  const where = [eq(bountyBoosts.githubRepoId, repoId), eq(bountyBoosts.status, "active")];
  if (issueNumbers) {
    if (issueNumbers.length === 0) return new Map();
    where.push(inArray(bountyBoosts.issueNumber, issueNumbers));
  }
  const rows = await db
    .select({ boost: bountyBoosts, login: users.username })
    .from(bountyBoosts)
    .innerJoin(users, eq(users.id, bountyBoosts.userId))
    .where(and(...where))
    .orderBy(asc(bountyBoosts.createdAt), asc(bountyBoosts.id));
  const out = new Map<number, IssueFunders>();
  for (const { boost, login } of rows) {
    const entry = out.get(boost.issueNumber) ?? { currency: boost.currency, boosted: 0n, funders: [] };
    entry.boosted += boost.amount;
    entry.funders.push(boostView(boost, login));
    out.set(boost.issueNumber, entry);
  }
  return out;
}

