import { and, asc, eq, gte, inArray, isNull, notInArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import {
  bounties,
  bountyBoosts,
  bountyClaims,
  chainEvents,
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
import { DomainError, ErrorCode } from "../../errors.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { formatExact } from "../../../lib/money-format.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { forgetBalances, tokenAllowance, walletBalances } from "../money/balances.ts";
import { GAS_RESERVE, MAX_FUNDING_FEE_BPS } from "../money/rules.ts";
import { enforceLimits } from "../money/limits.ts";
import { BOOST_KIND, checkExpiry, parseBoostAmount, splitFee } from "./boost-rules.ts";
import { fundersContractOf } from "./funders-contract.ts";
import { openCommunityBountiesLeftByPool } from "./pool-left.ts";
import { defineIntentKind } from "./intent-kinds.ts";
import { fundableIssue, type IssueRef } from "./issue-lookup.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";
import { fixesOfIssue, settleMergedFix } from "../payouts/settle.ts";
import { boostView, fundersOfIssues, type BoostView, type IssueFunders } from "./funders-read.ts";

export { boostView, fundersOfIssues, type BoostView, type IssueFunders };

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
 * The daily funding limit (1000 XDC, rolling 24 h) counts per funder across pool fundings and XDC boosts, checked
 * by money/limits.ts inside the write transaction that queues the boost.
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

/** How often the mirror pass runs (a boost shows as active within about this long of its confirmation). */
export const BOOST_MIRROR_INTERVAL_MS = 1_000;

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

export interface BoostResult {
  boost: BoostView;
  txHash: string | null;
  communityBountyId: number | null;
}

/**
 * Adds the user's boost to an open issue (the caller has checked with GitHub that the issue is open and is an
 * issue). A replay of the same key answers the first boost.
 */
export async function boostIssue(ctx: Deps & Pick<AppContext, "clock">, input: BoostInput, now = ctx.clock.now()): Promise<BoostResult> {
  const db = ctx.database.db;
  const earlier = await boostByKey(db, input.user.id, input.idempotencyKey);
  if (earlier) return resultOf(ctx, earlier);

  const gross = parseBoostAmount(input.amount, input.currency);
  const expiresAt = checkExpiry(input.expiresAt, now);
  const wallet = await walletOfUser(db, input.user.id);
  if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "No wallet", message: "Set up your Issuepool wallet before funding an issue." });
  // The chain says whether the issue has a bounty and in which currency (the database's mirror may lag behind an
  // allocation made a moment ago); a live community bounty row says it is the community's.
  // Three independent reads side by side (a boost's round trips before it is queued: scripts/bench/chain.ts).
  const contract = fundersContractOf(ctx.chain);
  const [facts, community, feeBps] = await Promise.all([
    bountyFacts(ctx, input.issue.repoId, input.issue.issueNumber),
    liveCommunityBounty(db, input.issue.repoId, input.issue.issueNumber),
    contract.feeBps(),
  ]);
  const onChain = facts.chain;
  // New money for the bounty: refused once it is paid or earned by a merged pull request (payouts/decision.ts).
  const decision = decide(facts, { kind: "fund" });
  if (!decision.ok) throw decision.refusal;
  const existing =
    onChain.status === "none" || onChain.status === "cancelled"
      ? undefined
      : { currency: onChain.currency, source: community ? ("community" as const) : ("pool" as const), closed: onChain.status !== "open" };
  if (existing && existing.currency !== input.currency) {
    throw new DomainError({ code: ErrorCode.WRONG_CURRENCY, error: "Wrong currency", message: `This issue's bounty is in ${existing.currency}: boosts add to it in ${existing.currency}.` });
  }

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
      // The row counts in the funder's daily window from the instant the limit was checked at.
      createdAt: new Date(now),
    },
    async (txDb) => {
      // The funder's 1000 XDC a day across pools and boosts (limits.ts); token boosts have no daily limit.
      if (input.currency === "XDC") await enforceLimits(txDb, { kind: "boost_xdc", userId: input.user.id }, gross, now);
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
  ctx.changes.publish(["boosts", `repo:${input.issue.repoId}`, `bounty:${input.issue.repoId}:${input.issue.issueNumber}`]);
  const sent = await ctx.outbox.untilBroadcast(tx);
  const boost = await boostByKey(db, input.user.id, input.idempotencyKey);
  return { ...(await resultOf(ctx, boost!)), txHash: sent.txHash ?? null, communityBountyId: communityId ?? boost!.communityId };
}

