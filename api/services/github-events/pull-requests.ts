import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { eq } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import { repositories, users, type Repository } from "../../../db/schema/index.ts";
import type { WebhookOutcome } from "../../workers/webhooks.ts";
import { ErrorCode, hasCode } from "../../errors.ts";
import { installationClient } from "../../github/app-auth.ts";
import { forgetCached } from "../../github/cache.ts";
import { issuesCacheKey } from "../../github/data.ts";
import { encodeFullName } from "../../github/repositories.ts";
import { onChainBounty, payBounty } from "../money/bounties.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { holdPayout, mergePayoutKey } from "./held-payouts.ts";
import type { PullPeople } from "../splits/co-authors.ts";
import { liveSplit } from "../splits/live.ts";
import { openSplit } from "../splits/open.ts";
import { peopleOfPullRequest } from "../splits/pull-people.ts";

interface PullRequestPayload {
  number: number;
  merged: boolean;
  user: { id: number; login: string; type?: string };
}

const CLOSING_REFERENCES = `query($owner:String!,$name:String!,$number:Int!){ repository(owner:$owner,name:$name){ pullRequest(number:$number){ merged author{login} closingIssuesReferences(first:50){ nodes{ number databaseId repository{ databaseId nameWithOwner } } } } } }`;

/** The issues a pull request closes, as GitHub decides them (keywords in its description), via GraphQL. */
export async function closingReferences(ctx: Pick<AppContext, "env">, repository: Repository, number: number): Promise<{ number: number; repoId: number }[]> {
  const client = await installationClient(ctx, repository.installationId!);
  const result = await client.post<{
    data?: { repository?: { pullRequest?: { closingIssuesReferences?: { nodes: { number: number; repository: { databaseId: number } }[] } } } };
    errors?: { message: string }[];
  }>("/graphql", { query: CLOSING_REFERENCES, variables: { owner: repository.owner, name: repository.name, number } });
  if (result.errors?.length) throw new Error(`GitHub GraphQL: ${result.errors.map((e) => e.message).join("; ")}`);
  return (result.data?.repository?.pullRequest?.closingIssuesReferences?.nodes ?? []).map((n) => ({ number: n.number, repoId: n.repository.databaseId }));
}

const CLOSED_BY = `query($owner:String!,$name:String!,$number:Int!){ repository(owner:$owner,name:$name){ issue(number:$number){ closedByPullRequestsReferences(first:25,includeClosedPrs:true){ nodes{ number merged repository{ databaseId } } } } } }`;

/**
 * The merged pull requests of this repository that close the issue, as
 * GitHub says now. Throws when GitHub cannot be asked: "nobody is paid from
 * this bounty" must never be concluded from an outage.
 */
export async function mergedFixesOf(ctx: Pick<AppContext, "env">, repository: Repository, issueNumber: number): Promise<number[]> {
  const client = await installationClient(ctx, repository.installationId!);
  const result = await client.post<{
    data?: { repository?: { issue?: { closedByPullRequestsReferences?: { nodes: { number: number; merged: boolean; repository: { databaseId: number } }[] } } } };
    errors?: { message: string }[];
  }>("/graphql", { query: CLOSED_BY, variables: { owner: repository.owner, name: repository.name, number: issueNumber } });
  if (result.errors?.length) throw new Error(`GitHub GraphQL: ${result.errors.map((e) => e.message).join("; ")}`);
  const nodes = result.data?.repository?.issue?.closedByPullRequestsReferences?.nodes;
  if (!nodes) throw new Error("GitHub GraphQL: no answer about the issue's closing pull requests");
  return nodes.filter((n) => n.merged && n.repository.databaseId === repository.githubRepoId).map((n) => n.number);
}

/**
 * Pays the bounties a merged pull request earns, from what GitHub says of it
 * now (its author, that it is merged): the issue-closed path and the
 * catch-up pass use it when the pull request's own delivery failed or never
 * came. The same idempotent path as the delivery's.
 */
