/**
 * The data the repository detail page shows, in one shape whichever source
 * it came from: the public data rendered on the server (registered public
 * repositories, for everyone) or the signed-in user's own view of GitHub
 * (`GET /api/github/repos/{owner}/{name}`, private repositories included).
 */
import type { Currency } from "./funding-rules.ts";
import { fromApi } from "./funding-rules.ts";
import { bountyText, formatFull } from "./format.ts";
import type { ApiResponse } from "./api.ts";

export interface IssueLabel {
  id: number;
  name: string;
  color: string;
}

export interface RepoIssue {
  id: number;
  number: number;
  title: string;
  html_url: string;
  labels: IssueLabel[];
}

export interface RepoView {
  owner: string;
  name: string;
  fullName: string;
  description: string | null;
  htmlUrl: string | null;
  isPrivate: boolean;
  registered: boolean;
  /** The platform's repository id (the GitHub repository id) once registered. */
  repoId: number | null;
  /** The signed-in user's admin right on GitHub; null when unknown (signed out). */
  admin: boolean | null;
  issues: RepoIssue[];
  /** GitHub could not be reached and the issues are an older copy. */
  stale: boolean;
}

/** `GET /api/blockchain/issue-bounty/...` and the items of pool-info. */
export type BountyInfo = ApiResponse<"getIssueBounty">;

/**
 * Bounties whose issue is closed but that are not paid: awaiting the pool manager's decision, or held for a
 * GitHub user until they register. Listed apart from the open issues.
 */
export function awaitingBounties(pool: PoolInfo | null | undefined): (BountyInfo & { issueId: number })[] {
  return sortedBounties(pool).filter((b) => b.state === "awaiting" || b.state === "held");
}

/** The issue a bounty was set on, for a closed issue that is no longer in the open issues list. */
export function issueOfBounty(bounty: BountyInfo & { issueId: number }, repo: Pick<RepoView, "htmlUrl">): RepoIssue {
  return {
    id: -bounty.issueId,
    number: bounty.issueId,
    title: bounty.issueTitle ?? `Issue #${bounty.issueId}`,
    html_url: bounty.issueUrl ?? `${repo.htmlUrl ?? ""}/issues/${bounty.issueId}`,
    labels: [],
  };
}

export type PoolInfo = ApiResponse<"getPoolInfo">;

export interface InitialRepoData {
  repo: RepoView;
  pool: PoolInfo | null;
}

/** What /api/github/repos/{owner}/{name} answers. */
export type GitHubRepoResponse = ApiResponse<"getRepositoryForUser">;

const slimIssue = (i: RepoIssue): RepoIssue => ({
  id: i.id,
  number: i.number,
  title: i.title,
  html_url: i.html_url,
  labels: (i.labels ?? []).map((l) => ({ id: l.id, name: l.name, color: l.color })),
});

export function repoFromGitHub(data: GitHubRepoResponse): RepoView {
  const [owner = "", name = data.repo.name] = data.repo.full_name.split("/");
  return {
    owner,
    name,
    fullName: data.repo.full_name,
    description: data.repo.description,
    htmlUrl: data.repo.html_url,
    isPrivate: data.repo.private,
    registered: data.registered,
    repoId: data.registered ? data.repo.id : null,
    admin: Boolean(data.repo.permissions?.admin),
    issues: data.issues.map(slimIssue),
    stale: Boolean(data.stale),
  };
}

/** The server's unified public view (api/services/repositories/public.ts), narrowed to what this page needs. */
export interface UnifiedLike {
  registered: boolean;
  repoId: number | null;
  githubRepoFullName: string;
  github: { name: string; full_name: string; description: string | null; html_url: string; private: boolean } | null;
  issues: RepoIssue[];
  bounties: { issueNumber: number; currency: Currency; amount: string; total: string; boosted: string; funders: BountyInfo["funders"] }[];
  blockchain: { poolRewards: Record<Currency, string> } | null;
  stale: boolean;
}

/**
 * The server-rendered starting point for a public repository, or null when
 * there is nothing public to show (unknown or private repositories).
 */
