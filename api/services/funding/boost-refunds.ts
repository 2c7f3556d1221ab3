/**
 * Sending funders' shares back, exactly the share and once: a funder taking their own boost back, the periodic pass
 * for expired shares and shares of a cancelled bounty, and every share of an issue closed as not planned. Each asks
 * the one payout decision first.
 */
import { and, eq, gte, inArray, isNull, sql } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import { bountyBoosts, bountyClaims, chainEvents, chainTransactions, users, type RefundReason, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { fundersContractOf } from "./funders-contract.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";
import { fixesOfIssue, settleMergedFix } from "../payouts/settle.ts";
import { boostView, type BoostView } from "./funders-read.ts";
import { liveCommunityBounty } from "./boost-read.ts";
import { settleBoosts } from "./boost-mirror.ts";

type Deps = Pick<AppContext, "database" | "outbox" | "chain" | "changes" | "log">;

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
