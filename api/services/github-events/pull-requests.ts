import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { repositories, type Repository } from "../../../db/schema/index.ts";
import type { WebhookOutcome } from "../../workers/webhooks.ts";
import { installationClient } from "../../github/app-auth.ts";
import { forgetCached } from "../../github/cache.ts";
import { issuesCacheKey } from "../../github/data.ts";
import { chainBounty } from "../payouts/facts.ts";
import { closingIssueNumbers, mergedPullsClosing } from "../payouts/fixes.ts";
import { settleMergedFix, type Settled } from "../payouts/settle.ts";
import { syncPullPreview } from "../attempts/preview.ts";
import { afterMerge } from "../attempts/merges.ts";

interface PullRequestPayload {
  number: number;
  merged: boolean;
  user: { id: number; login: string; type?: string };
}

/**
 * The issues of this repository a pull request closes, as GitHub decides them (payouts/fixes.ts); none when GitHub
 * answers nothing about the pull request.
 */
export async function closingReferences(ctx: Pick<AppContext, "env">, repository: Repository, number: number): Promise<number[]> {
  return (await closingIssueNumbers(await installationClient(ctx, repository.installationId!), repository, number)) ?? [];
}

/**
 * The merged pull requests of this repository that GitHub says close the issue (any time: the payout decision
 * judges each). Throws when GitHub cannot be asked: "nobody is paid from this bounty" must never be concluded
 * from an outage.
 */
export async function mergedFixesOf(ctx: Pick<AppContext, "env">, repository: Repository, issueNumber: number): Promise<number[]> {
  return mergedPullsClosing(await installationClient(ctx, repository.installationId!), repository, issueNumber);
}

/**
 * A merged pull request, judged by the one payout decision from what GitHub says of it now (payouts/settle.ts):
 * the issue-closed path and the catch-up pass use it when the pull request's own delivery failed or never came,
 * the delivery itself for each issue it closes. Throws when the decision must wait (the bounty's funding not yet
 * confirmed), so the delivery or the pass is retried.
 */
export async function payMergedFix(
  ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "changes">,
  repository: Repository,
  pullNumber: number,
  issueNumber: number,
  known: { closing?: number[] } = {},
): Promise<Settled> {
  const client = await installationClient(ctx, repository.installationId!);
  const settled = await settleMergedFix(ctx, { repository, issueNumber, pullNumber, client, closing: known.closing });
  if (settled.outcome === "refused" && settled.retry) throw new Error(`payout of ${repository.fullName}#${issueNumber} must wait: ${settled.refusal.message}`);
  return settled;
}

/**
 * pull_request closed and merged: for each issue of this repository the pull request closes whose bounty is
 * open on-chain, the payout decision (payouts/decision.ts) says whether it is earned and by whom; the answer is
 * carried out once (paid, shared through a split, or held for an author without a wallet). Exactly once: the
 * commitment is per round, the payout's key is per issue, the outbox allows one live payout per issue, and the
 * contract refuses a second payment; a redelivered or concurrent webhook finds the first decision.
 */
export async function handlePullRequest(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "changes" | "mailer">, payload: Record<string, unknown>): Promise<WebhookOutcome> {
  const repo = payload.repository as { id: number } | undefined;
  const pr = payload.pull_request as PullRequestPayload | undefined;
  if (!repo?.id || !pr?.number) return "ignored";
  const [repository] = await ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, repo.id)).limit(1);
  if (!repository) return "ignored";
  await forgetCached(ctx, issuesCacheKey(repo.id));
  // The payout preview and the record of competing pull requests (issue 39): on every push and change of state.
  if (repository.installationId && ["opened", "reopened", "synchronize", "edited"].includes(String(payload.action))) await syncPullPreview(ctx, repository, pr.number);
  if (payload.action === "closed" && !pr.merged && repository.installationId) await syncPullPreview(ctx, repository, pr.number);
  if (payload.action !== "closed" || !pr.merged) return "done";
  if (!repository.installationId) {
    ctx.log.warn("merged pull request on a repository without the app: no closing references", { repoId: repo.id, pr: pr.number });
    return "ignored";
  }
  // Asked once for this delivery: the decision's facts and the preview take this answer instead of asking again.
  const closes = await closingReferences(ctx, repository, pr.number);
  for (const issue of closes) {
    // Only issues with a bounty open on-chain are asked about (the decision asks GitHub the rest, fresh).
    if ((await chainBounty(ctx, repository.githubRepoId, issue)).status !== "open") continue;
    await payMergedFix(ctx, repository, pr.number, issue, { closing: closes });
  }
  // After the money (which the attempts never change): attempts end, the other pull requests' authors are told.
  await afterMerge(ctx, repository, { number: pr.number, author: pr.user }, closes);
  return "done";
}
