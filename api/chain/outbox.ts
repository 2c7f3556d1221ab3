import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { keccak256, TransactionNotFoundError, TransactionReceiptNotFoundError, type Address, type Hex, type PrivateKeyAccount } from "viem";
import type { Database } from "../../db/client.ts";
import { chainTransactions, walletNonces, wallets, type ChainTransaction, type Wallet } from "../../db/schema/index.ts";
import type { Keyring } from "../crypto/keyring.ts";
import { hashToken, randomToken } from "../crypto/tokens.ts";
import type { Logger } from "../logger.ts";
import { ApiError, ErrorCode } from "../errors.ts";
import type { ChainAccess } from "./clients.ts";
import { describeChainError, isNonceTooLow, isPermanentBroadcastError, isPermanentEstimateError } from "./errors.ts";
import { withWalletAccount } from "../services/wallets/custodial.ts";

/**
 * The transaction outbox (ARCHITECTURE.md, "Money"). A request becomes a row
 * first; `advance` moves it one state at a time:
 *
 *   queued  -- estimate gas (a revert here fails the row: no nonce used)
 *           -- in ONE database transaction: take the wallet's next nonce,
 *              sign, store the raw transaction and its hash       -> signed
 *   signed  -- broadcast the stored raw transaction               -> sent
 *   sent    -- wait for the receipt and confirmations            -> confirmed | reverted
 *
 * A signed row is never signed again: after a crash or restart the same raw
 * transaction is re-broadcast, so a nonce is never reused or skipped and a
 * payment cannot go out twice. One signing address has at most one row that
 * is signed but not yet accepted by the node, so a broadcast the node refuses
 * can hand its nonce back without leaving a gap. Rows are leased, so several
 * processes can run the worker side by side.
 */
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
}

export interface OutboxDeps {
  db: Database;
  chain: ChainAccess;
  keyring: Keyring;
  log: Logger;
}

const LEASE_MS = 30_000;
/** Re-broadcast a sent transaction the node has lost after this long. */
const REBROADCAST_AFTER_MS = 30_000;
const GAS_PRICE_TTL_MS = 5_000;
const MAX_QUEUED_ATTEMPTS = 20;

export const idempotencyConflict = () =>
  new ApiError({
    code: ErrorCode.UNPROCESSABLE,
    error: "Idempotency Key Reused",
    message: "This idempotency key was already used for a different request.",
  });

export class Outbox {
  readonly workerId = `w-${randomToken(6)}`;
  private gasPrice?: { value: bigint; at: number };
  private timer?: ReturnType<typeof setTimeout>;
  private running = false;
  private pass?: Promise<unknown>;
  private settledListeners = new Set<(tx: ChainTransaction) => void>();

  constructor(private readonly deps: OutboxDeps) {}

  /**
   * Inserts the row, or returns the first row for this key (a replay, which
   * skips `guard`). `guard` runs in the same write transaction as the insert,
   * so a rule over other rows (the daily funding limit) holds even under
   * concurrent requests.
   */
  async enqueue(req: OutboxRequest, guard?: (tx: Database) => Promise<void>): Promise<{ tx: ChainTransaction; replayed: boolean }> {
    const { db, chain } = this.deps;
    const requestHash = hashToken(stableJson(req.request));
    const replay = async () => {
      const existing = await this.findByKey(req.userId, req.idempotencyKey);
      if (existing && existing.requestHash !== requestHash) throw idempotencyConflict();
      return existing;
    };
    const earlier = await replay();
    if (earlier) return { tx: earlier, replayed: true };

    const from = req.signer.kind === "operator" ? chain.operator.address : (req.signer.wallet.address as Address);
    const inserted = await db.transaction(
      async (tx) => {
        await guard?.(tx as unknown as Database);
        return tx
          .insert(chainTransactions)
          .values({
            id: crypto.randomUUID(),
            userId: req.userId,
            requester: requesterOf(req.userId),
            idempotencyKey: req.idempotencyKey,
            requestHash,
            kind: req.kind,
            githubRepoId: req.githubRepoId ?? null,
            issueNumber: req.issueNumber ?? null,
            intent: stableJson(req.intent),
            walletId: req.signer.kind === "wallet" ? req.signer.wallet.id : null,
            fromAddress: from,
            chainId: chain.config.chain.id,
            toAddress: req.to,
            data: req.data,
            value: req.value ?? 0n,
          })
          // Only the same key is a replay; any other unique rule (one payout per issue) must fail loudly.
          .onConflictDoNothing({ target: [chainTransactions.requester, chainTransactions.idempotencyKey] })
          .returning();
      },
      { behavior: "immediate" },
    );
    if (inserted[0]) return { tx: inserted[0], replayed: false };
    // The same key arrived twice at once: the other request's row is the answer.
    const concurrent = await replay();
    if (!concurrent) throw new Error("outbox: conflicting row vanished");
    return { tx: concurrent, replayed: true };
  }