export function initialFromUnified(unified: UnifiedLike): InitialRepoData | null {
  if (!unified.github && !unified.registered) return null;
  const fullName = unified.github?.full_name ?? unified.githubRepoFullName;
  const [owner = "", name = ""] = fullName.split("/");
  const repo: RepoView = {
    owner,
    name: unified.github?.name ?? name,
    fullName,
    description: unified.github?.description ?? null,
    htmlUrl: unified.github?.html_url ?? null,
    isPrivate: false,
    registered: unified.registered,
    repoId: unified.registered ? unified.repoId : null,
    admin: null,
    issues: unified.issues.map(slimIssue),
    stale: unified.stale,
  };
  const pool: PoolInfo | null =
    unified.registered && unified.blockchain
      ? {
          xdcPoolRewards: unified.blockchain.poolRewards.XDC,
          roxnPoolRewards: unified.blockchain.poolRewards.ROXN,
          usdcPoolRewards: unified.blockchain.poolRewards.USDC,
          issues: unified.bounties.map((b) => ({
            issueId: b.issueNumber,
            isRoxn: b.currency === "ROXN",
            currency: b.currency,
            xdcAmount: b.currency === "XDC" ? b.amount : "0",
            roxnAmount: b.currency === "ROXN" ? b.amount : "0",
            usdcAmount: b.currency === "USDC" ? b.amount : "0",
            total: b.total,
            boosted: b.boosted,
            funders: b.funders,
            status: "open",
            recipient: null,
            transactionHash: null,
            // The public view lists only advertised bounties (open or someone working on it): docs/design.md.
            state: "open",
            heldFor: null,
            awaitingReason: null,
            issueTitle: null,
            issueUrl: null,
          })),
        }
      : null;
  return { repo, pool };
}

/** The bounty's currency and amount (smallest unit); one currency applies per bounty. */
export function bountyAmount(bounty: BountyInfo): { currency: Currency; amount: bigint } {
  const currency: Currency = bounty.currency ?? (bounty.isRoxn ? "ROXN" : "XDC");
  const raw = currency === "ROXN" ? bounty.roxnAmount : currency === "USDC" ? bounty.usdcAmount : bounty.xdcAmount;
  return { currency, amount: fromApi(raw, currency) };
}

/**
 * The bounty as every page shows it (lib/money-format.ts, issue 38): the whole of it ("54.9750 XDC"), the breakdown
 * when funders added to it ("50.0000 XDC from the pool + 4.9750 XDC from 1 funder"), and who the funders are (a
 * title: anonymous ones unnamed).
 */
export function bountyFigures(bounty: BountyInfo): { currency: Currency; total: string; breakdown: string | null; names: string } {
  const { currency, amount } = bountyAmount(bounty);
  const funders = fromApi(bounty.boosted, currency);
  const text = bountyText({ currency, pool: amount, funders, funderCount: bounty.funders.length });
  const names = bounty.funders.map((f) => `${f.funder ? `@${f.funder}` : "anonymous"}: ${formatFull(fromApi(f.amount, currency), currency)} ${currency}`).join("\n");
  return { currency, ...text, names };
}

/** The whole bounty ('54.9750 XDC', '150.00 ROXN'); 'N/A' when there is none. */
export function bountyLabel(bounty: BountyInfo | null | undefined): string {
  if (!bounty) return "N/A";
  const { amount } = bountyAmount(bounty);
  return amount > 0n || fromApi(bounty.boosted, bounty.currency) > 0n ? bountyFigures(bounty).total : "N/A";
}

/** The pool's share alone (what a cancellation returns to the pool: the funders' shares stay theirs). */
export function poolShareLabel(bounty: BountyInfo): string {
  const { currency, amount } = bountyAmount(bounty);
  return `${formatFull(amount, currency)} ${currency}`;
}

/** A bounty that is set (open or paid) blocks another one: bounties are final. */
export function isBountySet(bounty: BountyInfo | null | undefined): boolean {
  return Boolean(bounty && bounty.status !== "cancelled" && bountyAmount(bounty).amount > 0n);
}

export function poolsOf(pool: PoolInfo | null | undefined): Record<Currency, bigint> | null {
  if (!pool) return null;
  return { XDC: fromApi(pool.xdcPoolRewards, "XDC"), ROXN: fromApi(pool.roxnPoolRewards, "ROXN"), USDC: fromApi(pool.usdcPoolRewards, "USDC") };
}

/** Pool-info's bounties, one per issue number, sorted by issue number (the active bounties list). */
export function sortedBounties(pool: PoolInfo | null | undefined): (BountyInfo & { issueId: number })[] {
  return [...(pool?.issues ?? [])].filter((b) => b.status !== "cancelled").sort((a, b) => a.issueId - b.issueId);
}

/** The first 100 characters of a failure, for the reward cell's tooltip. */
export function errorTooltip(message: string): string {
  return message.slice(0, 100);
}
