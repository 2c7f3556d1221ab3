import { and, asc, eq, gte, inArray, isNull, or } from "drizzle-orm";
import type { Address, Hex } from "viem";
import type { Database } from "../../db/client.ts";
import { chainTransactions, type ChainTransaction } from "../../db/schema/index.ts";
import { randomToken } from "../crypto/tokens.ts";
import type { Logger } from "../logger.ts";
import { LeaseHolder } from "../workers/lease.ts";
import { Periodic } from "../workers/periodic.ts";
import { highestIntact } from "./block-check.ts";
import type { ChainAccess } from "./clients.ts";
import { describeChainError } from "./errors.ts";
import { checkChainIdentity } from "./identity.ts";

/**
 * The outbox's last state, checked against the chain (issue 24): the chain
 * is the source of truth, and a belief it no longer supports is repaired.
 *
 *   confirmed | reverted  -- its block is gone or has another hash, and the
 *                            receipt is gone too                       -> sent (broadcast again)
 *   confirmed | reverted  -- the receipt is in another block           -> same status, new block recorded
 *   sent                  -- above the signer's pending nonce (the node
 *                            lost it)                                  -> broadcast again at once
 *
 * What is checked, at start and then on a schedule, under one lease across
 * processes:
 * - the chain's identity (its genesis block, api/chain/identity.ts): on a
 *   chain created anew nothing of the old one is broadcast;
 * - every confirmed or reverted row within the reorganisation window
 *   (`CHAIN_REORG_WINDOW_BLOCKS`) still has its block: one lookup of the
 *   highest recorded block when nothing changed (a block's hash covers its
 *   parents'), the rows' receipts only when it did;
 * - the nonce on-chain (latest and pending) of each signer with rows sent or
 *   confirmed within the window, against its rows at or above that count:
 *   a row the database calls confirmed with a nonce at or above the
 *   chain's count is not on-chain whatever its block says (a chain that lost
 *   its last second: the blocks may be mined again with other contents), and
 *   a sent row at or above the pending count is in no pool.
 *
 * A repair broadcasts the stored signed transaction again: same nonce, same
 * hash, so it can still be mined only once, and the signer's later
 * transactions are not stuck behind a gap. A row goes back to `sent` and the
 * receipt pass (outbox-confirming.ts) confirms it again. Every repair is
 * logged once, as a warning naming the row. Requests never wait for a pass,
 * except the first one after a start (api/startup.ts): money waits until the
 * platform's beliefs are the chain's again.
 */
export interface ReconcilerDeps {
  db: Database;
  chain: ChainAccess;
  log: Logger;
  /** The indexer's own check, run in the same pass (it rewinds to the common ancestor on a mismatch). */
  indexer?: { checkForReorg(): Promise<unknown> };
  /** Told of every repair as it is made (the metrics and the operator's page: api/ops/metrics.ts). */
  onRepair?: (kind: "rebroadcast" | "moved" | "resent" | "chain_replaced", detail: Record<string, unknown>) => void;
}

/** What one pass repaired (for tests and the log). */
export interface Repairs {
  /** Confirmed or reverted rows not on-chain any more, broadcast again. */
  rebroadcast: string[];
  /** Rows whose receipt is now in another block (recorded anew). */
  moved: string[];
  /** Sent rows no node had, broadcast again. */
  resent: string[];
  /** The chain was created anew: the old one's records were retired. */
  chainReplaced: boolean;
}

const LEASE_MS = 30_000;

export class ChainReconciler {
  private readonly owner = `rec-${randomToken(6)}`;
  private readonly lease: LeaseHolder;
  private readonly worker = new Periodic(
    "reconciler",
    () => this.runOnce(),
    (err) => this.deps.log.warn("chain reconciliation pass failed, will retry", { err: describeChainError(err) }),
  );

  constructor(private readonly deps: ReconcilerDeps) {
    this.lease = new LeaseHolder(deps.db, this.owner, LEASE_MS);
  }

  private get leaseName(): string {
    return `reconciler:${this.deps.chain.config.chain.id}`;
  }

