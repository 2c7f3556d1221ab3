import { and, asc, eq, gte, inArray, notInArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import {
  bounties,
  bountyBoosts,
  bountyClaims,
  chainTransactions,
  communityBounties,
  CURRENCIES,
  repositories,
  users,
  type BountyBoost,
  type CommunityBounty,
  type Currency,
  type RefundReason,
  type User,
} from "../../../db/schema/index.ts";
import { ApiError, ErrorCode } from "../../errors.ts";
import { toDecimalString, TOKEN_DECIMALS } from "../../chain/amounts.ts";
import { formatExact } from "../../../lib/money-format.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { forgetBalances, tokenAllowance, walletBalances } from "../money/balances.ts";
import { DAILY_FUNDING_LIMIT, DAILY_WINDOW_MS, GAS_RESERVE, MAX_FUNDING_FEE_BPS } from "../money/rules.ts";
import { checkExpiry, parseBoostAmount, splitFee } from "./boost-rules.ts";
import { fundersContractOf, requireFundersContract, type FundersContract } from "./funders-contract.ts";
import { defineIntentKind } from "./intent-kinds.ts";
import { fundableIssue, type IssueRef } from "./issue-lookup.ts";

export type { IssueRef };

/**
 * Boosts (issue 29, items 1 and 3): any signed-in user with a wallet adds to an open issue's bounty, from
 * their own wallet, in the bounty's currency; the first boost of an issue without a bounty opens a community
 * bounty in its currency (community.ts). Each boost is one funder's share, recorded on-chain by the contract
 * (v3) and here as a row:
 *
 *   pending --(funding confirmed)--> active --(merged fix paid)--> paid
 *      |                               |
 *      +--(failed / reverted)--> failed +--(expiry / cancel / not planned)--> refunding --(confirmed)--> refunded
 *
 * Money is never forfeited: every way out of `active` other than a payout is a refund of exactly the share,
 * to the funder's address, by the operator through the outbox under the key `boost-refund:<id>` (replays and
 * restarts re-find the same transaction; the contract refuses a second refund of a share). The row moves to
 * `refunding` before the transaction is queued, so a crash in between leaves a row the next pass finishes.
 * The daily funding limit (1000 XDC, rolling 24 h) counts per funder across pool fundings and boosts, inside
 * the write transaction that queues the boost.
 */

type Deps = Pick<AppContext, "database" | "outbox" | "chain" | "changes" | "log">;

export interface BoostInput {
  user: User;
  issue: IssueRef;
  currency: Currency;
  amount: unknown;
  anonymous?: boolean;
  expiresAt?: Date | null;
  idempotencyKey: string;
}

const live = ["pending", "active"] as const;
const BOOST_KIND: Record<Currency, string> = { XDC: "boost_xdc", ROXN: "boost_roxn", USDC: "boost_usdc" };

/** The currency an issue's bounty is in, if it has one: the pool manager's bounty, else a live community bounty. */
export async function bountyCurrencyOf(db: Database, repoId: number, issueNumber: number): Promise<{ currency: Currency; source: "pool" | "community"; closed: boolean } | undefined> {
  const [pool] = await db.select().from(bounties).where(and(eq(bounties.githubRepoId, repoId), eq(bounties.issueNumber, issueNumber))).limit(1);
  if (pool && pool.status !== "cancelled") return { currency: pool.currency, source: "pool", closed: pool.status !== "open" };
  const community = await liveCommunityBounty(db, repoId, issueNumber);
  if (community) return { currency: community.currency, source: "community", closed: !["pending_payment", "funded", "claimed"].includes(community.status) };
  return undefined;
}

export async function liveCommunityBounty(db: Database, repoId: number, issueNumber: number): Promise<CommunityBounty | undefined> {
  const [row] = await db
    .select()
    .from(communityBounties)
    .where(and(eq(communityBounties.githubRepoId, repoId), eq(communityBounties.issueNumber, issueNumber), notInArray(communityBounties.status, ["refunded", "expired"])))
    .limit(1);
  return row;
}

/** The GitHub id of a repository the platform knows by name (registered, or with a community bounty), without asking GitHub. */
export async function knownRepoId(db: Database, owner: string, name: string): Promise<number | undefined> {
  const key = `${owner}/${name}`.toLowerCase();
  const [registered] = await db.select({ id: repositories.githubRepoId }).from(repositories).where(eq(repositories.fullNameKey, key)).limit(1);
  if (registered) return registered.id;
  const [community] = await db
    .select({ id: communityBounties.githubRepoId })
    .from(communityBounties)
    .where(sql`lower(${communityBounties.repoOwner} || '/' || ${communityBounties.repoName}) = ${key}`)
    .orderBy(sql`${communityBounties.id} desc`)
    .limit(1);
  return community?.id;
}

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

export function funderLimitReached(remaining: bigint, resetAt: Date, now = Date.now()): ApiError {
  return new ApiError({
    code: ErrorCode.RATE_LIMITED,
    error: "Exceeds daily funding limit",
    message: `Daily funding limit reached: ${formatExact(remaining, "XDC")} XDC left today across pools and boosts.`,
    details: { remainingLimit: toDecimalString(remaining, 18), limitResetTime: resetAt.toISOString() },
    headers: { "Retry-After": String(Math.max(1, Math.ceil((resetAt.getTime() - now) / 1000))) },
  });
}

export interface BoostResult {
  boost: BoostView;
  txHash: string | null;
  communityBountyId: number | null;
}

/**
 * Adds the user's boost to an open issue (the caller has checked with GitHub that the issue is open and is an
 * issue). A replay of the same key answers the first boost.
 */
export async function boostIssue(ctx: Deps, input: BoostInput, now = Date.now()): Promise<BoostResult> {
  const db = ctx.database.db;
  const earlier = await boostByKey(db, input.user.id, input.idempotencyKey);
  if (earlier) return resultOf(ctx, earlier);

  const gross = parseBoostAmount(input.amount, input.currency);
  const expiresAt = checkExpiry(input.expiresAt, now);
  const wallet = await walletOfUser(db, input.user.id);
  if (!wallet) throw new ApiError({ code: ErrorCode.BAD_REQUEST, error: "No wallet", message: "Set up your Issuepool wallet before funding an issue." });
  const existing = await bountyCurrencyOf(db, input.issue.repoId, input.issue.issueNumber);
  if (existing?.closed) throw new ApiError({ code: ErrorCode.CONFLICT, error: "Bounty closed", message: "This issue's bounty is already paid or on its way out." });
  if (existing && existing.currency !== input.currency) {
    throw new ApiError({ code: ErrorCode.BAD_REQUEST, error: "Wrong currency", message: `This issue's bounty is in ${existing.currency}: boosts add to it in ${existing.currency}.` });
  }

  const contract = requireFundersContract({ fundersContract: fundersContractOf(ctx.chain) });
  const feeBps = await contract.feeBps();
  const { fee, share } = splitFee(gross, feeBps);
  const address = wallet.address as Address;
  await requireFunds(ctx, input.currency, address, gross);

  const call = contract.boost({ repoId: input.issue.repoId, issueNumber: input.issue.issueNumber, currency: input.currency, gross, expiresAt, maxFeeBps: MAX_FUNDING_FEE_BPS });
  const request = { route: "boost", repoId: input.issue.repoId, issueNumber: input.issue.issueNumber, currency: input.currency, amount: String(input.amount), anonymous: Boolean(input.anonymous), expiresAt: expiresAt?.toISOString() ?? null };
  let boostId = 0;
  let communityId: number | null = null;
  const { tx } = await ctx.outbox.enqueue(
    {
      userId: input.user.id,
      idempotencyKey: `boost:${input.idempotencyKey}`,
      request,
      kind: BOOST_KIND[input.currency],
      githubRepoId: input.issue.repoId,
      issueNumber: input.issue.issueNumber,
      intent: { repoId: input.issue.repoId, issueNumber: input.issue.issueNumber, currency: input.currency, amount: gross.toString(), share: share.toString(), funder: address },
      signer: { kind: "wallet", wallet },
      ...call,
    },
    async (txDb) => {
      if (input.currency === "XDC") {
        const window = await funderWindow(txDb, input.user.id, now);
        if (window.total + gross > DAILY_FUNDING_LIMIT) {
          const remaining = window.total >= DAILY_FUNDING_LIMIT ? 0n : DAILY_FUNDING_LIMIT - window.total;
          throw funderLimitReached(remaining, new Date((window.oldest?.getTime() ?? now) + DAILY_WINDOW_MS), now);
        }
      }
      communityId = existing?.source === "pool" ? null : await ensureCommunityBounty(txDb, input.issue, input.currency, input.user);
      const [row] = await txDb
        .insert(bountyBoosts)
        .values({
          githubRepoId: input.issue.repoId,
          issueNumber: input.issue.issueNumber,
          userId: input.user.id,
          funderAddress: address,
          currency: input.currency,
          amount: share,
          fee,
          anonymous: Boolean(input.anonymous),
          expiresAt,
          idempotencyKey: input.idempotencyKey,
          createdAt: new Date(now),
        })
        .returning({ id: bountyBoosts.id });
      boostId = row!.id;
    },
  );
  if (boostId) await db.update(bountyBoosts).set({ fundTxId: tx.id }).where(eq(bountyBoosts.id, boostId));
  forgetBalances(ctx.chain, address);
  ctx.changes.publish([`repo:${input.issue.repoId}`, `bounty:${input.issue.repoId}:${input.issue.issueNumber}`]);
  const sent = await ctx.outbox.untilBroadcast(tx);
  const boost = await boostByKey(db, input.user.id, input.idempotencyKey);
  return { ...(await resultOf(ctx, boost!)), txHash: sent.txHash ?? null, communityBountyId: communityId ?? boost!.communityId };
}

async function requireFunds(ctx: Deps, currency: Currency, address: Address, gross: bigint): Promise<void> {
  if (currency === "XDC") {
    const balance = await ctx.chain.client.getBalance({ address, blockTag: "pending" });
    if (balance < gross + GAS_RESERVE) {
      throw new ApiError({ code: ErrorCode.BAD_REQUEST, error: "Insufficient XDC Balance", message: `Your XDC balance is ${formatExact(balance, "XDC")} XDC; keep 0.1 XDC for gas.` });
    }
    return;
  }
  const [balances, allowance] = await Promise.all([walletBalances(ctx.chain, address, { fresh: true }), tokenAllowance(ctx.chain, currency, address)]);
  const balance = currency === "ROXN" ? balances.roxn : balances.usdc;
  if (balance < gross) throw new ApiError({ code: ErrorCode.BAD_REQUEST, error: `Insufficient ${currency} Balance`, message: `Your ${currency} balance is ${formatExact(balance, currency)} ${currency}.` });
  if (allowance < gross) {
    throw new ApiError({
      code: ErrorCode.BAD_REQUEST,
      error: `Insufficient ${currency} allowance`,
      message: `Approve ${currency} before funding.`,
      details: { allowance: toDecimalString(allowance, TOKEN_DECIMALS[currency]) },
    });
  }
}

/** The issue's live community bounty, created (funded) by this first boost when there is none. */
async function ensureCommunityBounty(db: Database, issue: IssueRef, currency: Currency, creator: User): Promise<number> {
  const found = await liveCommunityBounty(db, issue.repoId, issue.issueNumber);
  if (found) {
    if (found.status === "pending_payment") await db.update(communityBounties).set({ status: "funded", updatedAt: new Date() }).where(eq(communityBounties.id, found.id));
    return found.id;
  }
  const [row] = await db
    .insert(communityBounties)
    .values({
      githubRepoId: issue.repoId,
      repoOwner: issue.owner,
      repoName: issue.name,
      issueNumber: issue.issueNumber,
      issueUrl: issue.url,
      title: issue.title.slice(0, 500),
      description: issue.body ? issue.body.slice(0, 500) : null,
      currency,
      status: "funded",
      createdByUserId: creator.id,
      createdByLogin: creator.username,
    })
    .returning({ id: communityBounties.id });
  return row!.id;
}

async function boostByKey(db: Database, userId: number, key: string): Promise<(BountyBoost & { communityId: number | null }) | undefined> {
  const [row] = await db.select().from(bountyBoosts).where(and(eq(bountyBoosts.userId, userId), eq(bountyBoosts.idempotencyKey, key))).limit(1);
  if (!row) return undefined;
  const community = await liveCommunityBounty(db, row.githubRepoId, row.issueNumber);
  return { ...row, communityId: community?.id ?? null };
}

async function resultOf(ctx: Deps, row: BountyBoost & { communityId: number | null }): Promise<BoostResult> {
  const tx = row.fundTxId ? await ctx.outbox.get(row.fundTxId) : undefined;
  const [funder] = await ctx.database.db.select({ username: users.username }).from(users).where(eq(users.id, row.userId));
  return { boost: boostView(row, funder?.username ?? null, true), txHash: tx?.txHash ?? null, communityBountyId: row.communityId };
}

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
  const decimals = TOKEN_DECIMALS[row.currency];
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

/** Pending boosts follow their funding transaction: confirmed -> active, failed or reverted -> failed. Refunds likewise. */
export async function settleBoosts(ctx: Pick<AppContext, "database" | "changes">, now = Date.now()): Promise<number> {
  const db = ctx.database.db;
  const rows = await db
    .select({ boost: bountyBoosts, fund: chainTransactions.status })
    .from(bountyBoosts)
    .innerJoin(chainTransactions, eq(chainTransactions.id, bountyBoosts.fundTxId))
    .where(eq(bountyBoosts.status, "pending"));
  let changed = 0;
  for (const { boost, fund } of rows) {
    const next = fund === "confirmed" ? "active" : fund === "failed" || fund === "reverted" ? "failed" : undefined;
    if (!next) continue;
    const done = await db.update(bountyBoosts).set({ status: next, settledAt: new Date(now) }).where(and(eq(bountyBoosts.id, boost.id), eq(bountyBoosts.status, "pending"))).returning({ id: bountyBoosts.id });
    if (done.length) {
      changed++;
      ctx.changes.publish([`repo:${boost.githubRepoId}`, `bounty:${boost.githubRepoId}:${boost.issueNumber}`]);
    }
  }
  const refunding = await db
    .select({ boost: bountyBoosts, refund: chainTransactions.status })
    .from(bountyBoosts)
    .innerJoin(chainTransactions, eq(chainTransactions.id, bountyBoosts.refundTxId))
    .where(eq(bountyBoosts.status, "refunding"));
  for (const { boost, refund } of refunding) {
    if (refund !== "confirmed") continue;
    const done = await db.update(bountyBoosts).set({ status: "refunded", settledAt: new Date(now) }).where(and(eq(bountyBoosts.id, boost.id), eq(bountyBoosts.status, "refunding"))).returning({ id: bountyBoosts.id });
    if (done.length) {
      changed++;
      await closeEmptyCommunityBounty(db, boost.githubRepoId, boost.issueNumber, boost.refundReason === "expired" ? "expired" : "refunded");
      ctx.changes.publish([`repo:${boost.githubRepoId}`, `bounty:${boost.githubRepoId}:${boost.issueNumber}`]);
    }
  }
  return changed;
}

/** A community bounty whose every share went back is over (a new one may start on the issue). */
async function closeEmptyCommunityBounty(db: Database, repoId: number, issueNumber: number, status: "refunded" | "expired"): Promise<void> {
  const [left] = await db
    .select({ n: sql<number>`count(*)` })
    .from(bountyBoosts)
    .where(and(eq(bountyBoosts.githubRepoId, repoId), eq(bountyBoosts.issueNumber, issueNumber), inArray(bountyBoosts.status, ["pending", "active", "refunding"])));
  if (Number(left?.n ?? 0) > 0) return;
  await db
    .update(communityBounties)
    .set({ status, closedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(communityBounties.githubRepoId, repoId), eq(communityBounties.issueNumber, issueNumber), inArray(communityBounties.status, ["funded", "pending_payment"])));
}

/**
 * Returns one share to its funder: the row moves active -> refunding first (so nothing else can pay or
 * refund it), then the operator's refund goes through the outbox under `boost-refund:<id>`. Called again
 * for a row already refunding (a crash in between, a pass after a restart), it re-finds the same transaction.
 */
export async function refundBoost(ctx: Deps, boost: BountyBoost, reason: RefundReason, contract?: FundersContract): Promise<void> {
  const chain = contract ?? requireFundersContract({ fundersContract: fundersContractOf(ctx.chain) });
  const db = ctx.database.db;
  if (boost.status === "active") {
    const taken = await db.update(bountyBoosts).set({ status: "refunding", refundReason: reason }).where(and(eq(bountyBoosts.id, boost.id), eq(bountyBoosts.status, "active"))).returning({ id: bountyBoosts.id });
    if (!taken.length) return;
  } else if (boost.status !== "refunding") {
    return;
  }
  const { tx } = await ctx.outbox.submitOnce({
    userId: null,
    idempotencyKey: `boost-refund:${boost.id}`,
    request: { boostId: boost.id },
    kind: "refund_boost",
    githubRepoId: boost.githubRepoId,
    issueNumber: boost.issueNumber,
    intent: { boostId: boost.id, funder: boost.funderAddress, currency: boost.currency, amount: boost.amount.toString(), reason: boost.refundReason ?? reason },
    signer: { kind: "operator" },
    ...chain.refundShare({ repoId: boost.githubRepoId, issueNumber: boost.issueNumber, funder: boost.funderAddress as Address }),
  });
  await db.update(bountyBoosts).set({ refundTxId: tx.id }).where(eq(bountyBoosts.id, boost.id));
  ctx.changes.publish([`repo:${boost.githubRepoId}`, `bounty:${boost.githubRepoId}:${boost.issueNumber}`]);
}

/** The hourly pass: shares past their expiry go back; refunds interrupted by a crash are finished. */
export async function refundDueBoosts(ctx: Deps, now = Date.now()): Promise<number> {
  const contract = fundersContractOf(ctx.chain);
  if (!contract) return 0;
  await settleBoosts(ctx, now);
  const db = ctx.database.db;
  const due = await db
    .select()
    .from(bountyBoosts)
    .where(sql`(${bountyBoosts.status} = 'active' and ${bountyBoosts.expiresAt} is not null and ${bountyBoosts.expiresAt} <= ${now}) or (${bountyBoosts.status} = 'refunding' and ${bountyBoosts.refundTxId} is null)`);
  for (const boost of due) await refundBoost(ctx, boost, boost.refundReason ?? "expired", contract);
  return due.length;
}

/** Every share of an issue goes back (the issue closed as not planned; the community bounty cancelled). */
export async function refundAllFunders(ctx: Deps, repoId: number, issueNumber: number, reason: RefundReason): Promise<number> {
  const db = ctx.database.db;
  const rows = await db.select().from(bountyBoosts).where(and(eq(bountyBoosts.githubRepoId, repoId), eq(bountyBoosts.issueNumber, issueNumber), inArray(bountyBoosts.status, ["active", "refunding"])));
  if (!rows.length) return 0;
  const contract = requireFundersContract({ fundersContract: fundersContractOf(ctx.chain) });
  for (const boost of rows) await refundBoost(ctx, boost, reason, contract);
  return rows.length;
}

/**
 * A funder takes their own boost back while nobody has claimed the issue (after a claim, v2's visible
 * delay applies to the whole bounty: the pool manager decides). Someone else's boost: 404.
 */
export async function cancelOwnBoost(ctx: Deps, input: { user: User; boostId: number }): Promise<BoostView> {
  const db = ctx.database.db;
  const [boost] = await db.select().from(bountyBoosts).where(and(eq(bountyBoosts.id, input.boostId), eq(bountyBoosts.userId, input.user.id))).limit(1);
  if (!boost) throw new ApiError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: "Boost not found." });
  if (boost.status === "refunding" || boost.status === "refunded") return boostView(boost, input.user.username, true);
  if (boost.status !== "active") throw new ApiError({ code: ErrorCode.CONFLICT, error: "Not cancellable", message: boost.status === "pending" ? "This boost is not confirmed yet; try again in a moment." : "This boost can no longer be cancelled." });
  const [claim] = await db.select({ userId: bountyClaims.userId }).from(bountyClaims).where(and(eq(bountyClaims.githubRepoId, boost.githubRepoId), eq(bountyClaims.issueNumber, boost.issueNumber))).limit(1);
  const community = await liveCommunityBounty(db, boost.githubRepoId, boost.issueNumber);
  if (claim || (community && community.status !== "funded")) {
    throw new ApiError({ code: ErrorCode.CONFLICT, error: "Someone is working on it", message: "A contributor has claimed this issue: your boost stays until the issue is resolved, expires or is closed as not planned." });
  }
  await refundBoost(ctx, boost, "cancelled");
  const [after] = await db.select().from(bountyBoosts).where(eq(bountyBoosts.id, boost.id));
  return boostView(after!, input.user.username, true);
}