  /**
   * The first row made for this key, if the request was seen before (and was
   * the same request): services answer replays from it before validating
   * again, since a replay must return the first result even when the world
   * has moved on (the balance it spent is gone).
   */
  async replay(userId: number | null, key: string, request: unknown): Promise<ChainTransaction | undefined> {
    const existing = await this.findByKey(userId, key);
    if (existing && existing.requestHash !== hashToken(stableJson(request))) throw idempotencyConflict();
    return existing;
  }

  async findByKey(userId: number | null, key: string): Promise<ChainTransaction | undefined> {
    const [row] = await this.deps.db
      .select()
      .from(chainTransactions)
      .where(and(eq(chainTransactions.requester, requesterOf(userId)), eq(chainTransactions.idempotencyKey, key)))
      .limit(1);
    return row;
  }

  async get(id: string): Promise<ChainTransaction> {
    const [row] = await this.deps.db.select().from(chainTransactions).where(eq(chainTransactions.id, id));
    if (!row) throw new Error(`outbox: no transaction ${id}`);
    return row;
  }

  /**
   * Enqueues and drives the row until it is broadcast (or fails), so the
   * caller can answer with a transaction hash. A replay returns the first
   * row as it stands now.
   */
  async submit(
    req: OutboxRequest,
    options: { timeoutMs?: number; guard?: (tx: Database) => Promise<void> } = {},
  ): Promise<{ tx: ChainTransaction; replayed: boolean }> {
    const { tx, replayed } = await this.enqueue(req, options.guard);
    const timeoutMs = options.timeoutMs ?? 10_000;
    const deadline = Date.now() + timeoutMs;
    let current = tx;
    while ((current.status === "queued" || current.status === "signed") && Date.now() < deadline) {
      current = await this.advance(current.id);
      if (current.status === "queued" || current.status === "signed") await Bun.sleep(this.deps.chain.config.pollingIntervalMs);
    }
    return { tx: current, replayed };
  }

  /**
   * For the platform's own transactions (userId null), keyed by what they do:
   * sends once, but if an earlier attempt failed or reverted, tries again
   * under the next key (`key#2`, `key#3`, ...) instead of replaying the failure.
   */
  async submitOnce(req: OutboxRequest, options: { timeoutMs?: number } = {}): Promise<{ tx: ChainTransaction; replayed: boolean }> {
    for (let attempt = 1; attempt < 100; attempt++) {
      const key = attempt === 1 ? req.idempotencyKey : `${req.idempotencyKey}#${attempt}`;
      const existing = await this.findByKey(req.userId, key);
      if (existing && (existing.status === "failed" || existing.status === "reverted")) continue;
      return this.submit({ ...req, idempotencyKey: key }, options);
    }
    throw new Error(`outbox: too many failed attempts for ${req.idempotencyKey}`);
  }

  /** Waits until the row is confirmed, reverted or failed, or the time is up. */
  async waitForSettled(id: string, timeoutMs: number): Promise<ChainTransaction> {
    const deadline = Date.now() + timeoutMs;
    let current = await this.get(id);
    while (!isSettled(current) && Date.now() < deadline) {
      current = await this.advance(id);
      if (!isSettled(current)) await Bun.sleep(this.deps.chain.config.pollingIntervalMs);
    }
    return current;
  }

  onSettled(listener: (tx: ChainTransaction) => void): () => void {
    this.settledListeners.add(listener);
    return () => this.settledListeners.delete(listener);
  }

  /** Moves the row one or more steps forward if it can be leased; returns it as it stands. */
  async advance(id: string): Promise<ChainTransaction> {
    const leased = await this.lease(id);
    if (!leased) return this.get(id);
    let row = leased;
    try {
      if (row.status === "queued") row = await this.sign(row);
      if (row.status === "signed") row = await this.broadcast(row);
      if (row.status === "sent") row = await this.checkReceipt(row);
    } catch (err) {
      // Transient (the node or the database did not answer): the row stays where it was and is retried.
      this.deps.log.warn("outbox: step failed, will retry", { id: row.id, status: row.status, err: describeChainError(err) });
      await this.deps.db
        .update(chainTransactions)
        .set({ attempts: sql`${chainTransactions.attempts} + 1`, updatedAt: new Date() })
        .where(eq(chainTransactions.id, row.id));
      await this.giveUpIfHopeless(row, err);
    } finally {
      await this.update(row.id, { leaseOwner: null, leaseUntil: null });
    }
    const final = await this.get(id);
    if (isSettled(final) && !isSettled(leased)) for (const listener of this.settledListeners) listener(final);
    return final;
  }

