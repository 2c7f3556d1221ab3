import { and, eq, inArray, sql } from "drizzle-orm";
import { TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex } from "viem";
import { chainTransactions, walletNonces, workerLeases, type ChainTransaction } from "../../db/schema/index.ts";
import { describeChainError, isNonceTooLow, isPermanentBroadcastError } from "./errors.ts";
import type { Database } from "../../db/client.ts";
import type { ChainAccess } from "./clients.ts";
import type { OutboxDeps } from "./outbox-signing.ts";

/**
 * The outbox's second step (api/chain/outbox.ts has the whole machine):
 *
 *   signed  -- broadcast the stored raw transaction, in nonce order       -> sent
 *           -- "nonce too low", and the node knows no such transaction
 *              (the nonce was used elsewhere: an exported key)            -> failed
 *           -- refused for good (not enough XDC for gas), nothing later
 *              of the signer can have reached a node                      -> failed; the later rows
 *                                                                             of the pass -> queued
 *           -- refused, a later row possibly sent                         -> signed (retried, the signer waits)
 *
 * Sending the same bytes twice is harmless: a node that already has the
 * transaction (or mined it) counts as sent, so a row signed before a crash
 * is simply sent again. A refused row's nonce is handed back only when no
 * later transaction of the signer can exist anywhere: no gap, no double
 * payment.
 */
export class OutboxBroadcasting {
  /** Rows a signer's pass has just sent, for the requests waiting on them (spares each a read). */
  private justSent = new Map<string, { row: ChainTransaction; at: number }>();

  constructor(
    private readonly deps: OutboxDeps,
    /** The outbox's worker id: the owner of its signer leases. */
    private readonly workerId: string,
  ) {}

  takeJustSent(id: string): ChainTransaction | undefined {
    const hit = this.justSent.get(id);
    this.justSent.delete(id);
    return hit?.row;
  }

  /**
   * Sends signed rows in nonce order, stopping at the first the node
   * refuses. `ours` are the rows this pass signed (no node has seen them
   * before this call). Returns whether every row was sent.
   */
  async broadcastInOrder(rows: ChainTransaction[], ours: Set<string>, leaseName: string): Promise<boolean> {
    const { db } = this.deps;
    const sent: ChainTransaction[] = [];
    try {
      for (const [index, row] of rows.entries()) {
        const outcome = await sendStored(this.deps.chain, row);
        if (outcome.kind === "sent") {
          sent.push(row);
          continue;
        }
        if (outcome.kind === "nonce-used") {
          await failNonceUsed(db, row, "signed");
          continue;
        }
        await this.refused(row, rows.slice(index + 1), ours, leaseName, outcome.error);
        return false;
      }
      return true;
    } finally {
      if (sent.length) {
        const now = new Date();
        const marked = await db
          .update(chainTransactions)
          .set({ status: "sent", sentAt: now, updatedAt: now })
          .where(and(inArray(chainTransactions.id, sent.map((r) => r.id)), eq(chainTransactions.status, "signed")))
          .returning({ id: chainTransactions.id });
        const at = Date.now();
        for (const stale of this.justSent.keys()) {
          if (at - this.justSent.get(stale)!.at < 60_000) break; // oldest first
          this.justSent.delete(stale);
        }
        const byId = new Map(sent.map((r) => [r.id, r]));
        for (const { id } of marked) this.justSent.set(id, { row: { ...byId.get(id)!, status: "sent", sentAt: now, updatedAt: now }, at });
      }
    }
  }

