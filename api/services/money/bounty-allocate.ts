/**
 * Setting a bounty: the pool manager's request (allocateBounty) and the rules every allocation passes wherever it
 * comes from (submitAllocation: the API, a `/bounty` comment, a scoped issue): minimum, one bounty per issue, not more
 * than the pool holds, checked and queued under the pool's lock.
 */
import { and, eq, gt, inArray, isNull, notInArray, or } from "drizzle-orm";
import { encodeFunctionData } from "viem";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { chainTransactions, type Currency, type User } from "../../../db/schema/index.ts";
import { conflict, DomainError, ErrorCode } from "../../errors.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { parseAmount, toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { formatAmount, formatExact } from "../../../lib/money-format.ts";
import { createGitHubClient } from "../../github/client.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";
import { registeredRepository, requireManagedRepository } from "./access.ts";
import { CURRENCY_INDEX, MIN_BOUNTY, requireAmountStep } from "./rules.ts";
import { transactionResult, type TransactionResult } from "./transaction-result.ts";
import { poolDebitsAfter, poolSnapshot, withPoolLock } from "./pool-guard.ts";
import { BOUNTY_WAIT_MS, onChainBounty, openIssue, type GitHubIssue } from "./bounty-lookups.ts";

const invalid = (message: string, code: ErrorCode = ErrorCode.INVALID_AMOUNT) => new DomainError({ code, error: "Invalid Amount", message });

export interface AllocateInput {
  user: User;
  repoId: number;
  issueNumber: number;
  bountyAmount: unknown;
  currency: Currency;
  githubRepoFullName?: string | null;
  issueTitle?: string;
  issueUrl?: string;
  idempotencyKey: string;
}

/**
 * POST /api/blockchain/allocate-bounty/{repoId}/{issueId}: moves an amount
 * from the pool to an open issue's bounty, final once set. Checked here
 * whatever the client sent: manager and admin rights, an open issue of this
 * repository (not a pull request), the currency's minimum, the pool's
 * balance, and no bounty already assigned. The operator signs (the platform
 * acts for the verified pool manager), and the answer waits for confirmation
 * up to 12 s.
 */
export async function allocateBounty(ctx: Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox" | "indexer">, input: AllocateInput): Promise<TransactionResult> {
  const request = {
    route: "allocate_bounty",
    repoId: input.repoId,
    issueNumber: input.issueNumber,
    bountyAmount: String(input.bountyAmount),
    currency: input.currency,
  };
  const messages = {
    pending: "Bounty submitted but not yet confirmed (timeout)",
    confirmed: `${input.currency} bounty assigned`,
    failedTitle: `Error Assigning ${input.currency} Bounty`,
  };
  let tx = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (!tx) {
    // The admin check and the open-issue check ask GitHub side by side; an access error is reported first.
    const [managed, checkedIssue] = await Promise.allSettled([
      requireManagedRepository(ctx, input.user, { repoId: input.repoId, fullName: input.githubRepoFullName, action: "setBounty" }),
      input.user.role === "poolmanager"
        ? registeredRepository(ctx, input.repoId).then(async (repository) =>
            openIssue(createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token: await userGitHubToken(ctx, input.user) }), repository.fullName, input.issueNumber),
          )
        : Promise.resolve(undefined),
    ]);
    if (managed.status === "rejected") throw managed.reason;
    if (checkedIssue.status === "rejected") throw checkedIssue.reason;
    const issue = checkedIssue.value!;
    tx = await submitAllocation(ctx, {
      userId: input.user.id,
      idempotencyKey: input.idempotencyKey,
      request,
      repoId: input.repoId,
      issueNumber: input.issueNumber,
      currency: input.currency,
      amount: input.bountyAmount,
      issue,
      replayChecked: true,
    });
  }
  const settled = await ctx.outbox.waitForSettled(tx, BOUNTY_WAIT_MS);
  if (settled.status === "confirmed") await ctx.indexer.catchUp();
  return transactionResult(ctx, settled, messages);
}

/**
 * The rules every bounty allocation passes, wherever it comes from (the
 * API, a `/bounty` comment): the currency's minimum, no bounty already
 * assigned (final once set), not more than the pool holds. Then the operator
 * transaction. The caller has checked who may allocate and that the issue is
 * open.
 */