async function requireFunds(ctx: Deps, currency: Currency, address: Address, gross: bigint): Promise<void> {
  if (currency === "XDC") {
    const balance = await ctx.chain.client.getBalance({ address, blockTag: "pending" });
    if (balance < gross + GAS_RESERVE) {
      throw new DomainError({ code: ErrorCode.INSUFFICIENT_BALANCE, error: "Insufficient XDC Balance", message: `Your XDC balance is ${formatExact(balance, "XDC")} XDC; keep 0.1 XDC for gas.` });
    }
    return;
  }
  const [balances, allowance] = await Promise.all([walletBalances(ctx.chain, address, { fresh: true }), tokenAllowance(ctx.chain, currency, address)]);
  const balance = currency === "ROXN" ? balances.roxn : balances.usdc;
  if (balance < gross) throw new DomainError({ code: ErrorCode.INSUFFICIENT_BALANCE, error: `Insufficient ${currency} Balance`, message: `Your ${currency} balance is ${formatExact(balance, currency)} ${currency}.` });
  if (allowance < gross) {
    throw new DomainError({
      code: ErrorCode.INSUFFICIENT_ALLOWANCE,
      error: `Insufficient ${currency} allowance`,
      message: `Approve ${currency} before funding.`,
      details: { allowance: toDecimalString(allowance, DECIMALS[currency]) },
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

/**
 * The mirror of the funders' shares (run by the hourly pass, after the webhook that may have moved them, and
 * before any read that must be exact). The chain decides, through the indexed events (chain_events) and the
 * outbox's receipts:
 * - pending -> active when the funding transaction is confirmed; -> failed when it failed or reverted;
 * - active or refunding -> refunded when a BoostRefunded event for the funder on that issue comes after the
 *   boost (whoever sent it: the platform, the funder, anyone), or the platform's refund is confirmed;
 * - active -> paid when a BountyPaid event of the issue comes after the boost.
 */
export async function settleBoosts(ctx: Pick<AppContext, "database" | "changes">, now = Date.now()): Promise<number> {
  const db = ctx.database.db;
  const rows = await db
    .select({ boost: bountyBoosts, fund: chainTransactions })
    .from(bountyBoosts)
    .leftJoin(chainTransactions, eq(chainTransactions.id, bountyBoosts.fundTxId))
    .where(inArray(bountyBoosts.status, ["pending", "active", "refunding"]));
  if (!rows.length) return 0;
  const issues = [...new Set(rows.map((r) => `${r.boost.githubRepoId}:${r.boost.issueNumber}`))];
  const events = await db
    .select({ name: chainEvents.name, repoId: chainEvents.repoId, issueNumber: chainEvents.issueNumber, blockNumber: chainEvents.blockNumber, logIndex: chainEvents.logIndex, args: chainEvents.args, txHash: chainEvents.txHash })
    .from(chainEvents)
    .where(and(inArray(chainEvents.name, ["BoostRefunded", "BountyPaid"]), isNull(chainEvents.oldChain), inArray(sql`${chainEvents.repoId} || ':' || ${chainEvents.issueNumber}`, issues)));
  const refundTxs = await db
    .select({ id: chainTransactions.id, status: chainTransactions.status })
    .from(chainTransactions)
    .where(inArray(chainTransactions.id, rows.map((r) => r.boost.refundTxId).filter((id): id is string => Boolean(id))));
  const refundStatus = new Map(refundTxs.map((r) => [r.id, r.status]));
  let changed = 0;
  const touched = new Set<string>();
  const move = async (boost: BountyBoost, from: BountyBoost["status"], to: BountyBoost["status"], extra: Partial<BountyBoost> = {}) => {
    const done = await db
      .update(bountyBoosts)
      .set({ status: to, settledAt: new Date(now), ...extra })
      .where(and(eq(bountyBoosts.id, boost.id), eq(bountyBoosts.status, from)))
      .returning({ id: bountyBoosts.id });
    if (!done.length) return;
    changed++;
    touched.add(`${boost.githubRepoId}:${boost.issueNumber}`);
  };
  for (const { boost, fund } of rows) {
    if (boost.status === "pending") {
      if (fund?.status === "confirmed") await move(boost, "pending", "active");
      else if (fund?.status === "failed" || fund?.status === "reverted") await move(boost, "pending", "failed");
      continue;
    }
    const since = fund?.blockNumber ?? 0;
    const after = (e: (typeof events)[number]) => e.repoId === boost.githubRepoId && e.issueNumber === boost.issueNumber && e.blockNumber >= since;
    const refunded = events.find((e) => e.name === "BoostRefunded" && after(e) && sameAddress((JSON.parse(e.args) as { funder: string }).funder, boost.funderAddress));
    const ownRefundDone = boost.refundTxId ? refundStatus.get(boost.refundTxId) === "confirmed" : false;
    if (refunded || ownRefundDone) {
      const reason = boost.refundReason ?? (refunded ? REASON_OF_EVENT[Number((JSON.parse(refunded.args) as { reason: string | number }).reason)] : undefined) ?? "cancelled";
      await move(boost, boost.status, "refunded", { refundReason: reason });
      continue;
    }
    if (boost.status === "active" && events.some((e) => e.name === "BountyPaid" && after(e))) await move(boost, "active", "paid");
  }
  for (const key of touched) {
    const [repoId, issueNumber] = key.split(":").map(Number) as [number, number];
    await closeCommunityBounty(db, repoId, issueNumber);
    ctx.changes.publish(["boosts", `repo:${repoId}`, `bounty:${repoId}:${issueNumber}`]);
  }
  // A bounty its pool manager left to its funders (cancelPoolShare) is a community bounty from then on.
  if ((await openCommunityBountiesLeftByPool(db)).length) ctx.changes.publish(["boosts"]);
  return changed;
}

/** BoostRefunded's reason: 0 withdrawn by its funder, 1 expired, 2 the bounty cancelled (closed as not planned). */
const REASON_OF_EVENT: Record<number, RefundReason> = { 0: "cancelled", 1: "expired", 2: "not_planned" };

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** A community bounty whose shares are all gone is over: refunded (or expired), or completed when they were paid. */
async function closeCommunityBounty(db: Database, repoId: number, issueNumber: number): Promise<void> {
  const states = await db
    .select({ status: bountyBoosts.status, reason: bountyBoosts.refundReason })
    .from(bountyBoosts)
    .where(and(eq(bountyBoosts.githubRepoId, repoId), eq(bountyBoosts.issueNumber, issueNumber)));
  if (states.some((s) => s.status === "pending" || s.status === "active" || s.status === "refunding")) return;
  const status = states.some((s) => s.status === "paid") ? "completed" : states.every((s) => s.status !== "refunded" || s.reason === "expired") ? "expired" : "refunded";
  await db
    .update(communityBounties)
    .set({ status, closedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(communityBounties.githubRepoId, repoId), eq(communityBounties.issueNumber, issueNumber), inArray(communityBounties.status, ["funded", "pending_payment", "claimed"])));
}

type Refunder = { kind: "operator" } | { kind: "funder"; user: User };

/**
 * Sends shares back: the rows move active -> refunding first (nothing else may pay or refund them), then
 * one transaction goes through the outbox: the operator's `refundBoosts` for every funder given (expired
 * shares, a cancelled bounty), or the funder's own `withdrawBoost`. Its key names the issue, the funders and
 * the first row refunded, so calling again (a crash in between, the next pass after a restart) re-finds the
 * same transaction; the contract refuses to refund a share twice.
 */
export async function refundFunders(
  ctx: Deps,
  input: { repoId: number; issueNumber: number; funders: string[]; reason: RefundReason; by: Refunder },
): Promise<string | undefined> {
  const db = ctx.database.db;
  const funders = [...new Set(input.funders.map((f) => f.toLowerCase()))].sort();
  if (!funders.length) return undefined;
  const rows = (
    await db
      .select()
      .from(bountyBoosts)
      .where(and(eq(bountyBoosts.githubRepoId, input.repoId), eq(bountyBoosts.issueNumber, input.issueNumber), inArray(bountyBoosts.status, ["active", "refunding"])))
  ).filter((r) => funders.includes(r.funderAddress.toLowerCase()));
  if (!rows.length) return undefined;
  await db
    .update(bountyBoosts)
    .set({ status: "refunding", refundReason: input.reason })
    .where(and(inArray(bountyBoosts.id, rows.map((r) => r.id)), eq(bountyBoosts.status, "active")));
  const contract = fundersContractOf(ctx.chain);
  const first = Math.min(...rows.map((r) => r.id));
  const addresses = [...new Set(rows.map((r) => r.funderAddress))] as Address[];
  const common = {
    request: { repoId: input.repoId, issueNumber: input.issueNumber, funders: addresses, first },
    kind: "refund_boost",
    githubRepoId: input.repoId,
    issueNumber: input.issueNumber,
    intent: { repoId: input.repoId, issueNumber: input.issueNumber, funders: addresses, reason: input.reason, shares: rows.map((r) => ({ id: r.id, amount: r.amount.toString(), currency: r.currency })) },
  };
  let txId: string;
  if (input.by.kind === "funder") {
    const wallet = await walletOfUser(db, input.by.user.id);
    if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "No wallet", message: "Your wallet is needed to take your boost back." });
    const { tx } = await ctx.outbox.submitOnce({
      ...common,
      userId: input.by.user.id,
      idempotencyKey: `boost-withdraw:${input.repoId}:${input.issueNumber}:${first}`,
      signer: { kind: "wallet", wallet },
      ...contract.withdraw({ repoId: input.repoId, issueNumber: input.issueNumber }),
    });
    txId = tx.id;
  } else {
    const { tx } = await ctx.outbox.submitOnce({
      ...common,
      userId: null,
      idempotencyKey: `boost-refund:${input.repoId}:${input.issueNumber}:${addresses.map((a) => a.toLowerCase()).sort().join(",")}:${first}`,
      signer: { kind: "operator" },
      ...contract.refund({ repoId: input.repoId, issueNumber: input.issueNumber, funders: addresses }),
    });
    txId = tx.id;
  }
  await db.update(bountyBoosts).set({ refundTxId: txId }).where(inArray(bountyBoosts.id, rows.map((r) => r.id)));
  ctx.changes.publish(["boosts", `repo:${input.repoId}`, `bounty:${input.repoId}:${input.issueNumber}`]);
  return txId;
}

/**
 * The hourly pass: shares whose expiry has passed by the chain's clock go back to their funders; refunds a
 * crash interrupted (rows refunding without their transaction) are sent again under the same key.
 */
export async function refundDueBoosts(ctx: Deps, asOf?: number): Promise<number> {
  // Expiries are on the chain's clock (a local chain's may run ahead of this machine's).
  const now = asOf ?? Number(await fundersContractOf(ctx.chain).now()) * 1000;
  await settleBoosts(ctx);
  const db = ctx.database.db;
  const candidates = await db
    .select()
    .from(bountyBoosts)
    .where(sql`(${bountyBoosts.status} = 'active' and ${bountyBoosts.expiresAt} is not null and ${bountyBoosts.expiresAt} <= ${now}) or (${bountyBoosts.status} = 'refunding' and ${bountyBoosts.refundTxId} is null)`);
  // Shares of a bounty cancelled on-chain (by its pool manager, or closed as not planned) that nobody refunded yet.
  const cancelled = await db
    .select({ boost: bountyBoosts })
    .from(bountyBoosts)
    .innerJoin(chainTransactions, eq(chainTransactions.id, bountyBoosts.fundTxId))
    .innerJoin(
      chainEvents,
      and(eq(chainEvents.name, "BountyCancelled"), isNull(chainEvents.oldChain), eq(chainEvents.repoId, bountyBoosts.githubRepoId), eq(chainEvents.issueNumber, bountyBoosts.issueNumber), gte(chainEvents.blockNumber, chainTransactions.blockNumber)),
    )
    .where(eq(bountyBoosts.status, "active"));
  for (const { boost } of cancelled) if (!candidates.some((c) => c.id === boost.id)) candidates.push({ ...boost, refundReason: "cancelled" });
  if (!candidates.length) return 0;
  const contract = fundersContractOf(ctx.chain);
  const chainNow = await contract.now();
  const byIssue = new Map<string, { repoId: number; issueNumber: number; funders: Set<string>; reason: RefundReason }>();
  for (const boost of candidates) {
    if (boost.status === "active" && !boost.refundReason) {
      // The share's expiry on-chain is the funder's latest choice over all their boosts of this issue.
      const share = await contract.shareOf({ repoId: boost.githubRepoId, issueNumber: boost.issueNumber, funder: boost.funderAddress as Address });
      if (share.amount === 0n || share.expiresAt === 0n || share.expiresAt > chainNow) continue;
    }
    const key = `${boost.githubRepoId}:${boost.issueNumber}:${boost.refundReason ?? "expired"}`;
    const entry = byIssue.get(key) ?? { repoId: boost.githubRepoId, issueNumber: boost.issueNumber, funders: new Set<string>(), reason: boost.refundReason ?? "expired" };
    entry.funders.add(boost.funderAddress);
    byIssue.set(key, entry);
  }
  let sent = 0;
  for (const entry of byIssue.values()) {
    // The one payout decision: shares of a bounty a merged pull request earned stay for its author(s), expired or not.
    if (entry.reason === "expired" && !(await mayRefund(ctx, entry.repoId, entry.issueNumber))) continue;
    if (await refundFunders(ctx, { ...entry, funders: [...entry.funders], by: { kind: "operator" } })) sent++;
  }
  return sent;
}

/**
 * Whether the platform may send an issue's expired shares back: not once the bounty is earned (committed, held,
 * shared, being paid), nor while GitHub says a merged pull request earned it that the platform has not acted on
 * (it is paid instead). A pass that cannot ask GitHub leaves the shares for the next one.
 */
async function mayRefund(ctx: Deps & Partial<Pick<AppContext, "env" | "keyring">>, repoId: number, issueNumber: number): Promise<boolean> {
  let known: Awaited<ReturnType<typeof fixesOfIssue>> = { fixes: [] };
  if (ctx.env && ctx.keyring) {
    const [funder] = await ctx.database.db
      .select({ user: users })
      .from(bountyBoosts)
      .innerJoin(users, eq(users.id, bountyBoosts.userId))
      .where(and(eq(bountyBoosts.githubRepoId, repoId), eq(bountyBoosts.issueNumber, issueNumber)))
      .limit(1);
    try {
      known = await fixesOfIssue({ ...ctx, env: ctx.env, keyring: ctx.keyring }, repoId, issueNumber, funder?.user);
    } catch (err) {
      ctx.log.warn("expiry refunds wait: GitHub could not be asked whether a merged pull request earned the bounty", { repoId, issue: issueNumber, err: (err as Error).message });
      return false;
    }
  }
  const decision = decide(await bountyFacts(ctx, repoId, issueNumber, { withMoney: known.fixes.length > 0 }), { kind: "refund", fixes: known.fixes });
  if (decision.ok) return true;
  ctx.log.info("expired shares kept: the payout decision refused their refund", { repoId, issue: issueNumber, code: decision.refusal.code });
  if (decision.unpaidFix && known.repository && known.appClient && ctx.env) {
    await settleMergedFix({ ...ctx, env: ctx.env }, { repository: known.repository, issueNumber, pullNumber: decision.unpaidFix.number, client: known.appClient }).catch(() => undefined);
  }
  return false;
}

/**
 * Every share of an issue goes back (the issue closed as not planned, after its bounty was cancelled
 * on-chain: the contract then lets anyone refund each funder exactly their share).
 */
export async function refundAllFunders(ctx: Deps, repoId: number, issueNumber: number, reason: RefundReason): Promise<string | undefined> {
  const rows = await ctx.database.db
    .select({ funder: bountyBoosts.funderAddress })
    .from(bountyBoosts)
    .where(and(eq(bountyBoosts.githubRepoId, repoId), eq(bountyBoosts.issueNumber, issueNumber), inArray(bountyBoosts.status, ["active", "refunding"])));
  return refundFunders(ctx, { repoId, issueNumber, funders: rows.map((r) => r.funder), reason, by: { kind: "operator" } });
}

/**
 * A funder takes their own boost back (their whole share on that issue) while nobody has claimed it; after a
 * claim the contract's visible delay applies, so the platform refuses and says why. Someone else's boost: 404.
 */
export async function cancelOwnBoost(ctx: Deps & Pick<AppContext, "env" | "keyring">, input: { user: User; boostId: number }): Promise<BoostView> {
  const db = ctx.database.db;
  const [boost] = await db.select().from(bountyBoosts).where(and(eq(bountyBoosts.id, input.boostId), eq(bountyBoosts.userId, input.user.id))).limit(1);
  if (!boost) throw new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: "Boost not found." });
  if (boost.status === "refunding" || boost.status === "refunded") return boostView(boost, input.user.username, true);
  if (boost.status !== "active") {
    throw new DomainError({ code: ErrorCode.NOT_CANCELLABLE, error: "Not cancellable", message: boost.status === "pending" ? "This boost is not confirmed yet; try again in a moment." : "This boost can no longer be cancelled." });
  }
  // The one payout decision first: a bounty a merged pull request earned keeps every share for its author(s), whether
  // the platform has acted on the merge yet or not (GitHub is asked: a webhook may have been lost).
  const known = await fixesOfIssue(ctx, boost.githubRepoId, boost.issueNumber, input.user);
  const decision = decide(await bountyFacts(ctx, boost.githubRepoId, boost.issueNumber, { withMoney: known.fixes.length > 0 }), { kind: "withdraw", fixes: known.fixes });
  if (!decision.ok) {
    if (decision.unpaidFix && known.repository && known.appClient) await settleMergedFix(ctx, { repository: known.repository, issueNumber: boost.issueNumber, pullNumber: decision.unpaidFix.number, client: known.appClient }).catch(() => undefined);
    throw decision.refusal;
  }
  const [claim] = await db.select({ userId: bountyClaims.userId }).from(bountyClaims).where(and(eq(bountyClaims.githubRepoId, boost.githubRepoId), eq(bountyClaims.issueNumber, boost.issueNumber))).limit(1);
  const community = await liveCommunityBounty(db, boost.githubRepoId, boost.issueNumber);
  if (claim || (community && community.status !== "funded")) {
    throw new DomainError({ code: ErrorCode.SOMEONE_WORKING, error: "Someone is working on it", message: "A contributor has claimed this issue: your boost stays until the issue is resolved, expires or is closed as not planned." });
  }
  const txId = await refundFunders(ctx, { repoId: boost.githubRepoId, issueNumber: boost.issueNumber, funders: [boost.funderAddress], reason: "cancelled", by: { kind: "funder", user: input.user } });
  if (txId) await ctx.outbox.untilBroadcast(await ctx.outbox.get(txId));
  const [after] = await db.select().from(bountyBoosts).where(eq(bountyBoosts.id, boost.id));
  return boostView(after!, input.user.username, true);
}

