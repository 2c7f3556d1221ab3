import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { bountyBoosts, chainTransactions, communityBounties, repositories, type CommunityBounty, type CommunityStatus, type Currency, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { parseAmount, toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { clientForRepository } from "../../github/data.ts";
import { GitHubApiError } from "../../github/client.ts";
import { githubUnavailable } from "../../github/repositories.ts";
import { settleMergedFix } from "../payouts/settle.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { boostIssue, liveCommunityBounty, settleBoosts } from "./boosts.ts";
import { fundableIssue } from "./issue-lookup.ts";
import { communityBountyShown, refreshCommunityVisibility } from "./community-visibility.ts";

/**
 * Community bounties (issue 29, items 2 and 8): an issue funded by boosts alone, on a registered repository
 * without a pool bounty or on any public repository. Its money is the funders' shares, escrowed on-chain
 * (boosts.ts); this row gives it the id, title and lifecycle the original product's client reads
 * (spec/original-client-contract.md section 12), in that client's shapes:
 *   pending_payment (created, not funded yet) -> funded (a share is escrowed) -> claimed (a pull request's
 *   author claimed it; verified with GitHub, payout in the outbox) -> completed (paid), or refunded / expired
 *   (every share went back to its funder).
 * On a repository that installs the App, a merged fix is paid like any bounty (pull-requests.ts reads the
 * chain, where the community bounty is an open bounty). Without the App, the pull request's author claims it:
 * GitHub must say the pull request is merged, closes the issue and is theirs; then the operator pays the
 * whole bounty to their wallet.
 */

const STATUS_ORDER: CommunityStatus[] = ["pending_payment", "funded", "claimed", "completed", "refunded", "expired", "failed_verification"];

/** Decimal strings with 8 places, as the original server sends them ("10.00000000"). */
function eight(value: bigint, currency: Currency): string {
  const decimals = DECIMALS[currency];
  const scaled = decimals >= 8 ? value / 10n ** BigInt(decimals - 8) : value * 10n ** BigInt(8 - decimals);
  const whole = scaled / 100_000_000n;
  const fraction = (scaled % 100_000_000n).toString().padStart(8, "0");
  return `${whole}.${fraction}`;
}

interface Totals {
  share: bigint;
  fee: bigint;
  escrowTx: string | null;
  escrowAt: Date | null;
  refundTx: string | null;
  refundedAt: Date | null;
  payoutTx: string | null;
}

async function totalsOf(db: Database, rows: CommunityBounty[]): Promise<Map<number, Totals>> {
  const out = new Map<number, Totals>();
  if (!rows.length) return out;
  const boosts = await db
    .select({ boost: bountyBoosts, fundHash: chainTransactions.txHash })
    .from(bountyBoosts)
    .leftJoin(chainTransactions, eq(chainTransactions.id, bountyBoosts.fundTxId))
    .where(inArray(bountyBoosts.githubRepoId, [...new Set(rows.map((r) => r.githubRepoId))]))
    .orderBy(asc(bountyBoosts.id));
  const refundIds = boosts.map((b) => b.boost.refundTxId).filter((id): id is string => Boolean(id));
  const refunds = new Map(
    refundIds.length ? (await db.select({ id: chainTransactions.id, hash: chainTransactions.txHash }).from(chainTransactions).where(inArray(chainTransactions.id, refundIds))).map((r) => [r.id, r.hash]) : [],
  );
  const payoutIds = rows.map((r) => r.payoutTxId).filter((id): id is string => Boolean(id));
  const payouts = new Map(
    payoutIds.length ? (await db.select({ id: chainTransactions.id, hash: chainTransactions.txHash }).from(chainTransactions).where(inArray(chainTransactions.id, payoutIds))).map((r) => [r.id, r.hash]) : [],
  );
  for (const row of rows) {
    // The shares of this bounty: the boosts of its issue made while it lived.
    const mine = boosts.filter((b) => b.boost.githubRepoId === row.githubRepoId && b.boost.issueNumber === row.issueNumber && b.boost.createdAt >= row.createdAt && (!row.closedAt || b.boost.createdAt <= row.closedAt));
    const counted = mine.filter((b) => b.boost.status !== "failed" && b.boost.status !== "pending");
    const live = row.status === "refunded" || row.status === "expired" ? counted : counted.filter((b) => b.boost.status !== "refunded");
    const refunded = counted.filter((b) => b.boost.status === "refunded");
    out.set(row.id, {
      share: live.reduce((sum, b) => sum + b.boost.amount, 0n),
      fee: live.reduce((sum, b) => sum + b.boost.fee, 0n),
      escrowTx: counted[0]?.fundHash ?? null,
      escrowAt: counted[0]?.boost.settledAt ?? null,
      refundTx: refunded.length ? (refunds.get(refunded.at(-1)!.boost.refundTxId ?? "") ?? null) : null,
      refundedAt: refunded.length ? refunded.at(-1)!.boost.settledAt : null,
      payoutTx: row.payoutTxId ? (payouts.get(row.payoutTxId) ?? null) : null,
    });
  }
  return out;
}

/** The original client's bounty object (section 12, "Bounty object"). */
function bountyObject(row: CommunityBounty, totals: Totals | undefined) {
  const t = totals ?? { share: 0n, fee: 0n, escrowTx: null, escrowAt: null, refundTx: null, refundedAt: null, payoutTx: null };
  const amount = row.status === "pending_payment" ? (row.requestedAmount ?? 0n) : t.share;
  const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
  return {
    id: row.id,
    githubRepoOwner: row.repoOwner,
    githubRepoName: row.repoName,
    githubIssueNumber: row.issueNumber,
    githubIssueId: `${row.repoOwner}/${row.repoName}#${row.issueNumber}`,
    githubIssueUrl: row.issueUrl,
    creatorUserId: row.createdByUserId ?? null,
    createdByGithubUsername: row.createdByLogin,
    title: row.title,
    description: row.description ?? null,
    amount: eight(amount, row.currency),
    currency: row.currency,
    baseBountyAmount: eight(amount, row.currency),
    clientFeeAmount: eight(t.fee, row.currency),
    contributorFeeAmount: eight(0n, row.currency),
    totalPlatformFee: eight(t.fee, row.currency),
    totalPaidByClient: eight(amount + t.fee, row.currency),
    status: row.status,
    paymentStatus: row.status === "pending_payment" ? ("pending" as const) : ("completed" as const),
    paymentMethod: row.status === "pending_payment" ? null : ("crypto" as const),
    blockchainBountyId: null,
    escrowTxHash: t.escrowTx,
    escrowDepositedAt: iso(t.escrowAt),
    claimedByUserId: row.claimedByUserId ?? null,
    claimedByGithubUsername: row.claimedByLogin ?? null,
    claimedPrNumber: row.claimedPrNumber ?? null,
    claimedPrUrl: row.claimedPrUrl ?? null,
    claimedAt: iso(row.claimedAt),
    payoutTxHash: t.payoutTx,
    payoutRecipientAddress: row.payoutRecipient ?? null,
    payoutExecutedAt: iso(row.payoutAt),
    refundTxHash: row.status === "refunded" || row.status === "expired" ? t.refundTx : null,
    refundedAt: row.status === "refunded" || row.status === "expired" ? iso(t.refundedAt ?? row.closedAt) : null,
    expiresAt: null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type CommunityBountyObject = ReturnType<typeof bountyObject>;

async function objects(db: Database, rows: CommunityBounty[]): Promise<CommunityBountyObject[]> {
  const totals = await totalsOf(db, rows);
  return rows.map((r) => bountyObject(r, totals.get(r.id)));
}

/** What the public reads need: the database, and GitHub for the visibility of repositories without the App. */
type ReadDeps = Pick<AppContext, "database" | "changes" | "env" | "log" | "keyring">;

/**
 * The public list. Community bounties of a repository that is private, deleted or no longer readable are left
 * out (community-visibility.ts: the webhook's flag, or GitHub asked again when its last answer is stale).
 */
export async function listCommunityBounties(
  ctx: ReadDeps,
  query: { limit: number; offset: number; status?: CommunityStatus; currency?: Currency; repo?: string; creator?: string },
): Promise<{ bounties: CommunityBountyObject[]; total: number; limit: number; offset: number }> {
  await settleBoosts(ctx);
  await refreshCommunityVisibility(ctx);
  const where = [communityBountyShown()];
  if (query.status) where.push(eq(communityBounties.status, query.status));
  if (query.currency) where.push(eq(communityBounties.currency, query.currency));
  if (query.creator) where.push(eq(communityBounties.createdByLogin, query.creator));
  if (query.repo) where.push(sql`${communityBounties.repoOwner} || '/' || ${communityBounties.repoName} = ${query.repo}`);
  const filter = and(...where);
  const db = ctx.database.db;
  const [{ count } = { count: 0 }] = await db.select({ count: sql<number>`count(*)` }).from(communityBounties).where(filter);
  const rows = await db.select().from(communityBounties).where(filter).orderBy(desc(communityBounties.createdAt), desc(communityBounties.id)).limit(query.limit).offset(query.offset);
  return { bounties: await objects(db, rows), total: Number(count), limit: query.limit, offset: query.offset };
}

/**
 * One community bounty. `publicAnswer` (GET /api/community-bounties/{id}): one of a repository that is private,
 * deleted or no longer readable is not found, as if it never existed. Without it (the answer to its creator's
 * payment or its claimant's claim) it is read as it is.
 */
export async function communityBountyById(ctx: ReadDeps, id: number, options: { publicAnswer?: boolean } = {}): Promise<CommunityBountyObject> {
  await settleBoosts(ctx);
  if (options.publicAnswer) {
    const [found] = await ctx.database.db.select({ repoId: communityBounties.githubRepoId }).from(communityBounties).where(eq(communityBounties.id, id)).limit(1);
    if (found) await refreshCommunityVisibility(ctx, { repoIds: [found.repoId] });
  }
  const [row] = await ctx.database.db
    .select()
    .from(communityBounties)
    .where(and(eq(communityBounties.id, id), options.publicAnswer ? communityBountyShown() : undefined))
    .limit(1);
  if (!row) throw notFound();
  return (await objects(ctx.database.db, [row]))[0]!;
}

const notFound = () => new DomainError({ code: ErrorCode.NOT_FOUND, error: "Bounty not found", message: "Bounty not found" });

/** Completed bounties by their claimer: count and totals per currency (2 decimals); hidden repositories' left out. */
export async function communityLeaderboard(ctx: ReadDeps, limit: number) {
  await refreshCommunityVisibility(ctx);
  const rows = await ctx.database.db.select().from(communityBounties).where(and(eq(communityBounties.status, "completed"), communityBountyShown()));
  const totals = await totalsOf(ctx.database.db, rows);
  const by = new Map<string, { githubUsername: string; bountiesCompleted: number; sums: Record<Currency, bigint> }>();
  for (const row of rows) {
    if (!row.claimedByLogin) continue;
    const entry = by.get(row.claimedByLogin) ?? { githubUsername: row.claimedByLogin, bountiesCompleted: 0, sums: { XDC: 0n, ROXN: 0n, USDC: 0n } };
    entry.bountiesCompleted++;
    entry.sums[row.currency] += totals.get(row.id)?.share ?? 0n;
    by.set(row.claimedByLogin, entry);
  }
  // Truncated like every amount the platform shows (lib/money-format.ts), without thousands separators (the client parses it).
  const two = (v: bigint, c: Currency) => eight(v, c).slice(0, -6);
  return [...by.values()]
    .sort((a, b) => b.bountiesCompleted - a.bountiesCompleted || a.githubUsername.localeCompare(b.githubUsername))
    .slice(0, limit)
    .map((e) => ({ githubUsername: e.githubUsername, bountiesCompleted: e.bountiesCompleted, currencies: { XDC: two(e.sums.XDC, "XDC"), ROXN: two(e.sums.ROXN, "ROXN"), USDC: two(e.sums.USDC, "USDC") } }));
}

/**
 * POST /api/community-bounties: a bounty on an open issue of a public repository, waiting for its creator's
 * payment (/pay). One live community bounty per issue (409 otherwise); an issue with a pool bounty takes boosts
 * instead (409 that says so).
 */
export async function createCommunityBounty(
  ctx: AppContext,
  input: { user: User; owner: string; name: string; issueNumber: number; title: string; description?: string; amount: string; currency: Currency },
): Promise<CommunityBountyObject> {
  const wallet = await walletOfUser(ctx.database.db, input.user.id);
  if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "Wallet required", message: "Set up your Issuepool wallet before creating a bounty." });
  const parsed = parseAmount(input.amount, DECIMALS[input.currency]);
  if (!parsed.ok || parsed.value === 0n) throw new DomainError({ code: ErrorCode.INVALID_AMOUNT, error: "Invalid input", message: "amount: enter a valid amount" });
  const issue = await fundableIssue(ctx, { owner: input.owner, name: input.name, issueNumber: input.issueNumber, user: input.user });
  const db = ctx.database.db;
  const existing = await liveCommunityBounty(db, issue.repoId, issue.issueNumber);
  if (existing) throw new DomainError({ code: ErrorCode.BOUNTY_EXISTS, error: "Bounty already exists", message: `This issue already has a community bounty (#${existing.id}): boost it instead.` });
  // A pool's bounty takes boosts, never a community bounty of its own (whose claim could reach the pool's share);
  // a bounty already earned by a merged pull request takes no new money (payouts/decision.ts).
  const facts = await bountyFacts(ctx, issue.repoId, issue.issueNumber);
  if (facts.chain.status === "open" && facts.chain.poolShare > 0n) {
    throw new DomainError({ code: ErrorCode.POOL_BOUNTY, error: "Bounty already exists", message: "This issue has a bounty from the repository's pool: boost it instead." });
  }
  const decision = decide(facts, { kind: "fund" });
  if (!decision.ok) throw decision.refusal;
  const [row] = await db
    .insert(communityBounties)
    .values({
      githubRepoId: issue.repoId,
      repoOwner: issue.owner,
      repoName: issue.name,
      issueNumber: issue.issueNumber,
      issueUrl: issue.url,
      title: input.title.slice(0, 500),
      description: input.description?.slice(0, 5000) ?? null,
      currency: input.currency,
      status: "pending_payment",
      createdByUserId: input.user.id,
      createdByLogin: input.user.username,
      requestedAmount: parsed.value,
    })
    .returning();
  return (await objects(db, [row!]))[0]!;
}

/** POST /api/community-bounties/{id}/pay: the creator's boost of the amount they asked for (boosts.ts rules). */
export async function payCommunityBounty(ctx: AppContext, input: { user: User; id: number; idempotencyKey: string }) {
  const db = ctx.database.db;
  const [row] = await db.select().from(communityBounties).where(eq(communityBounties.id, input.id)).limit(1);
  if (!row) throw notFound();
  if (row.createdByUserId !== input.user.id) throw new DomainError({ code: ErrorCode.NOT_OWNER, error: "Only bounty creator can pay", message: "Only bounty creator can pay" });
  if (row.status !== "pending_payment") throw new DomainError({ code: ErrorCode.NOT_AWAITING_PAYMENT, error: "Bounty is not awaiting payment", message: `This bounty is ${row.status.replace("_", " ")}.` });
  const issue = await fundableIssue(ctx, { owner: row.repoOwner, name: row.repoName, issueNumber: row.issueNumber, user: input.user });
  const gross = row.requestedAmount ?? 0n;
  const result = await boostIssue(ctx, { user: input.user, issue, currency: row.currency, amount: toDecimalString(gross, DECIMALS[row.currency]), idempotencyKey: `community-pay:${row.id}:${input.idempotencyKey}` });
  const bounty = await communityBountyById(ctx, row.id);
  return { txHash: result.txHash ?? "", blockchainBountyId: null, status: "funded" as const, bounty, message: "Bounty funded" };
}

/**
 * POST /api/community-bounties/{id}/claim: the author of a merged pull request claims the bounty, on a repository
 * without the App (where no webhook tells of the merge). The one payout decision (payouts/decision.ts) judges the
 * pull request by what GitHub says now, asked with the claimant's own token: merged after every share of the
 * bounty was committed, closing the issue, the issue closed and not reopened since, written by the claimant; a
 * pool's share is never paid by a claim, and a repository with the App needs none. Then the bounty is paid once
 * (key community-payout:<id>) to the claimant's wallet, or shared with the pull request's co-authors after a
 * release window, like any merge. The pull request's address stored is the one GitHub reported.
 */
export async function claimCommunityBounty(ctx: AppContext, input: { user: User; id: number; prNumber: number }) {
  const db = ctx.database.db;
  await settleBoosts(ctx);
  const [row] = await db.select().from(communityBounties).where(eq(communityBounties.id, input.id)).limit(1);
  if (!row) throw notFound();
  if (row.status !== "funded") throw new DomainError({ code: ErrorCode.CLAIM_NOT_VERIFIED, error: "Bounty is not open for claims", message: `This bounty is ${row.status.replace("_", " ")}.` });
  const wallet = await walletOfUser(db, input.user.id);
  if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "Wallet required", message: "Set up your Issuepool wallet to be paid." });
  const [registered] = await db.select({ installationId: repositories.installationId }).from(repositories).where(eq(repositories.githubRepoId, row.githubRepoId)).limit(1);
  const client = await clientForRepository(ctx, null, input.user);
  let settled;
  try {
    settled = await settleMergedFix(ctx, {
      repository: { githubRepoId: row.githubRepoId, fullName: `${row.repoOwner}/${row.repoName}` },
      issueNumber: row.issueNumber,
      pullNumber: input.prNumber,
      client,
      claim: { login: input.user.username, appInstalled: Boolean(registered?.installationId), communityBountyId: row.id },
    });
  } catch (err) {
    if (err instanceof GitHubApiError && (err.status === 404 || err.status === 422)) {
      throw new DomainError({ code: ErrorCode.CLAIM_NOT_VERIFIED, error: "Claim not verified", message: "GitHub does not know this pull request." });
    }
    if (err instanceof GitHubApiError) throw githubUnavailable(err);
    throw err;
  }
  if (settled.outcome === "refused") throw settled.refusal;
  const fix = settled.fix!;
  const claimed = await db
    .update(communityBounties)
    .set({
      status: "claimed",
      claimedByUserId: input.user.id,
      claimedByLogin: input.user.username,
      claimedPrNumber: fix.number,
      claimedPrUrl: fix.url,
      claimedAt: new Date(),
      payoutRecipient: settled.outcome === "paid" ? wallet.address : null,
      ...(settled.outcome === "paid" ? { payoutTxId: settled.tx.id, payoutAt: new Date() } : {}),
      updatedAt: new Date(),
    })
    .where(and(eq(communityBounties.id, row.id), eq(communityBounties.status, "funded")))
    .returning();
  if (!claimed.length) throw new DomainError({ code: ErrorCode.ALREADY_CLAIMED, error: "Already claimed", message: "Someone claimed this bounty first." });
  ctx.changes.publish([`bounty:${row.githubRepoId}:${row.issueNumber}`]);
  const message =
    settled.outcome === "split"
      ? "Claim verified: the pull request has co-authors, so the bounty is shared among them after its release window."
      : settled.outcome === "held"
        ? "Claim verified: the bounty is held for you until your wallet is ready."
        : "Claim verified: the payout is on its way.";
  return { status: "claimed" as const, bounty: await communityBountyById(ctx, row.id), message };
}

export { STATUS_ORDER };