  /**
   * One pass: identity, blocks, nonces, then the indexer's own check. `withoutLease`: the start-up check
   * (api/startup.ts), which must not wait for a lease a killed process left; its writes are conditional, so it
   * repairs nothing twice beside another process's pass.
   */
  async runOnce(options: { withoutLease?: boolean } = {}): Promise<Repairs> {
    const repairs: Repairs = { rebroadcast: [], moved: [], resent: [], chainReplaced: false };
    if (!options.withoutLease && !(await this.lease.hold(this.leaseName))) return repairs;
    repairs.chainReplaced = (await checkChainIdentity(this.deps)) === "replaced";
    if (repairs.chainReplaced) this.deps.onRepair?.("chain_replaced", { chainId: this.deps.chain.config.chain.id });
    if (!repairs.chainReplaced) {
      const head = Number(await this.deps.chain.client.getBlockNumber({ cacheTime: 0 }));
      const floor = Math.max(0, head - this.deps.chain.config.reorgWindowBlocks);
      await this.checkConfirmed(floor, repairs);
      await this.checkNonces(floor, repairs);
    }
    await this.deps.indexer?.checkForReorg();
    return repairs;
  }

  /** Confirmed and reverted rows within the window: is their block still the chain's? */
  private async checkConfirmed(floor: number, repairs: Repairs): Promise<void> {
    const { db, chain } = this.deps;
    const rows = await db
      .select()
      .from(chainTransactions)
      .where(and(this.live(), inArray(chainTransactions.status, ["confirmed", "reverted"]), gte(chainTransactions.blockNumber, floor)));
    if (!rows.length) return;
    const recorded = rows.filter((r) => r.blockHash !== null && r.blockNumber !== null);
    const blocks = new Map(recorded.map((r) => [r.blockNumber!, r.blockHash!]));
    const intact = await highestIntact(chain.client, [...blocks].map(([number, hash]) => ({ number, hash })));
    // Rows in blocks above the highest intact one, and rows confirmed before block hashes were recorded.
    const suspect = rows.filter((r) => r.blockHash === null || intact === null || r.blockNumber! > intact);
    if (!suspect.length) return;
    const receipts = await Promise.all(suspect.map((row) => chain.client.getTransactionReceipt({ hash: row.txHash as Hex }).catch(() => null)));
    const gone: ChainTransaction[] = [];
    for (const [i, row] of suspect.entries()) {
      const receipt = receipts[i];
      if (!receipt) {
        gone.push(row);
        continue;
      }
      if (row.blockHash?.toLowerCase() === receipt.blockHash.toLowerCase()) continue;
      const status = receipt.status === "success" ? "confirmed" : "reverted";
      const updated = await db
        .update(chainTransactions)
        .set({ blockNumber: Number(receipt.blockNumber), blockHash: receipt.blockHash, status, updatedAt: new Date() })
        .where(and(eq(chainTransactions.id, row.id), eq(chainTransactions.status, row.status)))
        .returning({ id: chainTransactions.id });
      // A hash recorded for the first time is no repair.
      if (updated.length && row.blockHash !== null) {
        repairs.moved.push(row.id);
        this.deps.onRepair?.("moved", { id: row.id, kind: row.kind, hash: row.txHash, nonce: row.nonce, from: row.blockNumber, to: Number(receipt.blockNumber) });
        this.deps.log.warn("chain reconciliation: a confirmed transaction was mined again in another block; its block is recorded anew", {
          id: row.id,
          kind: row.kind,
          hash: row.txHash,
          nonce: row.nonce,
          from: row.blockNumber,
          to: Number(receipt.blockNumber),
          status,
        });
      }
    }
    await this.sendAgain(gone, repairs, "its block is no longer the chain's");
  }