export async function payMergedFix(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "changes">, repository: Repository, pullNumber: number): Promise<void> {
  const client = await installationClient(ctx, repository.installationId!);
  const pull = await client.get<{ number: number; merged: boolean; user: { id: number; login: string; type?: string } }>(
    `/repos/${encodeFullName(repository.fullName)}/pulls/${pullNumber}`,
  );
  if (!pull.merged) return;
  await handlePullRequest(ctx, { action: "closed", repository: { id: repository.githubRepoId }, pull_request: { number: pull.number, merged: true, user: pull.user } });
}

/**
 * pull_request closed and merged: for each issue of this repository the
 * pull request closes that has an unpaid bounty, pay the bounty to the pull
 * request author's wallet, when the author is a registered user with one.
 * Exactly once: the payout's key is per issue, the outbox allows one live
 * payout per issue, and the contract refuses a second payment; a redelivered
 * or concurrent webhook finds the first payout and sends nothing more.
 */
export async function handlePullRequest(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "changes">, payload: Record<string, unknown>): Promise<WebhookOutcome> {
  const repo = payload.repository as { id: number } | undefined;
  const pr = payload.pull_request as PullRequestPayload | undefined;
  if (!repo?.id || !pr?.number) return "ignored";
  const [repository] = await ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, repo.id)).limit(1);
  if (!repository) return "ignored";
  await forgetCached(ctx, issuesCacheKey(repo.id));
  if (payload.action !== "closed" || !pr.merged) return "done";
  if (!repository.installationId) {
    ctx.log.warn("merged pull request on a repository without the app: no closing references", { repoId: repo.id, pr: pr.number });
    return "ignored";
  }

  const closes = (await closingReferences(ctx, repository, pr.number)).filter((ref) => ref.repoId === repository.githubRepoId);
  const [author] = await ctx.database.db.select().from(users).where(eq(users.githubId, pr.user.id)).limit(1);
  const wallet = author ? await walletOfUser(ctx.database.db, author.id) : undefined;
  let people: PullPeople | undefined;
  for (const issue of closes) {
    const bounty = await onChainBounty(ctx, repository.githubRepoId, issue.number);
    if (bounty.status !== "open") continue;
    // A split decides this bounty (its window open, or its shares being paid): nothing here (splits/open.ts).
    if (await liveSplit(ctx, repository.githubRepoId, issue.number)) continue;
    // Co-authors share it: a release window opens instead of paying now (asked of GitHub once per pull request).
    people ??= await peopleOfPullRequest(ctx, repository, { number: pr.number, author: { id: pr.user.id, login: pr.user.login } });
    if (people.people.length > 1) {
      // The chain's round binds the split of a bounty funded by boosts alone (no pool's row in the mirror).
      const { round } = await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(repository.githubRepoId), BigInt(issue.number)] });
      await openSplit(ctx, { repository, issueNumber: issue.number, pullNumber: pr.number, people: people.people, unresolved: people.unresolved, onChain: { currency: bounty.currency, amount: bounty.amount, round } });
      continue;
    }
    if (!wallet) {
      // Not lost: held for the author, paid when they register (held-payouts.ts).
      await holdPayout(ctx, { repoId: repository.githubRepoId, issueNumber: issue.number, author: pr.user, pullNumber: pr.number });
      continue;
    }
    try {
      const tx = await payBounty(ctx, {
        userId: null,
        idempotencyKey: mergePayoutKey(repository.githubRepoId, issue.number),
        request: { repoId: repository.githubRepoId, issueNumber: issue.number, to: wallet.address },
        repoId: repository.githubRepoId,
        issueNumber: issue.number,
        to: wallet.address as Address,
        reason: `pull request #${pr.number} merged`,
      });
      ctx.log.info("bounty payout submitted for a merged fix", { repoId: repo.id, issue: issue.number, pr: pr.number, tx: tx.txHash });
    } catch (err) {
      // Already paid or being paid (by hand, or for another merged pull request): nothing more to send.
      if (hasCode(err, ErrorCode.ALREADY_PAID, ErrorCode.BOUNTY_SETTLING, ErrorCode.IDEMPOTENCY_CONFLICT)) continue;
      throw err;
    }
  }
  return "done";
}
