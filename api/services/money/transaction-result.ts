import type { AppContext } from "../../context.ts";
import type { ChainTransaction } from "../../../db/schema/index.ts";
import { ApiError, ErrorCode } from "../../errors.ts";
import { explorerTxUrl } from "../../chain/config.ts";

/** What a money-moving endpoint answers: the spec's transactionHash and message, plus status. */
export interface TransactionResult {
  transactionHash: string;
  status: "pending" | "confirmed";
  message: string;
  explorerUrl: string | null;
}

/**
 * Turns an outbox row into the response, or into the error that explains
 * why nothing was sent. `failedTitle` is the spec's toast title.
 */
export function transactionResult(ctx: AppContext, tx: ChainTransaction, messages: { pending: string; confirmed: string; failedTitle: string }): TransactionResult {
  if (tx.status === "failed" || tx.status === "reverted") {
    throw new ApiError({
      code: ErrorCode.UNPROCESSABLE,
      error: messages.failedTitle,
      message: explainFailure(tx.error),
      details: { status: tx.status },
    });
  }
  if (!tx.txHash) {
    throw new ApiError({
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
  return "The transaction could not be completed.";
}
