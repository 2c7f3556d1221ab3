import { useRef } from "react";
import { ApiRequestError, newIdempotencyKey } from "../../lib/api.ts";
import { shortHash } from "../../lib/repo-detail-links.ts";
import { toast } from "../../stores/toast.ts";

/** What the money-moving endpoints answer. */
export interface TransactionResult {
  transactionHash: string;
  status: "pending" | "confirmed";
  message: string;
  explorerUrl: string | null;
}

/**
 * One idempotency key per user action, reused when the same action is tried
 * again after an answer we cannot trust (network error, timeout, 5xx), so a
 * retry returns the first transaction instead of sending a second. A clear
 * answer (success or a refusal) ends the action: the next click is new.
 */
export function useActionKey() {
  const current = useRef<{ fingerprint: string; key: string } | null>(null);
  return {
    keyFor(fingerprint: string): string {
      if (current.current?.fingerprint !== fingerprint) current.current = { fingerprint, key: newIdempotencyKey() };
      return current.current.key;
    },
    settle(err?: unknown): void {
      if (err === undefined || !isUncertain(err)) current.current = null;
    },
  };
}

/** The request may or may not have reached the chain: only the same key may try again. */
export function isUncertain(err: unknown): boolean {
  return err instanceof ApiRequestError && (err.status === 0 || err.status >= 500);
}

export function isTimeout(err: unknown): boolean {
  return err instanceof ApiRequestError && err.code === "ECONNABORTED";
}

/** The server's sentence when it sent one, else the spec's fallback. */
export function serverMessage(err: unknown, fallback: string): string {
  if (err instanceof ApiRequestError && typeof err.body?.message === "string" && err.body.message) return err.body.message;
  return fallback;
}

/**
 * A success toast for a transaction: with the explorer link when the
 * network has an explorer, else with the hash (local chains have none).
 */
export function transactionToast(input: { title: string; message: string; result: TransactionResult; actionLabel: string; duration?: number }): void {
  const { result } = input;
  toast({
    type: "success",
    title: input.title,
    message: result.explorerUrl ? input.message : `${input.message} Transaction ${shortHash(result.transactionHash)}.`,
    duration: input.duration,
    action: result.explorerUrl ? { label: input.actionLabel, href: result.explorerUrl, external: true } : undefined,
  });
}