/** A user's own boosts, newest first (the wallet history's funding part). */
/**
 * The user's boosts for their history, each with its repository and the transactions that moved its money (issue 38:
 * the rows read "Issue #2" with no repository and no transaction): `transactionHash` funded it, `refundTransactionHash`
 * brought it back (null while none did).
 */
export async function boostsOfUser(
  db: Database,
  user: User,
  limit = 100,
): Promise<(BoostView & { repoId: number; issueNumber: number; repository: string | null; transactionHash: string | null; refundTransactionHash: string | null })[]> {
  const rows = await db
    .select({
      boost: bountyBoosts,
      repository: repositories.fullName,
      fundTx: sql<string | null>`(select tx_hash from chain_transactions t where t.id = ${bountyBoosts.fundTxId})`,
      refundTx: sql<string | null>`(select tx_hash from chain_transactions t where t.id = ${bountyBoosts.refundTxId})`,
    })
    .from(bountyBoosts)
    .leftJoin(repositories, eq(repositories.githubRepoId, bountyBoosts.githubRepoId))
    .where(eq(bountyBoosts.userId, user.id))
    .orderBy(sql`${bountyBoosts.createdAt} desc`)
    .limit(limit);
  return rows.map(({ boost, repository, fundTx, refundTx }) => ({
    ...boostView(boost, user.username, true),
    repoId: boost.githubRepoId,
    issueNumber: boost.issueNumber,
    repository,
    transactionHash: fundTx,
    refundTransactionHash: refundTx,
  }));
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
    if (issue.repoId !== payload.repoId) throw new DomainError({ code: ErrorCode.REPOSITORY_CHANGED, error: "Repository changed", message: "This repository is no longer the one the comment was written in." });
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