  /**
   * A queued row has signed nothing, so failing it is safe once the chain has
   * been unreachable for long enough. Signed and sent rows are never given up:
   * they may already be mined.
   */
  private async giveUpIfHopeless(row: ChainTransaction, err: unknown): Promise<void> {
    if (row.status !== "queued" || row.attempts + 1 < MAX_QUEUED_ATTEMPTS) return;
    await this.update(row.id, { status: "failed", error: `the chain could not be reached: ${describeChainError(err)}` });
  }

  private async lease(id: string): Promise<ChainTransaction | undefined> {
    const now = Date.now();
    const [row] = await this.deps.db
      .update(chainTransactions)
      .set({ leaseOwner: this.workerId, leaseUntil: new Date(now + LEASE_MS) })
      .where(
        and(
          eq(chainTransactions.id, id),
          inArray(chainTransactions.status, ["queued", "signed", "sent"]),
          or(isNull(chainTransactions.leaseUntil), lt(chainTransactions.leaseUntil, new Date(now))),
        ),
      )
      .returning();
    return row;
  }

  private async update(id: string, fields: Partial<typeof chainTransactions.$inferInsert>): Promise<void> {
    await this.deps.db
      .update(chainTransactions)
      .set({ ...fields, updatedAt: new Date() })
      .where(eq(chainTransactions.id, id));
  }

  private async sign(row: ChainTransaction): Promise<ChainTransaction> {
    const { db, chain } = this.deps;
    const from = row.fromAddress as Address;
    // One unbroadcast transaction per address, in order: wait for older work of this signer.
    const [older] = await db
      .select({ id: chainTransactions.id })
      .from(chainTransactions)
      .where(
        and(
          eq(chainTransactions.chainId, row.chainId),
          eq(chainTransactions.fromAddress, row.fromAddress),
          or(eq(chainTransactions.status, "signed"), and(eq(chainTransactions.status, "queued"), lt(chainTransactions.createdAt, row.createdAt))),
        ),
      )
      .limit(1);
    if (older) return row;

    let gasLimit: bigint;
    try {
      const estimate = await chain.client.estimateGas({
        account: from,
        to: row.toAddress as Address,
        data: row.data as Hex,
        value: row.value,
        blockTag: "pending",
      });
      gasLimit = (estimate * 12n) / 10n;
    } catch (err) {
      if (!isPermanentEstimateError(err)) throw err;
      await this.update(row.id, { status: "failed", error: describeChainError(err) });
      return this.get(row.id);
    }
    const gasPrice = await this.currentGasPrice();
    const chainNonce = await chain.client.getTransactionCount({ address: from, blockTag: "pending" });
    const signer = row.walletId === null ? undefined : await this.walletOf(row.walletId);

    const nonceKey = `${row.chainId}:${row.fromAddress}`;
    await db.transaction(
      async (tx) => {
        const [current] = await tx.select().from(chainTransactions).where(eq(chainTransactions.id, row.id));
        if (current?.status !== "queued") return;
        const [pending] = await tx
          .select({ id: chainTransactions.id })
          .from(chainTransactions)
          .where(and(eq(chainTransactions.chainId, row.chainId), eq(chainTransactions.fromAddress, row.fromAddress), eq(chainTransactions.status, "signed")))
          .limit(1);
        if (pending) return;
        const [stored] = await tx.select().from(walletNonces).where(eq(walletNonces.key, nonceKey));
        const nonce = Math.max(stored?.nextNonce ?? 0, chainNonce);
        const request = {
          chainId: row.chainId,
          to: row.toAddress as Address,
          data: row.data as Hex,
          value: row.value,
          nonce,
          gas: gasLimit,
          gasPrice,
          type: "legacy" as const,
        };
        const rawTx = await this.signWith(signer, (account) => account.signTransaction(request));
        await tx
          .update(chainTransactions)
          .set({ status: "signed", nonce, gasLimit, gasPrice, rawTx, txHash: keccak256(rawTx), updatedAt: new Date() })
          .where(eq(chainTransactions.id, row.id));
        await tx
          .insert(walletNonces)
          .values({ key: nonceKey, nextNonce: nonce + 1 })
          .onConflictDoUpdate({ target: walletNonces.key, set: { nextNonce: nonce + 1, updatedAt: new Date() } });
      },
      { behavior: "immediate" },
    );
    return this.get(row.id);
  }