/** A user's own boosts, newest first (the wallet history's funding part). */
export async function boostsOfUser(db: Database, user: User, limit = 100): Promise<(BoostView & { repoId: number; issueNumber: number })[]> {
  const rows = await db.select().from(bountyBoosts).where(eq(bountyBoosts.userId, user.id)).orderBy(sql`${bountyBoosts.createdAt} desc`).limit(limit);
  return rows.map((row) => ({ ...boostView(row, user.username, true), repoId: row.githubRepoId, issueNumber: row.issueNumber }));
}

/** `/bounty 50 XDC` by someone who is not the pool manager: a boost, confirmed in the app (intents.ts). */
export const BoostIntentPayload = z.object({
  repoId: z.number().int().positive(),
  owner: z.string(),
  name: z.string(),
  issueNumber: z.number().int().positive(),
  title: z.string(),
  url: z.string(),
  currency: z.enum(CURRENCIES),
  amount: z.string(),
});
export type BoostIntentPayload = z.infer<typeof BoostIntentPayload>;

defineIntentKind("boost", {
  payload: BoostIntentPayload,
  describe: (p) => ({
    title: `Boost ${p.owner}/${p.name}#${p.issueNumber} with ${p.amount} ${p.currency}`,
    lines: [
      `“${p.title}”`,
      `${p.amount} ${p.currency} leaves your Issuepool wallet; 0.5 % of it is the platform fee, the rest is added to the issue's bounty as your share.`,
      "Your share goes to whoever fixes the issue, or back to you if the issue is closed as not planned. You can take it back while nobody has claimed the issue.",
    ],
  }),
  async confirm(ctx, { user, payload, idempotencyKey }) {
    // Still open, still an issue: asked again now, not trusted from when the comment was written.
    const issue = await fundableIssue(ctx, { owner: payload.owner, name: payload.name, issueNumber: payload.issueNumber, user });
    if (issue.repoId !== payload.repoId) throw new ApiError({ code: ErrorCode.CONFLICT, error: "Repository changed", message: "This repository is no longer the one the comment was written in." });
    const done = await boostIssue(ctx, {
      user,
      issue,
      currency: payload.currency,
      amount: payload.amount,
      idempotencyKey,
    });
    return { result: `boost:${done.boost.id}`, message: `Your boost of ${payload.amount} ${payload.currency} is on its way to the bounty.`, link: payload.url };
  },
});
