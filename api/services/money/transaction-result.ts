import type { AppContext } from "../../context.ts";
import type { ChainTransaction } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { parseEventLogs, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";

/** What a money-moving endpoint answers: the spec's transactionHash and message, plus status. */
export interface TransactionResult {
  transactionHash: string;
  status: "pending" | "confirmed";
  message: string;
  explorerUrl: string | null;
  /** Over the contract's daily outflow cap: the money waits in its queue until this time (ISO), unless the guardian cancels it. */
  queuedUntil?: string;
}

/**
 * A confirmed payout or withdrawal may not have moved money yet: over the
 * contract's daily cap, RepoRewards v2 queues it (OutflowQueued) for its
 * delay. Then the answer says so, with when it can run.
 */
export async function withQueuedOutflow(ctx: Pick<AppContext, "chain">, tx: ChainTransaction, result: TransactionResult, what: string): Promise<TransactionResult> {
  if (result.status !== "confirmed" || !tx.txHash) return result;
  const receipt = await ctx.chain.client.getTransactionReceipt({ hash: tx.txHash as Hex });
  const [queued] = parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs, eventName: "OutflowQueued" });
  if (!queued) return result;
  const until = new Date(Number(queued.args.readyAt) * 1000);
  return {
    ...result,
    queuedUntil: until.toISOString(),
    message: `${what} queued: it is over the contract's daily limit, so it runs after ${until.toUTCString()} unless it is stopped as suspicious.`,
  };
}

/**
 * Turns an outbox row into the response, or into the error that explains
 * why nothing was sent. `failedTitle` is the spec's toast title.
 */
export function transactionResult(ctx: Pick<AppContext, "chain">, tx: ChainTransaction, messages: { pending: string; confirmed: string; failedTitle: string }): TransactionResult {
  if (tx.status === "failed" || tx.status === "reverted") {
    throw new DomainError({
      code: ErrorCode.UNPROCESSABLE,
      error: messages.failedTitle,
      message: explainFailure(tx.error),
      details: { status: tx.status },
    });
  }
  if (!tx.txHash) {
    throw new DomainError({
      code: ErrorCode.SERVICE_UNAVAILABLE,
      error: messages.failedTitle,
      message: "The network is busy: your request is queued and will be sent shortly.",
      details: { status: tx.status },
    });
  }
  const confirmed = tx.status === "confirmed";
  return {
    transactionHash: tx.txHash,
    status: confirmed ? "confirmed" : "pending",
    message: confirmed ? messages.confirmed : messages.pending,
    explorerUrl: explorerTxUrl(ctx.chain.config.network, tx.txHash),
  };
}

/** The outbox's technical error as a sentence for the person who asked. */
export function explainFailure(error: string | null): string {
  if (!error) return "The transaction could not be completed.";
  if (/insufficient funds/i.test(error)) return "Insufficient funds for gas: add XDC to your wallet to pay for network fees.";
  if (/InsufficientPool/.test(error)) return "The pool does not hold enough for this amount.";
  if (/BountyExists/.test(error)) return "A bounty is already assigned to this issue. You cannot change it.";
  if (/BountyNotOpen/.test(error)) return "This bounty is not open: it was already paid or cancelled.";
  if (/NotPoolManager/.test(error)) return "You are not a pool manager of this repository.";
  if (/ERC20InsufficientAllowance/.test(error)) return "The ROXN allowance is too low: approve ROXN first.";
  if (/ERC20InsufficientBalance/.test(error)) return "Insufficient balance for this amount.";
  if (/EnforcedPause/.test(error)) return "Payments are paused for maintenance. Please try again later.";
  if (/NotClaimant/.test(error)) return "Someone registered to work on this issue: its bounty can only be paid to a registered contributor.";
  if (/NotReady/.test(error)) return "This step waits out a delay on the contract and cannot run yet.";
  if (/FeeTooHigh/.test(error)) return "The platform fee changed: review the new fee and try again.";
  return "The transaction could not be completed.";
}
