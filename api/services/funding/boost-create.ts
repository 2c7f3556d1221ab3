/**
 * Creating a boost (issue 29): a signed-in user with a wallet adds a share to an open issue's bounty from their own
 * wallet, in the bounty's currency; the first boost of an issue without a bounty opens a community bounty. The row is
 * written `pending` in the same transaction that queues the funding and checks the funder's daily limit
 * (money/limits.ts); the mirror (boost-mirror.ts) moves it on.
 */
import { and, eq } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import type { Database, DbOrTx } from "../../../db/client.ts";
import { bountyBoosts, communityBounties, users, type BountyBoost, type Currency, type User } from "../../../db/schema/index.ts";
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
import type { IssueRef } from "./issue-lookup.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";
import { boostView, type BoostView } from "./funders-read.ts";
import { liveCommunityBounty } from "./boost-read.ts";

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
async function ensureCommunityBounty(db: DbOrTx, issue: IssueRef, currency: Currency, creator: User): Promise<number> {
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
