import { and, eq, inArray } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { bounties, bountyShares, repositories, repositoryPools, users, wallets, type Bounty, type Currency, type Repository } from "../../../db/schema/index.ts";
import { ErrorCode, notFound, refused } from "../../errors.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { clientForRepository, openIssues, repositoryInfo, type IssueSummary, type RepoPublicInfo } from "../../github/data.ts";
import { GitHubApiError } from "../../github/client.ts";
import { listedRepositoriesPage, type PublicRepository } from "./list-public.ts";
import { publicListCacheFor } from "./public-list-cache.ts";
import { repositoryByFullName } from "./register.ts";
import { bountyStates, isAdvertised, stateInputs, type StateInputs } from "../money/bounty-state.ts";
import { fundersOf } from "../money/bounties.ts";
import { fundersOfIssues } from "../funding/funders-read.ts";

const decimal = (value: bigint, currency: Currency) => toDecimalString(value, DECIMALS[currency]);

/** One repository of the public list as the API answers it. */
const listedAnswer = (r: PublicRepository) => ({
  id: r.id,
  githubRepoFullName: r.githubRepoFullName,
  description: r.description,
  xdcPoolRewards: decimal(r.pools.XDC, "XDC"),
  roxnPoolRewards: decimal(r.pools.ROXN, "ROXN"),
  usdcPoolRewards: decimal(r.pools.USDC, "USDC"),
  registeredAt: r.registeredAt.toISOString(),
});

/**
 * GET /api/repositories/public: registered public repositories with their pools (spec section 3, "Public
 * repository"). Without `limit`, the whole list, as the spec's clients read it, from the list kept in memory
 * (public-list-cache.ts); with `limit` (and the previous page's `nextCursor`), a keyset page for new clients.
 */
export async function publicRepositoryList(ctx: DatabaseDeps & Pick<AppContext, "changes">, page?: { limit: number; cursor?: string }) {
  if (!page) return { repositories: (await publicListCacheFor(ctx.database.db, ctx.changes).list()).map(listedAnswer) };
  const after = page.cursor ? decodeListCursor(page.cursor) : undefined;
  const { repositories: rows, next } = await listedRepositoriesPage(ctx.database.db, { limit: page.limit, after });
  return { repositories: rows.map(listedAnswer), nextCursor: next ? Buffer.from(`${next.registeredAt}.${next.id}`).toString("base64url") : null };
}

function decodeListCursor(cursor: string): { registeredAt: number; id: number } {
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match) throw refused(ErrorCode.INVALID_CURSOR, "cursor: not a cursor this list gave (start again from the first page).");
  return { registeredAt: Number(match[1]), id: Number(match[2]) };
}

/** A registered repository that may be shown publicly; private ones do not exist here. */
export async function publicRepository(ctx: DatabaseDeps, where: { repoId?: number; fullName?: string }): Promise<Repository> {
  const repository = where.repoId
    ? (await ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, where.repoId)).limit(1))[0]
    : await repositoryByFullName(ctx, where.fullName ?? "");
  if (!repository || repository.isPrivate) throw notFound("Repository not found.");
  return repository;
}

/** The bounties of a repository (open and paid; cancelled ones are gone back to the pool). */
async function repositoryBounties(ctx: DatabaseDeps, repoId: number): Promise<Bounty[]> {
  return ctx.database.db
    .select()
    .from(bounties)
    .where(and(eq(bounties.githubRepoId, repoId), inArray(bounties.status, ["open", "paid"])));
}

/**
 * The bounties a repository advertises to contributors: open or claimed
 * (someone works on it). One awaiting its pool manager's decision or held
 * for a GitHub user is not available to work on (bounty-state.ts).
 */
export async function advertisedBounties(ctx: DatabaseDeps, rows: Bounty[], inputs?: StateInputs) {
  const stateOf = await bountyStates(ctx, rows, inputs);
  const advertised = rows.filter((b) => b.status === "open" && b.amount > 0n && isAdvertised(stateOf(b).state));
  const apart = { awaiting: { ...zero }, held: { ...zero } };
  for (const b of rows) {
    const { state } = stateOf(b);
    if (state === "awaiting" || state === "held") apart[state][b.currency] += b.amount;
    // Being shared among a merged pull request's people: owed, like a held bounty.
    else if (state === "releasing") apart.held[b.currency] += b.amount;
  }
  return { advertised, ...apart };
}

/**
 * Rewards as the spec names them ("Issue reward: issueNumber, amount (XDC)"), XDC only, and the other
 * currencies' rewards apart (`otherRewards`, which the spec's clients do not read): a ROXN or USDC bounty
 * counted among `rewards` shows as XDC on the original client's page (issue 26).
 */
