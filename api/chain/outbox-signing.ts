import { and, eq, inArray, sql } from "drizzle-orm";
import { keccak256, type Address, type Hex, type PrivateKeyAccount } from "viem";
import type { Database } from "../../db/client.ts";
import { chainTransactions, walletNonces, wallets, type ChainTransaction, type Wallet } from "../../db/schema/index.ts";
import type { Keyring } from "../crypto/keyring.ts";
import type { Logger } from "../logger.ts";
import { withWalletAccount } from "../services/wallets/custodial.ts";
import type { ChainAccess } from "./clients.ts";
import { describeChainError, isPermanentEstimateError } from "./errors.ts";

/**
 * The outbox's first step (api/chain/outbox.ts has the whole machine):
 *
 *   queued  -- estimate gas (a revert here fails the row: no nonce used)      -> failed
 *           -- in ONE database transaction: take the signer's next nonces,
 *              sign, store each raw transaction and its hash                   -> signed
 *           -- the node unreachable for MAX_QUEUED_ATTEMPTS passes             -> failed
 *
 * A row is signed once. The nonce is the larger of the signer's stored next
 * nonce (`wallet_nonces`) and the chain's pending count, so a nonce is never
 * reused; the raw transaction is stored before anything is sent, so after a
 * crash the same bytes go out again (outbox-broadcasting.ts).
 */
export interface OutboxDeps {
  db: Database;
  chain: ChainAccess;
  keyring: Keyring;
  log: Logger;
}

/**
 * RepoRewards v2 costs more when its state moved between the estimate and
 * the block: a new checkpoint in each of the two outflow caps (two fresh
 * storage slots), or a payout that finds the day's cap used up and is queued
 * (a queue entry of four slots). Rows of one pass are estimated against the
 * same state, so the later ones would run out of gas. Unused gas costs nothing.
 */
const ESCROW_GAS_HEADROOM = 150_000n;
const GAS_PRICE_TTL_MS = 5_000;
const MAX_QUEUED_ATTEMPTS = 20;

/** One write to a row, stamped. */
export async function updateRow(db: Database, id: string, fields: Partial<typeof chainTransactions.$inferInsert>): Promise<void> {
  await db
    .update(chainTransactions)
    .set({ ...fields, updatedAt: new Date() })
    .where(eq(chainTransactions.id, id));
}

export class OutboxSigning {
  private gasPrice?: { value: bigint; at: number };

  constructor(private readonly deps: OutboxDeps) {}

  /**
   * The gas price the next signing uses (read at most every GAS_PRICE_TTL_MS).
   * Quotes read it too, so a fee shown is the fee paid: Max leaves exactly the
   * reserve (issue 16).
   */
  async currentGasPrice(): Promise<bigint> {
    const now = Date.now();
    if (!this.gasPrice || now - this.gasPrice.at > GAS_PRICE_TTL_MS) {
      this.gasPrice = { value: await this.deps.chain.client.getGasPrice(), at: now };
    }
    return this.gasPrice.value;
  }

  /** Gas for each row, estimated side by side; a row the chain would refuse fails now, before it takes a nonce. */
  async estimateAll(rows: ChainTransaction[]): Promise<{ row: ChainTransaction; gasLimit: bigint }[]> {
    const { chain } = this.deps;
    const estimates = await Promise.all(
      rows.map(async (row) => {
        try {
          const estimate = await chain.client.estimateGas({
            account: row.fromAddress as Address,
            to: row.toAddress as Address,
            data: row.data as Hex,
            value: row.value,
            blockTag: "pending",
          });
          const toEscrow = (row.toAddress as string).toLowerCase() === chain.config.contracts.rewards.toLowerCase();
          return { row, gasLimit: (estimate * 12n) / 10n + (toEscrow ? ESCROW_GAS_HEADROOM : 0n) };
        } catch (err) {
          if (!isPermanentEstimateError(err)) throw err;
          await updateRow(this.deps.db, row.id, { status: "failed", error: describeChainError(err) });
          return undefined;
        }
      }),
    );
    return estimates.filter((e) => e !== undefined);
  }