export async function submitAllocation(
  ctx: Pick<AppContext, "env" | "database" | "chain" | "outbox">,
  input: {
    userId: number | null;
    idempotencyKey: string;
    request: unknown;
    repoId: number;
    issueNumber: number;
    currency: Currency;
    amount: unknown;
    issue: { title: string; html_url: string; labels?: GitHubIssue["labels"] };
    /** The caller has just looked the key up (outbox.replay). */
    replayChecked?: boolean;
  },
) {
  const decimals = DECIMALS[input.currency];
  const parsed = parseAmount(input.amount, decimals);
  if (!parsed.ok || parsed.value === 0n) throw invalid("Please enter a valid bounty amount.");
  const amount = parsed.value;
  const minimum = MIN_BOUNTY[input.currency];
  if (amount < minimum) throw invalid(`Minimum bounty must be at least ${toDecimalString(minimum, decimals)} ${input.currency}`, ErrorCode.BELOW_MINIMUM);
  requireAmountStep(amount, input.currency);
  // Checked and queued under the pool's lock, counting what is already on its way out of the pool and any allocation
  // of this issue not yet mined: of concurrent allocations only those the pool covers are sent, the rest get the
  // platform's 400/409 and cost nobody gas (issue 25). Only the row is written under the lock: the next holder counts
  // it as a debit on its way from the moment it exists (queued), so its signing and broadcast wait outside (they were
  // two thirds of the lock's time: allocations into one pool queued behind each other's signing pass).
  // The chain's figures are read before the lock, at one block (pool-guard.ts, PoolSnapshot): under the lock, only
  // the database is read, and what happened on-chain since that block is counted from the outbox's rows.
  const snapshot = await poolSnapshot(ctx, input.repoId);
  const bountyThen = onChainBounty(ctx, input.repoId, input.issueNumber, snapshot.block);
  bountyThen.catch(() => undefined); // awaited under the lock (or not at all: a replay)
  const queued = await withPoolLock(ctx, input.repoId, async (lock) => {
    // One round of reads, side by side (the section's length is how many rounds it waits for the database).
    const [earlier, pending, inFlight, boostedSince] = await Promise.all([
      ctx.outbox.replay(input.userId, input.idempotencyKey, input.request),
      poolDebitsAfter(ctx, input.repoId, input.currency, snapshot),
      pendingAllocation(ctx, input.repoId, input.issueNumber, snapshot.block),
      boostsAfter(ctx, input.repoId, input.issueNumber, snapshot.block),
    ]);
    if (earlier) return earlier;
    // A boost may have opened a community bounty on this issue since the block: then the bounty as it is now.
    const current = boostedSince ? await onChainBounty(ctx, input.repoId, input.issueNumber) : await bountyThen;
    const pool = snapshot.pool;
    if (current.status === "open" || current.status === "paid") {
      throw conflict(
        `A bounty of ${formatExact(current.amount, current.currency)} ${current.currency} is already assigned. You cannot change it.`,
        "Bounty already assigned",
        ErrorCode.BOUNTY_EXISTS,
      );
    }
    if (inFlight) {
      throw conflict(`A bounty of ${formatExact(inFlight.amount, inFlight.currency)} ${inFlight.currency} is already being assigned. You cannot change it.`, "Bounty already assigned", ErrorCode.BOUNTY_EXISTS);
    }
    const available = pool[input.currency] - pending;
    if (amount > available) {
      throw invalid(`Amount cannot exceed available ${input.currency} pool balance (${formatAmount(available > 0n ? available : 0n, input.currency, 4)} ${input.currency})`);
    }
    const { tx } = await ctx.outbox.enqueue({
      userId: input.userId,
      idempotencyKey: input.idempotencyKey,
      request: input.request,
      kind: "allocate_bounty",
      githubRepoId: input.repoId,
      issueNumber: input.issueNumber,
      intent: {
        repoId: input.repoId,
        issueNumber: input.issueNumber,
        currency: input.currency,
        amount: amount.toString(),
        issueTitle: input.issue.title,
        issueUrl: input.issue.html_url,
        // Remembered with the bounty for /explore's label filter (api/chain/indexer-mirror.ts).
        issueLabels: (input.issue.labels ?? []).flatMap((l) => (typeof l === "string" ? [l] : l.name ? [l.name] : [])),
      },
      signer: { kind: "operator" },
      to: ctx.chain.config.contracts.rewards,
      data: encodeFunctionData({
        abi: RepoRewardsAbi,
        functionName: "allocateBounty",
        args: [BigInt(input.repoId), BigInt(input.issueNumber), CURRENCY_INDEX[input.currency], amount],
      }),
    }, undefined, { replayChecked: true, fence: lock.fence });
    return tx;
  });
  return ctx.outbox.untilBroadcast(queued);
}


/**
 * An allocation of this issue on its way to the chain (queued, signed or sent), or confirmed after `block` (the block
 * the bounty was read at does not show it), if any.
 */
async function pendingAllocation(ctx: DatabaseDeps, repoId: number, issueNumber: number, block: bigint): Promise<{ currency: Currency; amount: bigint } | undefined> {
  const [row] = await ctx.database.db
    .select({ intent: chainTransactions.intent })
    .from(chainTransactions)
    .where(
      and(
        eq(chainTransactions.kind, "allocate_bounty"),
        eq(chainTransactions.githubRepoId, repoId),
        eq(chainTransactions.issueNumber, issueNumber),
        isNull(chainTransactions.oldChain),
        or(notInArray(chainTransactions.status, ["confirmed", "failed", "reverted"]), and(eq(chainTransactions.status, "confirmed"), gt(chainTransactions.blockNumber, Number(block)))),
      ),
    )
    .limit(1);
  if (!row) return undefined;
  const intent = JSON.parse(row.intent) as { currency: Currency; amount: string };
  return { currency: intent.currency, amount: BigInt(intent.amount) };
}

/** Whether a boost of this issue may have reached the chain after `block` (sent or mined with no block recorded, or after it). */
async function boostsAfter(ctx: DatabaseDeps, repoId: number, issueNumber: number, block: bigint): Promise<boolean> {
  const [row] = await ctx.database.db
    .select({ id: chainTransactions.id })
    .from(chainTransactions)
    .where(
      and(
        eq(chainTransactions.kind, "boost"),
        eq(chainTransactions.githubRepoId, repoId),
        eq(chainTransactions.issueNumber, issueNumber),
        isNull(chainTransactions.oldChain),
        or(inArray(chainTransactions.status, ["signed", "sent"]), and(eq(chainTransactions.status, "confirmed"), gt(chainTransactions.blockNumber, Number(block)))),
      ),
    )
    .limit(1);
  return Boolean(row);
}
