import { and, asc, eq } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { chainTransactions, type ChainTransaction } from "../../db/schema/index.ts";
import { NextRun } from "../workers/next-run.ts";
import type { OutboxDeps } from "./outbox-signing.ts";
import { failNonceUsed, sendStored } from "./outbox-broadcasting.ts";
import { describeChainError } from "./errors.ts";

/**
 * The outbox's third step (api/chain/outbox.ts has the whole machine):
 *
 *   sent    -- its receipt, with enough confirmations                 -> confirmed | reverted
 *           -- no receipt after REBROADCAST_AFTER_MS (the node lost it) -> sent (the same bytes again)
 *           -- sent again: "nonce too low", and the node has neither
 *              the transaction nor its receipt (the nonce was used by
 *              another transaction, which can never be undone)      -> failed
 *
 * A re-broadcast the node refuses for another reason leaves the row sent
 * (tried again REBROADCAST_AFTER_MS later) and is logged with the node's
 * answer: a row that cannot leave `sent` is never silent.
 *
 * One receipt pass looks at every sent row of the chain (the receipts asked
 * side by side) and writes the settled ones together, each write
 * conditional on the row still being sent; requests waiting for their row
 * share the passes, which run back to back while anyone waits and at least
 * half a polling interval apart. The receipt's block hash is recorded with
 * the confirmation: the reconciler (outbox-reconciling.ts) checks later that
 * the chain still has that block.
 */
/** Sent rows looked at in one receipt pass, at most. */
const RECEIPT_BATCH = 200;
/** Re-broadcast a sent transaction the node has lost after this long. */
export const REBROADCAST_AFTER_MS = 30_000;

export class OutboxConfirming {
  private readonly passes: NextRun;
  private readonly recentlySettled = new Map<string, { row: ChainTransaction; at: number }>();
  /** The rows the last receipt pass left sent (its view of them). */
  private stillSent = new Map<string, ChainTransaction>();

  constructor(private readonly deps: Pick<OutboxDeps, "db" | "chain" | "log">) {
    this.passes = new NextRun(() => this.runReceiptPass(), { minGapMs: deps.chain.config.pollingIntervalMs / 2 });
  }

  /** The next receipt pass (shared with every caller asking meanwhile). */
  request(): Promise<void> {
    return this.passes.request();
  }

  /** The row as the last pass saw it, if it settled it or left it sent (spares the caller a read). */
  known(id: string): ChainTransaction | undefined {
    return this.takeRecent(id) ?? this.stillSent.get(id);
  }

  /** A row the last receipt pass settled, for the request waiting on it (spares it a read). */
  private takeRecent(id: string): ChainTransaction | undefined {
    const hit = this.recentlySettled.get(id);
    this.recentlySettled.delete(id);
    return hit?.row;
  }

