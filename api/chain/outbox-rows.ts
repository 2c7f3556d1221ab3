/**
 * What the outbox is asked to send (OutboxRequest, its signer) and the rules over its rows (outbox.ts): whose
 * idempotency keys a row is under, the request's canonical JSON, when a row is settled, one live payout per issue,
 * and the answer to a reused key.
 */
import { and, eq, isNull, ne, notInArray, or } from "drizzle-orm";
import type { Address, Hex } from "viem";
import type { DbOrTx } from "../../db/client.ts";
import { chainTransactions, type ChainTransaction, type Wallet } from "../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../errors.ts";

export type OutboxSigner = { kind: "operator" } | { kind: "wallet"; wallet: Wallet };

export interface OutboxRequest {
  /** Who asked; null for the platform itself (seed, automatic payouts). */
  userId: number | null;
  idempotencyKey: string;
  /** The request as received; a replay with the same key must be the same request. */
  request: unknown;
  kind: string;
  /** The repository and issue concerned, if any. */
  githubRepoId?: number;
  issueNumber?: number;
  intent: Record<string, unknown>;
  signer: OutboxSigner;
  to: Address;
  data: Hex;
  value?: bigint;
  /**
   * When the request was checked against the daily limits (api/services/money/limits.ts): the row counts in the
   * rolling windows from this instant, the same one its guard measured them at. Default: the database's time.
   */
  createdAt?: Date;
}

/** A live payout of the issue exists (not failed or reverted): a second one is refused before it is written. */
export async function refuseSecondPayout(db: DbOrTx, repoId: number, issueNumber: number, requester: string, key: string): Promise<void> {
  const [live] = await db
    .select({ id: chainTransactions.id })
    .from(chainTransactions)
    .where(
      and(
        eq(chainTransactions.kind, "pay_bounty"),
        eq(chainTransactions.githubRepoId, repoId),
        eq(chainTransactions.issueNumber, issueNumber),
        isNull(chainTransactions.oldChain),
        notInArray(chainTransactions.status, ["failed", "reverted"]),
        // The same request arriving twice at once is a replay, answered below.
        or(ne(chainTransactions.requester, requester), ne(chainTransactions.idempotencyKey, key)),
      ),
    )
    .limit(1);
  if (live) throw new DomainError({ code: ErrorCode.ALREADY_PAID, error: "Already paid", message: "This bounty has already been paid." });
}

export const idempotencyConflict = () =>
  new DomainError({
    code: ErrorCode.IDEMPOTENCY_CONFLICT,
    error: "Idempotency Key Reused",
    message: "This idempotency key was already used for a different request.",
  });

/** The scope of a requester's idempotency keys (the `requester` column): `user:<id>`, or `platform`. */
export const requesterOf = (userId: number | null) => (userId === null ? "platform" : `user:${userId}`);

/** Not yet accepted by a node: the signer's passes move it. */
export const isUnsent = (tx: ChainTransaction) => tx.status === "queued" || tx.status === "signed";

export function isSettled(tx: ChainTransaction): boolean {
  return tx.status === "confirmed" || tx.status === "reverted" || tx.status === "failed";
}

/** JSON with sorted keys and bigints as strings, so equal requests hash equally. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (typeof v === "bigint") return v.toString();
    if (v && typeof v === "object" && !Array.isArray(v)) {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]));
    }
    return v;
  });
}