  /**
   * Signs the rows with consecutive nonces in one write transaction: the
   * nonces, raw transactions and hashes are stored before anything is sent.
   * Returns the rows signed, in nonce order.
   */
  async signBatch(chainId: number, from: string, signable: { row: ChainTransaction; gasLimit: bigint }[]): Promise<ChainTransaction[]> {
    const { db, chain } = this.deps;
    const gasPrice = await this.currentGasPrice();
    const chainNonce = await chain.client.getTransactionCount({ address: from as Address, blockTag: "pending" });
    const walletId = signable[0]!.row.walletId;
    const wallet = walletId === null ? undefined : await this.walletOf(walletId);
    const nonceKey = `${chainId}:${from}`;
    const signed: ChainTransaction[] = [];
    await db.transaction(
      async (tx) => {
        const [unsent] = await tx
          .select({ id: chainTransactions.id })
          .from(chainTransactions)
          .where(and(eq(chainTransactions.chainId, chainId), eq(chainTransactions.fromAddress, from), eq(chainTransactions.status, "signed")))
          .limit(1);
        if (unsent) return;
        const still = await tx
          .select({ id: chainTransactions.id })
          .from(chainTransactions)
          .where(and(inArray(chainTransactions.id, signable.map((s) => s.row.id)), eq(chainTransactions.status, "queued")));
        const stillQueued = new Set(still.map((r) => r.id));
        if (!stillQueued.size) return;
        const [stored] = await tx.select().from(walletNonces).where(eq(walletNonces.key, nonceKey));
        let nonce = Math.max(stored?.nextNonce ?? 0, chainNonce);
        await this.signWith(wallet, async (account) => {
          for (const { row, gasLimit } of signable) {
            if (!stillQueued.has(row.id)) continue;
            const rawTx = await account.signTransaction({
              chainId: row.chainId,
              to: row.toAddress as Address,
              data: row.data as Hex,
              value: row.value,
              nonce,
              gas: gasLimit,
              gasPrice,
              type: "legacy",
            });
            const fields = { status: "signed" as const, nonce, gasLimit, gasPrice, rawTx, txHash: keccak256(rawTx), updatedAt: new Date() };
            await tx.update(chainTransactions).set(fields).where(eq(chainTransactions.id, row.id));
            signed.push({ ...row, ...fields });
            nonce += 1;
          }
          return "0x";
        });
        await tx
          .insert(walletNonces)
          .values({ key: nonceKey, nextNonce: nonce })
          .onConflictDoUpdate({ target: walletNonces.key, set: { nextNonce: nonce, updatedAt: new Date() } });
      },
      { behavior: "immediate" },
    );
    return signed; // in nonce order, as stored
  }

  async failQueued(rows: ChainTransaction[], error: string): Promise<void> {
    await this.deps.db
      .update(chainTransactions)
      .set({ status: "failed", error, attempts: sql`${chainTransactions.attempts} + 1`, updatedAt: new Date() })
      .where(and(inArray(chainTransactions.id, rows.map((r) => r.id)), eq(chainTransactions.status, "queued")));
  }

  /**
   * The node could not be reached while these queued rows waited. They have
   * signed nothing, so once it has been unreachable for long enough they fail
   * (signed and sent rows are never given up: they may already be mined).
   */
  async countFailedAttempt(rows: ChainTransaction[], err: unknown): Promise<void> {
    const ids = rows.map((r) => r.id);
    await this.deps.db.transaction(
      async (tx) => {
        await tx
          .update(chainTransactions)
          .set({ attempts: sql`${chainTransactions.attempts} + 1`, updatedAt: new Date() })
          .where(and(inArray(chainTransactions.id, ids), eq(chainTransactions.status, "queued")));
        await tx
          .update(chainTransactions)
          .set({ status: "failed", error: `the chain could not be reached: ${describeChainError(err)}`, updatedAt: new Date() })
          .where(and(inArray(chainTransactions.id, ids), eq(chainTransactions.status, "queued"), sql`${chainTransactions.attempts} >= ${MAX_QUEUED_ATTEMPTS}`));
      },
      { behavior: "immediate" },
    );
  }

  private async walletOf(walletId: string): Promise<Wallet> {
    const [wallet] = await this.deps.db.select().from(wallets).where(eq(wallets.id, walletId));
    if (!wallet) throw new Error(`outbox: wallet ${walletId} not found`);
    return wallet;
  }

  private signWith(wallet: Wallet | undefined, sign: (account: PrivateKeyAccount) => Promise<Hex>): Promise<Hex> {
    if (!wallet) return sign(this.deps.chain.operator);
    return withWalletAccount({ keyring: this.deps.keyring }, wallet, sign);
  }
}