  /**
   * The node refused `row` for good (e.g. not enough XDC for gas): nothing of
   * it was sent. Its nonce can be handed back only if no later transaction
   * of this signer can have reached a node: either there is none, or all of
   * them are this pass's, unsent (they go back to queued, to be signed
   * again). Otherwise the row stays signed and is retried (no gap, no
   * double payment; the signer waits, e.g. for XDC).
   */
  private async refused(row: ChainTransaction, later: ChainTransaction[], ours: Set<string>, leaseName: string, err: unknown): Promise<void> {
    const { db, log } = this.deps;
    const nonceKey = `${row.chainId}:${row.fromAddress}`;
    const error = describeChainError(err);
    if (later.length && !later.every((r) => ours.has(r.id))) {
      log.error("outbox: a transaction with later ones possibly sent was refused; the signer waits", { id: row.id, nonce: row.nonce, err: error });
      await db
        .update(chainTransactions)
        .set({ attempts: sql`${chainTransactions.attempts} + 1`, error, updatedAt: new Date() })
        .where(eq(chainTransactions.id, row.id));
      return;
    }
    await db.transaction(
      async (tx) => {
        if (later.length) {
          // Still ours: no other process has taken this signer (and could have sent the later rows).
          const [lease] = await tx.select().from(workerLeases).where(and(eq(workerLeases.name, leaseName), eq(workerLeases.owner, this.workerId)));
          if (!lease) return;
          await tx
            .update(chainTransactions)
            .set({ status: "queued", nonce: null, rawTx: null, txHash: null, gasLimit: null, gasPrice: null, updatedAt: new Date() })
            .where(and(inArray(chainTransactions.id, later.map((r) => r.id)), eq(chainTransactions.status, "signed")));
        }
        await tx
          .update(chainTransactions)
          .set({ status: "failed", nonce: null, error, updatedAt: new Date() })
          .where(eq(chainTransactions.id, row.id));
        await tx
          .update(walletNonces)
          .set({ nextNonce: row.nonce!, updatedAt: new Date() })
          .where(and(eq(walletNonces.key, nonceKey), eq(walletNonces.nextNonce, row.nonce! + 1 + later.length)));
      },
      { behavior: "immediate" },
    );
  }
}

export type SendOutcome = { kind: "sent" } | { kind: "nonce-used" } | { kind: "refused"; error: unknown };

/**
 * Sends one stored raw transaction; a node that already has it (or mined it) counts as sent. Throws when the node
 * could not be asked (the row is left as it is, to be retried). Used for the first broadcast and for the receipt
 * pass's re-broadcast of a transaction the node lost (outbox-confirming.ts).
 */
export async function sendStored(chain: ChainAccess, row: ChainTransaction): Promise<SendOutcome> {
  try {
    await chain.client.sendRawTransaction({ serializedTransaction: row.rawTx as Hex });
    return { kind: "sent" };
  } catch (err) {
    // Only the node saying "not found" means not found: a lookup that fails leaves the row as it is, to be retried.
    const notFound = (lookupError: unknown) => {
      if (lookupError instanceof TransactionNotFoundError || lookupError instanceof TransactionReceiptNotFoundError) return null;
      throw lookupError;
    };
    if (await chain.client.getTransaction({ hash: row.txHash as Hex }).catch(notFound)) return { kind: "sent" };
    if (await chain.client.getTransactionReceipt({ hash: row.txHash as Hex }).catch(notFound)) return { kind: "sent" };
    if (isNonceTooLow(err)) return { kind: "nonce-used" };
    if (!isPermanentBroadcastError(err)) throw err;
    return { kind: "refused", error: err };
  }
}

/**
 * Someone else used this row's nonce (a key exported and used elsewhere) and the node has neither the transaction
 * nor its receipt: it can never be mined. The row fails (if it is still `from`), and the signer's stored next nonce
 * is forgotten, so the next signing starts from the chain's count.
 */
export async function failNonceUsed(db: Database, row: ChainTransaction, from: "signed" | "sent"): Promise<boolean> {
  return db.transaction(
    async (tx) => {
      const result = await tx
        .update(chainTransactions)
        .set({ status: "failed", nonce: null, error: nonceUsedError(row), updatedAt: new Date() })
        .where(and(eq(chainTransactions.id, row.id), eq(chainTransactions.status, from)));
      if (!result.rowsAffected) return false;
      await tx.delete(walletNonces).where(eq(walletNonces.key, `${row.chainId}:${row.fromAddress}`));
      return true;
    },
    { behavior: "immediate" },
  );
}

const nonceUsedError = (row: Pick<ChainTransaction, "nonce">) => `nonce ${row.nonce} was used by another transaction`;