export function splitXdcRewards<T extends { currency: Currency }>(rewards: T[]): { xdc: T[]; other: T[] } {
  return { xdc: rewards.filter((r) => r.currency === "XDC"), other: rewards.filter((r) => r.currency !== "XDC") };
}

/**
 * GET /api/repos/{repoId}/rewards: the issues' XDC rewards (issueNumber, amount: the whole bounty, its funders' shares
 * included), others apart; advertised bounties only.
 */
export async function repositoryRewards(ctx: DatabaseDeps, repoId: number) {
  await publicRepository(ctx, { repoId });
  const rows = (await advertisedBounties(ctx, await repositoryBounties(ctx, repoId))).advertised;
  const funded = await fundersOfIssues(ctx.database.db, repoId, rows.map((b) => b.issueNumber));
  const all = rows
    .sort((a, b) => a.issueNumber - b.issueNumber)
    .map((b) => ({ issueNumber: b.issueNumber, amount: decimal(b.amount + (funded.get(b.issueNumber)?.boosted ?? 0n), b.currency), currency: b.currency }));
  const { xdc, other } = splitXdcRewards(all);
  return { rewards: xdc, otherRewards: other };
}

export interface UnifiedRepo {
  registered: boolean;
  /** Registered and the GitHub App installed on it: the platform follows it. */
  managed: boolean;
  repoId: number | null;
  githubRepoFullName: string;
  createdAt: string | null;
  github: RepoPublicInfo | null;
  issues: IssueSummary[];
  bounties: {
    issueNumber: number;
    title: string;
    html_url: string | null;
    labels: IssueSummary["labels"];
    currency: Currency;
    /** The pool's share. */
    amount: string;
    /** The whole bounty: the pool's share and the funders' active shares (the figure shown). */
    total: string;
    /** The funders' active shares, and who they are. */
    boosted: string;
    funders: ReturnType<typeof fundersOf>["funders"];
    claimants: number;
  }[];
  blockchain: {
    network: string;
    contractAddress: string;
    poolRewards: Record<Currency, string>;
    /** In advertised (open or claimed) bounties, their funders' shares included: the value locked for contributors. */
    allocated: Record<Currency, string>;
    /** Shown apart, not advertised: bounties awaiting the pool manager's decision, and held for a GitHub user. */
    awaiting: Record<Currency, string>;
    held: Record<Currency, string>;
    issues: { issueId: number; rewardAmount: string; currency: Currency }[];
  } | null;
  repoDetails: { poolRewards: string } | null;
  repoRewards: { issueNumber: number; amount: string; currency: Currency }[];
  /**
   * The latest paid bounties (newest first, at most RECENT_PAYOUTS), each with its recipient's GitHub login when the
   * paid wallet belongs to a signed-up user (their profile is /@{login}); never the address itself.
   */
  recentPayouts?: {
    issueNumber: number;
    title: string;
    currency: Currency;
    /** The whole payout. */
    amount: string;
    /** The first recipient's login (a split payout's first share). */
    login: string | null;
    /** Each recipient with their own share (one: the whole amount; several: a co-authored merge's split, from bounty_shares). */
    recipients: { login: string | null; amount: string }[];
    paidAt: string | null;
  }[];
  stats: {
    claims: number;
    rewardsPaid: number;
    paidTotals: Record<Currency, string>;
    contributors: number | null;
    lastCommitAt: string | null;
  };
  price: { xdcUsd: string | null; source: string | null };
  /** GitHub could not be reached and some GitHub data is an older copy. */
  stale: boolean;
  updatedAt: string;
}

/** How many paid bounties the public page and the embed show with their recipients. */
export const RECENT_PAYOUTS = 5;

/** The GitHub logins of the users owning these wallet addresses (one statement, by wallets_address_idx). */
async function loginsOfAddresses(ctx: DatabaseDeps, addresses: string[]): Promise<Map<string, string>> {
  if (addresses.length === 0) return new Map();
  const rows = await ctx.database.db
    .select({ address: wallets.address, login: users.username })
    .from(wallets)
    .innerJoin(users, eq(users.id, wallets.userId))
    .where(inArray(wallets.address, addresses));
  return new Map(rows.map((r) => [r.address, r.login]));
}

/**
 * The shares of split payouts among `paid` (the mirror's bounty_shares, docs/design.md), by issue: the row's own
 * recipient first, then by amount (largest first). A payout without shares is not here (its recipient got it all).
 */
