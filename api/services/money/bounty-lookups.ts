/**
 * What a bounty write asks before it acts, and what the bounty's readers ask of the chain: the issue as GitHub states
 * it (open, not a pull request), the bounty and the pool as the contract states them (now or at a block), and how long
 * a bounty answer waits for its transaction.
 */
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import type { Currency } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, notFound } from "../../errors.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { CURRENCY_BY_INDEX } from "../../chain/indexer.ts";
import { GitHubApiError, type GitHubClient } from "../../github/client.ts";
import { encodeFullName, githubUnavailable } from "../../github/repositories.ts";



export const BOUNTY_WAIT_MS = 12_000; // the client gives up at 15 s (spec section 7)
export interface GitHubIssue {
  number: number;
  title: string;
  html_url: string;
  state: string;
  pull_request?: unknown;
  labels?: (string | { name?: string })[];
}

/** The issue, if it is an open issue (not a pull request) of the repository. */
export async function openIssue(client: GitHubClient, fullName: string, number: number): Promise<GitHubIssue> {
  let issue: GitHubIssue;
  try {
    issue = await client.get<GitHubIssue>(`/repos/${encodeFullName(fullName)}/issues/${number}`);
  } catch (err) {
    if (err instanceof GitHubApiError && err.status === 404) throw notFound(`Issue #${number} was not found in ${fullName}.`);
    throw githubUnavailable();
  }
  if (issue.pull_request) throw new DomainError({ code: ErrorCode.NOT_AN_ISSUE, error: "Not an issue", message: `#${number} is a pull request, not an issue.` });
  if (issue.state !== "open") throw new DomainError({ code: ErrorCode.ISSUE_CLOSED, error: "Issue closed", message: `Issue #${number} is closed.` });
  return issue;
}

export interface OnChainBounty {
  currency: Currency;
  amount: bigint;
  status: "none" | "open" | "paid" | "cancelled" | "queued";
  recipient: Address;
}

/** The bounty as the chain states it now, or at `block`. */
export async function onChainBounty(ctx: Pick<AppContext, "chain">, repoId: number, issueNumber: number, block?: bigint): Promise<OnChainBounty> {
  const [currency, amount, status, recipient] = (await ctx.chain.client.readContract({
    address: ctx.chain.config.contracts.rewards,
    abi: RepoRewardsAbi,
    functionName: "getBounty",
    args: [BigInt(repoId), BigInt(issueNumber)],
    ...(block === undefined ? {} : { blockNumber: block }),
  })) as readonly [number, bigint, number, Address];
  return { currency: CURRENCY_BY_INDEX[currency]!, amount, status: (["none", "open", "paid", "cancelled", "queued"] as const)[status]!, recipient };
}

export async function onChainPool(ctx: Pick<AppContext, "chain">, repoId: number): Promise<Record<Currency, bigint>> {
  const [xdc, roxn, usdc] = (await ctx.chain.client.readContract({
    address: ctx.chain.config.contracts.rewards,
    abi: RepoRewardsAbi,
    functionName: "getPool",
    args: [BigInt(repoId)],
  })) as readonly [bigint, bigint, bigint];
  return { XDC: xdc, ROXN: roxn, USDC: usdc };
}