  /**
   * One look at every sent row of this chain: the receipts (asked side by
   * side), the confirmations, and the rows that settled, written in one
   * transaction. A transaction the node has lost is sent again as it was.
   */
  private async runReceiptPass(): Promise<void> {
    const { db, chain } = this.deps;
    const sent = await db
      .select()
      .from(chainTransactions)
      .where(and(eq(chainTransactions.chainId, chain.config.chain.id), eq(chainTransactions.status, "sent")))
      .orderBy(asc(chainTransactions.sentAt))
      .limit(RECEIPT_BATCH);
    const stale = Date.now() - 60_000;
    for (const [id, { at }] of this.recentlySettled) if (at < stale) this.recentlySettled.delete(id);
    if (!sent.length) {
      this.stillSent = new Map();
      return;
    }
    const [latest, receipts] = await Promise.all([
      // Not viem's cached figure (up to a polling interval old): counted against it, a fresh receipt had no confirmations yet.
      chain.client.getBlockNumber({ cacheTime: 0 }),
      Promise.all(sent.map((row) => chain.client.getTransactionReceipt({ hash: row.txHash as Hex }).catch(() => null))),
    ]);
    const updates: { row: ChainTransaction; fields: Partial<typeof chainTransactions.$inferInsert> }[] = [];
    const lost: ChainTransaction[] = [];
    const nonceUsed: ChainTransaction[] = [];
    sent.forEach((row, i) => {
      const receipt = receipts[i];
      if (!receipt) {
        if (row.sentAt && Date.now() - row.sentAt.getTime() > REBROADCAST_AFTER_MS) lost.push(row);
        return;
      }
      // The head is at least the receipt's block, whichever answer came first.
      const confirmations = Number((latest > receipt.blockNumber ? latest : receipt.blockNumber) - receipt.blockNumber + 1n);
      const settled = confirmations >= chain.config.confirmations;
      if (!settled && row.confirmations === confirmations && row.blockNumber === Number(receipt.blockNumber)) return;
      updates.push({
        row,
        fields: {
          blockNumber: Number(receipt.blockNumber),
          // What proves the confirmation: the reconciler checks later that this block is still the chain's.
          blockHash: receipt.blockHash,
          confirmations,
          ...(settled
            ? {
                status: receipt.status === "success" ? "confirmed" : "reverted",
                confirmedAt: new Date(),
                error: receipt.status === "success" ? null : "the transaction reverted on-chain",
              }
            : {}),
        },
      });
    });
    // Lost from the node's pool (a restart, say): the same signed transaction again. Never quiet: a transaction with
    // no receipt for this long is news, and the signer's mined count says whether it waits behind an earlier nonce.
    const minedCounts = new Map<string, Promise<number | string>>();
    for (const row of lost) {
      const outcome = await sendStored(chain, row).catch((error: unknown) => ({ kind: "unreachable" as const, error }));
      if (!minedCounts.has(row.fromAddress)) {
        minedCounts.set(row.fromAddress, chain.client.getTransactionCount({ address: row.fromAddress as Address, blockTag: "latest" }).catch((err: unknown) => describeChainError(err)));
      }
      // One line per re-broadcast; a refusal (other than a used nonce, failed below) is retried REBROADCAST_AFTER_MS later.
      this.deps.log.warn("outbox: no receipt after the re-broadcast delay; the same transaction was sent again", {
        id: row.id,
        nonce: row.nonce,
        txHash: row.txHash,
        outcome: outcome.kind,
        ...("error" in outcome ? { err: describeChainError(outcome.error) } : {}),
        signerMined: await minedCounts.get(row.fromAddress),
      });
      if (outcome.kind === "nonce-used") nonceUsed.push(row);
      else updates.push({ row, fields: { sentAt: new Date() } });
    }
    for (const row of nonceUsed) {
      if (!(await failNonceUsed(db, row, "sent"))) continue;
      this.deps.log.error("outbox: a sent transaction's nonce was used by another transaction; it can never be mined and failed", {
        id: row.id,
        nonce: row.nonce,
        txHash: row.txHash,
      });
      const failed = await db.select().from(chainTransactions).where(eq(chainTransactions.id, row.id));
      if (failed[0]) this.recentlySettled.set(row.id, { row: failed[0], at: Date.now() });
    }
    // What this pass saw still waiting (with what it learnt), so the requests waiting on those rows need not read them.
    const stillSent = new Map(sent.map((row) => [row.id, row]));
    for (const row of nonceUsed) stillSent.delete(row.id);
    for (const { row, fields } of updates) {
      if (fields.status) stillSent.delete(row.id);
      else stillSent.set(row.id, { ...row, ...fields } as ChainTransaction);
    }
    if (!updates.length) {
      this.stillSent = stillSent;
      return;
    }
    await db.transaction(
      async (tx) => {
        for (const { row, fields } of updates) {
          const updatedAt = new Date();
          const result = await tx
            .update(chainTransactions)
            .set({ ...fields, updatedAt })
            .where(and(eq(chainTransactions.id, row.id), eq(chainTransactions.status, "sent")));
          if (result.rowsAffected && fields.status) {
            this.recentlySettled.set(row.id, { row: { ...row, ...fields, updatedAt } as ChainTransaction, at: Date.now() });
          }
        }
      },
      { behavior: "immediate" },
    );
    this.stillSent = stillSent;
  }
}