async function payoutShares(ctx: DatabaseDeps, repoId: number, paid: Bounty[]): Promise<Map<number, { recipient: string; amount: bigint }[]>> {
  const out = new Map<number, { recipient: string; amount: bigint }[]>();
  if (!paid.length) return out;
  const rows = await ctx.database.db
    .select({ issueNumber: bountyShares.issueNumber, recipient: bountyShares.recipient, amount: bountyShares.amount })
    .from(bountyShares)
    .where(and(eq(bountyShares.githubRepoId, repoId), inArray(bountyShares.issueNumber, paid.map((b) => b.issueNumber))));
  for (const r of rows) out.set(r.issueNumber, [...(out.get(r.issueNumber) ?? []), { recipient: r.recipient, amount: r.amount }]);
  for (const b of paid) {
    const same = (a: string) => a.toLowerCase() === b.recipient?.toLowerCase();
    out.get(b.issueNumber)?.sort((x, y) => Number(same(y.recipient)) - Number(same(x.recipient)) || (y.amount > x.amount ? 1 : y.amount < x.amount ? -1 : 0));
  }
  return out;
}

const zero: Record<Currency, bigint> = { XDC: 0n, ROXN: 0n, USDC: 0n };
const asDecimals = (amounts: Record<Currency, bigint>) =>
  ({ XDC: decimal(amounts.XDC, "XDC"), ROXN: decimal(amounts.ROXN, "ROXN"), USDC: decimal(amounts.USDC, "USDC") }) as Record<Currency, string>;

/**
 * GET /api/public/unified-repo/{owner}/{repo}: everything the public page
 * shows, real figures only. Where the spec's page had placeholders (random
 * claims, 'Last commit 3 days ago', 'Rewards claimed 2', 5 contributors,
 * invented 50/150 XDC bounties, 0.05 USD per XDC), this returns the real
 * claims, last push, paid rewards and contributors, only the bounties set on
 * the contract, and the XDC price from configuration with its source (or
 * none). Private repositories are answered as unknown.
 */
