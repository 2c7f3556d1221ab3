/**
 * Carrying out the payout decision for a merged pull request (decision.ts, trigger "merge"), whichever path
 * tells of it: the merge webhook, the issue-closed path and the catch-up pass (the installation's client), or
 * the author's claim of a community bounty on a repository without the App (the claimant's own client).
 *
 *   1. GitHub's facts of the pull request (fixes.ts), asked before the lock: merged when, closing the issue,
 *      the issue closed and not reopened since, its author and co-authors;
 *   2. under the bounty's lock, the bounty's facts (facts.ts) and the decision;
 *   3. due: the commitment is recorded for the round (the first one stands), then its effect, once:
 *      co-authors -> a split with its release window (splits/open.ts); one person with a wallet -> the payout
 *      row; without -> held for them;
 *   4. after the lock, the payout row is sent.
 * Every step is idempotent: the same pull request asked again (a redelivered webhook, a retried claim) finds
 * the commitment and the same rows.
 */
import { desc, eq } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import { bountyCommitments, communityBounties, repositories, type ChainTransaction, type PayoutSplit, type User } from "../../../db/schema/index.ts";
import { clientForRepository } from "../../github/data.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import type { GitHubClient } from "../../github/client.ts";
import { withBountyLock } from "../money/pool-guard.ts";
import { holdPayout } from "../github-events/holds.ts";
import { openSplit } from "../splits/open.ts";
import { walletOfGitHubUser } from "../wallets/custodial.ts";
import type { GitHubPerson } from "../splits/co-authors.ts";
import { decide, type NewCommitment } from "./decision.ts";
import { bountyFacts } from "./facts.ts";
import { fixFacts, fixPeople, mergedPullsClosing, type FixFacts, type RepositoryRef } from "./fixes.ts";
import { mergePayoutKey, payBounty } from "./pay.ts";

type Deps = Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "changes">;

export type Settled =
  | { outcome: "paid"; fix: FixFacts; to: GitHubPerson; tx: ChainTransaction }
  | { outcome: "held"; fix: FixFacts; for: GitHubPerson }
  | { outcome: "split"; fix: FixFacts; split: PayoutSplit | undefined }
  | { outcome: "refused"; fix: FixFacts | null; refusal: DomainError; retry: boolean };

export interface MergedFixInput {
  repository: RepositoryRef;
  issueNumber: number;
  pullNumber: number;
  /** Asks GitHub: the installation's client, or the claimant's own. */
  client: GitHubClient;
  /** The pull request's closing references, when the caller asked GitHub for them a moment ago (fixes.ts, fixFacts). */
  closing?: number[];
  /** A community bounty's claim by its author (a repository without the App): its own payout key and rules. */
  claim?: { login: string; appInstalled: boolean; communityBountyId: number };
}

export async function settleMergedFix(ctx: Deps, input: MergedFixInput): Promise<Settled> {
  const { repository, issueNumber } = input;
  const repoId = repository.githubRepoId;
  const fix = await fixFacts(input.client, repository, issueNumber, input.pullNumber, { closing: input.closing });
  if (!fix) {
    return { outcome: "refused", fix, retry: false, refusal: new DomainError({ code: ErrorCode.CLAIM_NOT_VERIFIED, error: "Claim not verified", message: "GitHub does not know this pull request." }) };
  }
  // Co-authors are asked of GitHub only for a pull request that can earn the bounty at all.
  const people = fix.merged && fix.closesIssue && fix.issueState === "closed" ? await fixPeople(input.client, repository, { number: fix.number, author: fix.author }) : { people: [fix.author], unresolved: [] };
  let queued: ChainTransaction | undefined;
  const settled = await withBountyLock(ctx, repoId, issueNumber, async (lock): Promise<Settled> => {
    const facts = await bountyFacts(ctx, repoId, issueNumber, { withMoney: true });
    const decision = decide(facts, { kind: "merge", fix, people: people.people, claim: input.claim && { login: input.claim.login, appInstalled: input.claim.appInstalled } });
    if (!decision.ok) return { outcome: "refused", fix, refusal: decision.refusal, retry: decision.retry ?? false };
    const payees = decision.payees!;
    if (decision.commitment && !decision.again) await recordCommitment(ctx, repoId, issueNumber, decision.commitment);
    if (payees.length > 1) {
      const split = await openSplit(ctx, {
        repository,
        issueNumber,
        pullNumber: fix.number,
        people: payees,
        unresolved: people.unresolved,
        onChain: { currency: facts.chain.currency, amount: facts.chain.amount, round: BigInt(facts.chain.round) },
      });
      return { outcome: "split", fix, split };
    }
    const author = payees[0]!;
    const address = await walletOfGitHubUser(ctx.database.db, author.id);
    if (!address) {
      await holdPayout(ctx, { repoId, issueNumber, author, pullNumber: fix.number });
      return { outcome: "held", fix, for: author };
    }
    queued = await payBounty(ctx, {
      userId: null,
      ...(input.claim
        ? { idempotencyKey: `community-payout:${input.claim.communityBountyId}`, request: { communityBountyId: input.claim.communityBountyId, prNumber: fix.number } }
        : { idempotencyKey: mergePayoutKey(repoId, issueNumber), request: { repoId, issueNumber, to: address } }),
      repoId,
      issueNumber,
      to: address as Address,
      reason: `pull request #${fix.number} merged`,
      intent: input.claim ? { communityBountyId: input.claim.communityBountyId, pullNumber: fix.number } : { pullNumber: fix.number },
      queueOnly: true,
      fence: lock.fence,
    });
    return { outcome: "paid", fix, to: author, tx: queued };
  });
  if (settled.outcome === "paid") settled.tx = await ctx.outbox.untilBroadcast(settled.tx);
  if (settled.outcome === "refused") {
    ctx.log.info("payout decision: nothing due for this pull request", { repoId, issue: issueNumber, pr: input.pullNumber, code: settled.refusal.code, reason: settled.refusal.message });
  } else {
    ctx.log.info("payout decision: bounty earned by a merged pull request", { repoId, issue: issueNumber, pr: fix.number, outcome: settled.outcome, via: input.claim ? "claim" : "merge" });
  }
  return settled;
}

