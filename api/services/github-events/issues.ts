import { and, eq } from "drizzle-orm";
import { encodeFunctionData } from "viem";
import type { AppContext } from "../../context.ts";
import { bounties, bountyClaims, repositories } from "../../../db/schema/index.ts";
import type { WebhookOutcome } from "../../workers/webhooks.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { forgetCached } from "../../github/cache.ts";
import { issuesCacheKey } from "../../github/data.ts";
import { bountyFacts } from "../payouts/facts.ts";
import { committedTo } from "../payouts/decision.ts";
import { clearAwaiting, markAwaiting } from "../money/awaiting.ts";
import { mergedFixesOf, payMergedFix } from "./pull-requests.ts";
import { refundAllFunders } from "../funding/boosts.ts";
import { followIssue } from "./bounty-metadata.ts";

/**
 * issues: any change refreshes the repository's issue list. Then the
 * bounty's state machine (docs/design.md, "A bounty's life"):
 * - closed as completed with a bounty nobody is being paid (GitHub says no
 *   merged pull request closes it, and nobody holds it): awaiting the pool
 *   manager's decision; a merged pull request that closes it pays it here
 *   (exactly once with its own delivery's payout);
 * - closed as not planned: back to the pool when nobody works on it (money
 *   is never forfeited); awaiting decision when a contributor registered
 *   (the pool manager, not a label, decides whether their work is paid);
 * - reopened: an awaiting bounty is open again (a cancelled one is gone back
 *   to the pool: the issue can get a new bounty).
 * A held bounty (owed to an author without a wallet) is never touched here.
 */
export async function handleIssues(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "indexer" | "changes">, payload: Record<string, unknown>): Promise<WebhookOutcome> {
  const repo = payload.repository as { id: number } | undefined;
  const issue = payload.issue as { number: number; state_reason?: string | null; pull_request?: unknown } | undefined;
  if (!repo?.id || !issue?.number) return "ignored";
  const [registered] = await ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, repo.id)).limit(1);
  if (!registered) return "ignored";
  await forgetCached(ctx, issuesCacheKey(repo.id));
  // The bounty's labels and title, and the repository's language, as GitHub says them now (Explore filters by them).
  const followed = await followIssue(ctx.database.db, registered, payload as Parameters<typeof followIssue>[2]);
  ctx.changes.publish([`repo:${repo.id}`, ...(followed ? ["repositories"] : [])]);
  if (issue.pull_request) return "done";
  if (payload.action === "reopened") {
    await clearAwaiting(ctx, repo.id, issue.number);
    return "done";
  }
  if (payload.action !== "closed") return "done";

  const facts = await bountyFacts(ctx, repo.id, issue.number);
  if (facts.chain.status !== "open") {
    // A retried delivery after the cancellation: the funders' refunds may not have gone out yet.
    if (facts.chain.status === "cancelled" && issue.state_reason === "not_planned") await refundAllFunders(ctx, repo.id, issue.number, "not_planned");
    return "done";
  }
  // Earned already (committed to a merged pull request, held for its author, shared among its people): owed, left alone.
  if (committedTo(facts)) return "done";
  if (issue.state_reason !== "not_planned") {
    // Awaiting only once GitHub has said no merged pull request closes it (a throw here, GitHub unreachable, retries
    // the delivery): a merged fix whose own delivery failed or has not been processed yet is paid from here.
    if (registered.installationId) {
      for (const pull of await mergedFixesOf(ctx, registered, issue.number)) await payMergedFix(ctx, registered, pull, issue.number);
    }
    // Paid or held by now when a merged fix earned it (markAwaiting then does nothing).
    await markAwaiting(ctx, { repoId: repo.id, issueNumber: issue.number, reason: "closed_completed" });
    return "done";
  }
  const claimed = await ctx.database.db
    .select({ userId: bountyClaims.userId })
    .from(bountyClaims)
    .where(and(eq(bountyClaims.githubRepoId, repo.id), eq(bountyClaims.issueNumber, issue.number)))
    .limit(1);
  if (claimed.length) {
    await markAwaiting(ctx, { repoId: repo.id, issueNumber: issue.number, reason: "closed_not_planned" });
    return "done";
  }
  const [mirror] = await ctx.database.db
    .select({ allocatedTx: bounties.allocatedTx })
    .from(bounties)
    .where(and(eq(bounties.githubRepoId, repo.id), eq(bounties.issueNumber, issue.number)));
  // The contract's round too: boosts may start a new bounty after the pool's one ended (the mirror keeps its row).
  const { round } = await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(repo.id), BigInt(issue.number)] });
  const { tx } = await ctx.outbox.submitOnce({
    userId: null,
    // One cancellation per allocation and round: a bounty set again later can be cancelled again.
    idempotencyKey: `not-planned:${repo.id}:${issue.number}:${mirror?.allocatedTx ?? "unknown"}:${round}`,
    request: { repoId: repo.id, issueNumber: issue.number },
    kind: "cancel_bounty",
    githubRepoId: repo.id,
    issueNumber: issue.number,
    intent: { repoId: repo.id, issueNumber: issue.number, reason: "issue closed as not planned" },
    signer: { kind: "operator" },
    to: ctx.chain.config.contracts.rewards,
    data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "cancelBounty", args: [BigInt(repo.id), BigInt(issue.number)] }),
  });
  const settled = await ctx.outbox.waitForSettled(tx, 30_000);
  if (settled.status === "sent" || settled.status === "signed" || settled.status === "queued") throw new Error("cancellation not confirmed yet");
  // The bounty is cancelled on-chain: every funder gets exactly their share back (issue 29; a retry re-finds the refund).
  if (settled.status === "confirmed") await refundAllFunders(ctx, repo.id, issue.number, "not_planned");
  return "done";
}