export async function unifiedRepo(ctx: Pick<AppContext, "env" | "database" | "log" | "keyring" | "chain">, owner: string, name: string): Promise<UnifiedRepo> {
  const fullName = `${owner}/${name}`;
  const price = { xdcUsd: ctx.env.XDC_USD_PRICE ?? null, source: ctx.env.XDC_USD_PRICE_SOURCE ?? null };
  const registered = await repositoryByFullName(ctx, fullName);
  const updatedAt = new Date().toISOString();
  const emptyStats = { claims: 0, rewardsPaid: 0, paidTotals: asDecimals(zero), contributors: null, lastCommitAt: null };

  if (!registered || registered.isPrivate) {
    // Not registered (or private): nothing to show but the name the visitor asked for. GitHub is
    // not asked: any URL would otherwise spend the server's GitHub quota, and a private
    // repository's existence would show.
    const github: RepoPublicInfo | null = null;
    return {
      registered: false,
      managed: false,
      repoId: null,
      githubRepoFullName: fullName,
      createdAt: null,
      github,
      issues: [],
      bounties: [],
      blockchain: null,
      repoDetails: null,
      repoRewards: [],
      stats: emptyStats,
      price,
      stale: false,
      updatedAt,
    };
  }

  const repoId = registered.githubRepoId;
  const client = await clientForRepository(ctx, registered, null);
  const [info, issues] = await Promise.all([
    repositoryInfo(ctx, registered.fullName, repoId, client).catch((err) => (err instanceof GitHubApiError ? null : Promise.reject(err))),
    openIssues(ctx, registered.fullName, repoId, client).catch((err) => (err instanceof GitHubApiError ? null : Promise.reject(err))),
  ]);
  const db = ctx.database.db;
  // Three statements, as before bounty states: the registrations come with the holds and decisions (stateInputs).
  const [pools, repoBounties, inputs] = await Promise.all([
    db.select().from(repositoryPools).where(eq(repositoryPools.githubRepoId, repoId)),
    repositoryBounties(ctx, repoId),
    stateInputs(ctx, [repoId]),
  ]);
  const pool = { ...zero };
  for (const p of pools) pool[p.currency] = p.balance;
  const claims = new Map(inputs.claims.map((r) => [r.issueNumber, r.n]));
  const issueByNumber = new Map((issues?.data ?? []).map((i) => [i.number, i]));
  const { advertised, awaiting, held } = await advertisedBounties(ctx, repoBounties, inputs);
  const open = advertised.sort((a, b) => a.issueNumber - b.issueNumber);
  const funded = await fundersOfIssues(ctx.database.db, repoId, open.map((b) => b.issueNumber));
  const totalOf = (b: Bounty) => b.amount + (funded.get(b.issueNumber)?.boosted ?? 0n);
  const allocated = { ...zero };
  for (const b of open) allocated[b.currency] += totalOf(b);
  const paid = repoBounties.filter((b) => b.status === "paid");
  const paidTotals = { ...zero };
  for (const b of paid) paidTotals[b.currency] += b.amount;
  const recent = paid
    .slice()
    .sort((a, b) => (b.closedAt?.getTime() ?? 0) - (a.closedAt?.getTime() ?? 0) || b.issueNumber - a.issueNumber)
    .slice(0, RECENT_PAYOUTS);
  const shares = await payoutShares(ctx, repoId, recent);
  const recipientsOf = (b: Bounty) => shares.get(b.issueNumber) ?? (b.recipient ? [{ recipient: b.recipient, amount: b.amount }] : []);
  const logins = await loginsOfAddresses(ctx, [...new Set(recent.flatMap((b) => recipientsOf(b).map((r) => r.recipient)))]);

  return {
    registered: true,
    managed: registered.installationId !== null,
    repoId,
    githubRepoFullName: registered.fullName,
    createdAt: registered.registeredAt.toISOString(),
    github: info?.data ?? null,
    issues: issues?.data ?? [],
    bounties: open.map((b) => {
      const issue = issueByNumber.get(b.issueNumber);
      return {
        issueNumber: b.issueNumber,
        title: issue?.title ?? b.issueTitle ?? `Issue #${b.issueNumber}`,
        html_url: issue?.html_url ?? b.issueUrl,
        labels: issue?.labels ?? [],
        currency: b.currency,
        amount: decimal(b.amount, b.currency),
        claimants: claims.get(b.issueNumber) ?? 0,
        ...fundersOf(funded.get(b.issueNumber), b),
      };
    }),
    blockchain: {
      network: "XDC Network",
      // Shown to people: the xdc… form, like every other address the API returns.
      contractAddress: toXdcAddress(ctx.chain.config.contracts.rewards),
      poolRewards: asDecimals(pool),
      allocated: asDecimals(allocated),
      awaiting: asDecimals(awaiting),
      held: asDecimals(held),
      issues: open.map((b) => ({ issueId: b.issueNumber, rewardAmount: decimal(totalOf(b), b.currency), currency: b.currency })),
    },
    repoDetails: { poolRewards: decimal(pool.XDC, "XDC") },
    repoRewards: open.map((b) => ({ issueNumber: b.issueNumber, amount: decimal(totalOf(b), b.currency), currency: b.currency })),
    recentPayouts: recent.map((b) => ({
      issueNumber: b.issueNumber,
      title: issueByNumber.get(b.issueNumber)?.title ?? b.issueTitle ?? `Issue #${b.issueNumber}`,
      currency: b.currency,
      amount: decimal(b.amount, b.currency),
      login: (b.recipient && logins.get(b.recipient)) ?? null,
      recipients: recipientsOf(b).map((r) => ({ login: logins.get(r.recipient) ?? null, amount: decimal(r.amount, b.currency) })),
      paidAt: b.closedAt?.toISOString() ?? null,
    })),
    stats: {
      claims: inputs.claims.reduce((sum, r) => sum + r.n, 0),
      rewardsPaid: paid.length,
      paidTotals: asDecimals(paidTotals),
      contributors: info?.data.contributors_count ?? null,
      lastCommitAt: info?.data.pushed_at ?? registered.pushedAt?.toISOString() ?? null,
    },
    price,
    stale: Boolean(info?.stale || issues?.stale),
    updatedAt,
  };
}

/**
 * GET /api/public/repositories/{githubRepoId}/bounties, the original product's public bounty list: every bounty
 * set on a registered public repository's issues, open and paid (cancelled ones went back to the pool; one left to
 * its funders is a community bounty), with the
 * original's status names (Created: set and open; Distributed: paid) and amounts in whole tokens, the currency
 * not used "0.0" (`currency` and `amount` beside them name ROXN/USDC, which `isRoxn` cannot).
 */
export async function publicRepositoryBounties(ctx: DatabaseDeps, repoId: number) {
  const repository = await publicRepository(ctx, { repoId });
  // An open bounty the pool has nothing on (its pool manager took the share back: cancelPoolShare) is its funders'
  // community bounty now, listed by /api/community-bounties with their total, not here as a pool bounty of 0.
  const rows = (await repositoryBounties(ctx, repoId)).filter((b) => b.status !== "open" || b.amount > 0n).sort((a, b) => a.issueNumber - b.issueNumber);
  return {
    bounties: rows.map((b) => ({
      issueId: String(b.issueNumber),
      status: b.status === "paid" ? ("Distributed" as const) : ("Created" as const),
      xdcAmount: b.currency === "XDC" ? decimal(b.amount, "XDC") : "0.0",
      roxnAmount: b.currency === "ROXN" ? decimal(b.amount, "ROXN") : "0.0",
      isRoxn: b.currency === "ROXN",
      currency: b.currency,
      amount: decimal(b.amount, b.currency),
    })),
    repositoryId: repository.githubRepoId,
    repositoryName: repository.fullName,
  };
}