/** The commitment of the round, recorded once: the first decision stands (a concurrent one finds it under the lock anyway). */
export async function recordCommitment(ctx: Pick<AppContext, "database" | "changes">, repoId: number, issueNumber: number, c: NewCommitment): Promise<void> {
  const author = c.people[0]!;
  await ctx.database.db
    .insert(bountyCommitments)
    .values({
      githubRepoId: repoId,
      issueNumber,
      round: c.round,
      via: c.via,
      pullNumber: c.pullNumber,
      pullUrl: c.pullUrl,
      mergedAt: c.mergedAt,
      people: JSON.stringify(c.people.map((p) => ({ id: p.id, login: p.login }))),
      authorGithubId: author.id,
      authorLogin: author.login,
    })
    .onConflictDoNothing();
  ctx.changes.publish([`repo:${repoId}`, `bounty:${repoId}:${issueNumber}`]);
}

/**
 * The merged pull requests GitHub says close the issue, with their facts: what the decision checks a release,
 * a cancellation, a withdrawal or a refund against, so a fix whose webhook was lost (an outage) is not
 * overtaken by them. Empty when the platform cannot ask (an unregistered repository and nobody's token).
 */
export async function fixesOfIssue(
  ctx: Pick<AppContext, "env" | "database" | "log" | "keyring">,
  repoId: number,
  issueNumber: number,
  asUser?: User | null,
): Promise<{ fixes: FixFacts[]; repository?: RepositoryRef; /** The installation's client: the platform pays a fix it finds here (without the App, its author claims). */ appClient?: GitHubClient }> {
  const [registered] = await ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, repoId)).limit(1);
  let repository: RepositoryRef | undefined = registered;
  if (!repository) {
    const [community] = await ctx.database.db
      .select({ owner: communityBounties.repoOwner, name: communityBounties.repoName })
      .from(communityBounties)
      .where(eq(communityBounties.githubRepoId, repoId))
      .orderBy(desc(communityBounties.id))
      .limit(1);
    if (community) repository = { githubRepoId: repoId, fullName: `${community.owner}/${community.name}` };
  }
  if (!repository || (!registered?.installationId && !asUser)) return { fixes: [] };
  const client = await clientForRepository(ctx, registered ?? null, asUser);
  const numbers = await mergedPullsClosing(client, repository, issueNumber);
  const facts = await Promise.all(numbers.slice(0, MAX_FIXES_ASKED).map((n) => fixFacts(client, repository, issueNumber, n)));
  return { fixes: facts.filter((f): f is FixFacts => f !== null), repository, appClient: registered?.installationId ? client : undefined };
}

/**
 * fixesOfIssue for a pool manager's release or cancellation, started before the admin check so that the two GitHub
 * round trips overlap. Asked for users with the pool manager role only; a caller awaits it only after the check
 * passed (a failure before is not reported as unhandled: the promise is handled from the start).
 */
export function fixesBesideAdminCheck(ctx: Parameters<typeof fixesOfIssue>[0], user: User, repoId: number, issueNumber: number): Promise<Awaited<ReturnType<typeof fixesOfIssue>>> {
  if (user.role !== "poolmanager") return Promise.resolve({ fixes: [] });
  const asked = fixesOfIssue(ctx, repoId, issueNumber);
  asked.catch(() => {});
  return asked;
}

/** Pull requests asked about per issue at most (an issue that many merged pull requests close is a rare thing). */
const MAX_FIXES_ASKED = 10;
