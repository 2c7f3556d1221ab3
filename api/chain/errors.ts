import {
  BaseError,
  ContractFunctionRevertedError,
  decodeErrorResult,
  ExecutionRevertedError,
  InsufficientFundsError,
  IntrinsicGasTooLowError,
  NonceTooLowError,
  type Hex,
} from "viem";
import { RepoRewardsAbi, RoxnAbi, TestUsdcAbi } from "../../contracts/artifacts/index.ts";

/**
 * Classifying what the chain said, so the outbox knows whether to fail a
 * transaction (it can never succeed) or retry it (the node did not answer).
 */
const ERROR_ABIS = [...RepoRewardsAbi, ...RoxnAbi, ...TestUsdcAbi].filter((item) => item.type === "error");

function walk(err: unknown, predicate: (e: unknown) => boolean): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (predicate(e)) return true;
  }
  return false;
}

const message = (e: unknown) => String((e as { details?: string }).details ?? "") + " " + String((e as Error).message ?? "");

export function isRevert(err: unknown): boolean {
  return walk(err, (e) => e instanceof ContractFunctionRevertedError || e instanceof ExecutionRevertedError || /execution reverted|reverted/i.test(message(e)));
}

export function isInsufficientFunds(err: unknown): boolean {
  return walk(err, (e) => e instanceof InsufficientFundsError || /insufficient funds/i.test(message(e)));
}

export function isNonceTooLow(err: unknown): boolean {
  return walk(err, (e) => e instanceof NonceTooLowError || /nonce too low|nonce has already been used/i.test(message(e)));
}

/** The estimate says the transaction cannot succeed as it stands. */
export function isPermanentEstimateError(err: unknown): boolean {
  return isRevert(err) || isInsufficientFunds(err);
}

/** The node refused the signed transaction for a reason a retry will not fix. */
export function isPermanentBroadcastError(err: unknown): boolean {
  return (
    isInsufficientFunds(err) ||
    walk(err, (e) => e instanceof IntrinsicGasTooLowError || /intrinsic gas too low|exceeds block gas limit|invalid sender/i.test(message(e)))
  );
}

/** A short, log- and user-safe description: the contract's custom error when there is one. */
export function describeChainError(err: unknown): string {
  let data: Hex | undefined;
  walk(err, (e) => {
    const d = (e as { data?: unknown }).data;
    if (typeof d === "string" && d.startsWith("0x") && d.length >= 10) data = d as Hex;
    else if (d && typeof d === "object" && typeof (d as { data?: unknown }).data === "string") data = (d as { data: Hex }).data;
    return Boolean(data);
  });
  if (data) {
    try {
      const decoded = decodeErrorResult({ abi: ERROR_ABIS, data });
      const args = ((decoded.args ?? []) as readonly unknown[]).map((a) => (typeof a === "bigint" ? a.toString() : String(a)));
      return `${decoded.errorName}(${args.join(", ")})`;
    } catch {
      // not one of ours: fall through to the message
    }
  }
  // viem's outer message for a refused send is "Transaction creation failed."; the cause says why.
  if (isInsufficientFunds(err)) return "insufficient funds for gas and value";
  if (err instanceof BaseError) return err.shortMessage;
  return err instanceof Error ? err.message.split("\n")[0]! : String(err);
}

/**
 * A failed transaction's recorded error (what the node or the contract said, `describeChainError`) as a sentence
 * for the person who asked. Reading the chain's words is this module's job, not the services'.
 */
export function explainTransactionError(error: string | null): string {
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
