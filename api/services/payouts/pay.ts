import { encodeFunctionData, type Address } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import type { ChainSendDeps } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import type { ChainTransaction } from "../../../db/schema/index.ts";
import { isUniqueViolation } from "../../../db/client.ts";
import { conflict, ErrorCode } from "../../errors.ts";

/** The payout of a merged fix: one key per issue, whichever path sends it. */
export const mergePayoutKey = (repoId: number, issueNumber: number) => `merge-payout:${repoId}:${issueNumber}`;

/**
 * The one way a bounty is paid whole to one person (by hand, on a merged fix, a claim, a hold paid on
 * registration): an operator transaction, at most one live per issue (a unique index), which the contract
 * would refuse a second time anyway. Only the payout decision (decision.ts) decides that it is due.
 * `queueOnly`: write the row and return it (the caller, holding the bounty's lock, sends it after letting go).
 */
export async function payBounty(
  ctx: ChainSendDeps,
  input: {
    userId: number | null;
    idempotencyKey: string;
    request: unknown;
    repoId: number;
    issueNumber: number;
    to: Address;
    reason: string;
    replayChecked?: boolean;
    /** More for the intent (e.g. the community bounty it pays). */
    intent?: Record<string, unknown>;
    queueOnly?: boolean;
    /** The bounty's lock's fence (pool-guard.ts): the row is written only while the caller still holds that lock. */
    fence?: (tx: Database) => Promise<void>;
  },
): Promise<ChainTransaction> {
  const req = {
    userId: input.userId,
    idempotencyKey: input.idempotencyKey,
    request: input.request,
    kind: "pay_bounty",
    githubRepoId: input.repoId,
    issueNumber: input.issueNumber,
    intent: { repoId: input.repoId, issueNumber: input.issueNumber, contributor: input.to, reason: input.reason, ...input.intent },
    signer: { kind: "operator" as const },
    to: ctx.chain.config.contracts.rewards,
    data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payBounty", args: [BigInt(input.repoId), BigInt(input.issueNumber), input.to] }),
  };
  try {
    if (input.queueOnly) return (await ctx.outbox.enqueue(req, undefined, { replayChecked: input.replayChecked, fence: input.fence })).tx;
    return (await ctx.outbox.submit(req, { replayChecked: input.replayChecked, fence: input.fence })).tx;
  } catch (err) {
    if (isOnePayoutIndex(err)) throw conflict("This bounty has already been paid.", "Already paid", ErrorCode.ALREADY_PAID);
    throw err;
  }
}

/** The database refused a second live payout of the issue (chain_tx_one_payout_idx, over github_repo_id and issue_number). */
const isOnePayoutIndex = (err: unknown) => isUniqueViolation(err, "chain_transactions.github_repo_id");