  /** The nonce on-chain of each signer with rows sent, or confirmed within the window, against those rows. */
  private async checkNonces(floor: number, repairs: Repairs): Promise<void> {
    const { db, chain } = this.deps;
    const signers = await db
      .selectDistinct({ from: chainTransactions.fromAddress })
      .from(chainTransactions)
      .where(
        and(this.live(), or(eq(chainTransactions.status, "sent"), and(inArray(chainTransactions.status, ["confirmed", "reverted"]), gte(chainTransactions.blockNumber, floor)))),
      );
    const counts = (address: string) =>
      Promise.all([
        chain.client.getTransactionCount({ address: address as Address, blockTag: "latest" }),
        chain.client.getTransactionCount({ address: address as Address, blockTag: "pending" }),
      ]);
    for (const { from } of signers) {
      // Only rows at or above the chain's counts can disagree with it (a bounded read, whatever the signer's history).
      const [before, pendingBefore] = await counts(from);
      const rows = await db
        .select()
        .from(chainTransactions)
        .where(
          and(
            this.live(),
            eq(chainTransactions.fromAddress, from),
            inArray(chainTransactions.status, ["sent", "confirmed", "reverted"]),
            gte(chainTransactions.nonce, Math.min(before, pendingBefore)),
          ),
        )
        .orderBy(asc(chainTransactions.nonce));
      if (!rows.length) continue;
      // Counted again after the read: a row confirmed before it was mined before this count, so it is counted.
      const [latest, pending] = await counts(from);
      const missing = rows.filter((r) => r.status !== "sent" && r.nonce !== null && r.nonce >= latest && !repairs.rebroadcast.includes(r.id));
      await this.sendAgain(missing, repairs, `its nonce is not used on-chain (the signer's count is ${latest})`);
      // Not one a signer's pass has only just sent (the node may not count it yet).
      const settledIn = Date.now() - chain.config.pollingIntervalMs * 20;
      const lost = rows.filter((r) => r.status === "sent" && r.nonce !== null && r.nonce >= pending && (r.sentAt?.getTime() ?? 0) < settledIn);
      for (const row of lost) {
        // Refused (already known, or behind a gap still open): nothing repaired, nothing said; the next pass looks again.
        if (!(await this.broadcast(row))) continue;
        await db
          .update(chainTransactions)
          .set({ sentAt: new Date(), updatedAt: new Date() })
          .where(and(eq(chainTransactions.id, row.id), eq(chainTransactions.status, "sent")));
        repairs.resent.push(row.id);
        this.deps.onRepair?.("resent", { id: row.id, kind: row.kind, hash: row.txHash, nonce: row.nonce });
        this.deps.log.warn("chain reconciliation: a sent transaction was in no node's pool; broadcast again", {
          id: row.id,
          kind: row.kind,
          hash: row.txHash,
          nonce: row.nonce,
        });
      }
    }
  }

  /** Back to sent, then the stored signed transactions again, in nonce order. */
  private async sendAgain(rows: ChainTransaction[], repairs: Repairs, why: string): Promise<void> {
    const { db, log } = this.deps;
    for (const row of [...rows].sort((a, b) => (a.nonce ?? 0) - (b.nonce ?? 0))) {
      const back = await db
        .update(chainTransactions)
        .set({ status: "sent", blockNumber: null, blockHash: null, confirmations: 0, confirmedAt: null, error: null, sentAt: new Date(), updatedAt: new Date() })
        .where(and(eq(chainTransactions.id, row.id), eq(chainTransactions.status, row.status)))
        .returning({ id: chainTransactions.id });
      if (!back.length) continue;
      await this.broadcast(row);
      repairs.rebroadcast.push(row.id);
      this.deps.onRepair?.("rebroadcast", { id: row.id, kind: row.kind, hash: row.txHash, nonce: row.nonce, why });
      log.warn(`chain reconciliation: a ${row.status} transaction is no longer on-chain (${why}); it is sent again as signed`, {
        id: row.id,
        kind: row.kind,
        hash: row.txHash,
        nonce: row.nonce,
        from: row.fromAddress,
        block: row.blockNumber,
      });
    }
  }

  /** The stored raw transaction; whether the node took it. A refusal (already known, say) leaves it to the receipt pass. */
  private async broadcast(row: ChainTransaction): Promise<boolean> {
    return this.deps.chain.client.sendRawTransaction({ serializedTransaction: row.rawTx as Hex }).then(
      () => true,
      (err) => {
        this.deps.log.debug("chain reconciliation: broadcast not taken", { id: row.id, err: describeChainError(err) });
        return false;
      },
    );
  }

  private live() {
    return and(eq(chainTransactions.chainId, this.deps.chain.config.chain.id), isNull(chainTransactions.oldChain));
  }

  /** A pass every `intervalMs` (the start-up check is api/startup.ts's, run apart). */
  start(intervalMs = this.deps.chain.config.pollingIntervalMs * 40): void {
    this.worker.start(intervalMs);
  }

  async stop(): Promise<void> {
    await this.worker.stop();
    await this.lease.releaseAll();
  }
}
