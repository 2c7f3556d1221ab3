import type { AppContext } from "../../context.ts";
import type { ChainTransaction } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { explainTransactionError } from "../../chain/errors.ts";
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
      code: ErrorCode.TRANSACTION_FAILED,
      error: messages.failedTitle,
      message: explainTransactionError(tx.error),
      details: { status: tx.status },
    });
  }
  if (!tx.txHash) {
    throw new DomainError({
      code: ErrorCode.TRANSACTION_QUEUED,
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