  private async broadcast(row: ChainTransaction): Promise<ChainTransaction> {
    const { chain, db } = this.deps;
    try {
      await chain.client.sendRawTransaction({ serializedTransaction: row.rawTx as Hex });
    } catch (err) {
      // Only the node saying "not found" means not found: a lookup that fails leaves the row signed, to be retried.
      const notFound = (lookupError: unknown) => {
        if (lookupError instanceof TransactionNotFoundError || lookupError instanceof TransactionReceiptNotFoundError) return null;
        throw lookupError;
      };
      const known = await chain.client.getTransaction({ hash: row.txHash as Hex }).catch(notFound);
      if (!known) {
        const receipt = await chain.client.getTransactionReceipt({ hash: row.txHash as Hex }).catch(notFound);
        if (!receipt) {
          if (isNonceTooLow(err)) {
            // Someone else used this nonce (a key exported and used elsewhere): this transaction can never be mined.
            await this.update(row.id, { status: "failed", nonce: null, error: `nonce ${row.nonce} was used by another transaction` });
            await db.delete(walletNonces).where(eq(walletNonces.key, `${row.chainId}:${row.fromAddress}`));
            return this.get(row.id);
          }
          if (!isPermanentBroadcastError(err)) throw err;
          // The node refused it (e.g. not enough XDC for gas): nothing was sent. Hand the nonce back.
          await db.transaction(
            async (tx) => {
              await tx
                .update(chainTransactions)
                .set({ status: "failed", nonce: null, error: describeChainError(err), updatedAt: new Date() })
                .where(eq(chainTransactions.id, row.id));
              await tx
                .update(walletNonces)
                .set({ nextNonce: row.nonce!, updatedAt: new Date() })
                .where(and(eq(walletNonces.key, `${row.chainId}:${row.fromAddress}`), eq(walletNonces.nextNonce, row.nonce! + 1)));
            },
            { behavior: "immediate" },
          );
          return this.get(row.id);
        }
      }
    }
    await this.update(row.id, { status: "sent", sentAt: new Date() });
    return this.get(row.id);
  }

  private async checkReceipt(row: ChainTransaction): Promise<ChainTransaction> {
    const { chain } = this.deps;
    const receipt = await chain.client.getTransactionReceipt({ hash: row.txHash as Hex }).catch(() => null);
    if (!receipt) {
      if (row.sentAt && Date.now() - row.sentAt.getTime() > REBROADCAST_AFTER_MS) {
        // Lost from the node's pool (a restart, say): send the same signed transaction again.
        await chain.client.sendRawTransaction({ serializedTransaction: row.rawTx as Hex }).catch(() => undefined);
        await this.update(row.id, { sentAt: new Date() });
      }
      return this.get(row.id);
    }
    const latest = await chain.client.getBlockNumber();
    const confirmations = Number(latest - receipt.blockNumber + 1n);
    const settled = confirmations >= chain.config.confirmations;
    await this.update(row.id, {
      blockNumber: Number(receipt.blockNumber),
      confirmations,
      ...(settled
        ? {
            status: receipt.status === "success" ? "confirmed" : "reverted",
            confirmedAt: new Date(),
            error: receipt.status === "success" ? null : "the transaction reverted on-chain",
          }
        : {}),
    });
    return this.get(row.id);
  }

  private async currentGasPrice(): Promise<bigint> {
    const now = Date.now();
    if (!this.gasPrice || now - this.gasPrice.at > GAS_PRICE_TTL_MS) {
      this.gasPrice = { value: await this.deps.chain.client.getGasPrice(), at: now };
    }
    return this.gasPrice.value;
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

  /** One pass of the worker: advance every row that has work and no live lease. */
  async runOnce(limit = 25): Promise<number> {
    const now = new Date();
    const due = await this.deps.db
      .select({ id: chainTransactions.id })
      .from(chainTransactions)
      .where(
        and(
          inArray(chainTransactions.status, ["queued", "signed", "sent"]),
          or(isNull(chainTransactions.leaseUntil), lt(chainTransactions.leaseUntil, now)),
        ),
      )
      // A signed row first: it blocks its signer's later rows, which share its createdAt (seconds) in a burst.
      .orderBy(sql`${chainTransactions.status} = 'signed' desc`, asc(chainTransactions.createdAt))
      .limit(limit);
    for (const { id } of due) await this.advance(id);
    return due.length;
  }

  /** Runs the worker in the background until stop(). */
  start(intervalMs = this.deps.chain.config.pollingIntervalMs * 4): void {
    if (this.running) return;
    this.running = true;
    const tick = async () => {
      if (!this.running) return;
      this.pass = this.runOnce().catch((err) => this.deps.log.warn("outbox worker pass failed", { err: describeChainError(err) }));
      await this.pass;
      if (this.running) this.timer = setTimeout(tick, intervalMs);
    };
    this.timer = setTimeout(tick, 0);
  }

  /** Stops the worker after the pass in progress, if any. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.pass;
  }
}

const requesterOf = (userId: number | null) => (userId === null ? "platform" : `user:${userId}`);

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
