import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { preparedQuery } from "../../db/prepared.ts";
import { keccak256, TransactionNotFoundError, TransactionReceiptNotFoundError, type Address, type Hex, type PrivateKeyAccount } from "viem";
import type { Database } from "../../db/client.ts";
import { chainTransactions, walletNonces, wallets, workerLeases, type ChainTransaction, type Wallet } from "../../db/schema/index.ts";
import type { Keyring } from "../crypto/keyring.ts";
import { hashToken, randomToken } from "../crypto/tokens.ts";
import type { Logger } from "../logger.ts";
import { ApiError, ErrorCode } from "../errors.ts";
import type { ChainAccess } from "./clients.ts";
import { describeChainError, isNonceTooLow, isPermanentBroadcastError, isPermanentEstimateError } from "./errors.ts";
import { WalletKeyError, withWalletAccount } from "../services/wallets/custodial.ts";
import { LeaseHolder } from "../workers/lease.ts";
import { NextRun } from "../workers/next-run.ts";
import { Periodic } from "../workers/periodic.ts";

/**
 * The transaction outbox (ARCHITECTURE.md, "Money"). A request becomes a row
 * first; rows move one way:
 *
 *   queued  -- estimate gas (a revert here fails the row: no nonce used)
 *           -- in ONE database transaction: take the signer's next nonces,
 *              sign, store each raw transaction and its hash        -> signed
 *   signed  -- broadcast the stored raw transaction                 -> sent
 *   sent    -- wait for the receipt and confirmations              -> confirmed | reverted
 *
 * A signed row is never signed again: after a crash or restart the same raw
 * transaction is re-broadcast, so a nonce is never reused or skipped and a
 * payment cannot go out twice.
 *
 * Signing and broadcasting happen in passes per signing address (one at a
 * time per address, across processes: a lease), so concurrent requests from
 * one signer are signed together with consecutive nonces and broadcast in
 * nonce order instead of one round trip after another. A pass starts only
 * when the address has no signed-but-unsent rows left (it first re-sends
 * those). If the node refuses a transaction of the pass (not enough XDC for
 * gas, say), it fails, and the later rows of the same pass, which no node has
 * seen yet, go back to queued and the nonce is handed back: no gap. A refused
 * row some earlier pass may have sent further is left signed and retried,
 * never re-signed.
 *
 * Receipts are read in one pass over every sent row (requests waiting for
 * their row share it) and the settled rows are written together. Passes of
 * both kinds run in the requests that wait and in the background worker, in
 * any number of processes: a signer's lease keeps its passes one at a time,
 * and every write is conditional on the state it read.
 */
/**
 * RepoRewards v2 costs more when its state moved between the estimate and
 * the block: a new checkpoint in each of the two outflow caps (two fresh
 * storage slots), or a payout that finds the day's cap used up and is queued
 * (a queue entry of four slots). Rows of one pass are estimated against the
 * same state, so the later ones would run out of gas. Unused gas costs nothing.
 */
const ESCROW_GAS_HEADROOM = 150_000n;

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

/** A signer's pass holds this lease; a pass takes far less, and a crashed process's lease lapses after it. */
export const SIGNER_LEASE_MS = 10_000;
/** Rows signed in one pass, at most. */
const BATCH_LIMIT = 50;
/** Sent rows looked at in one receipt pass, at most. */
const RECEIPT_BATCH = 200;
/** Re-broadcast a sent transaction the node has lost after this long. */
export const REBROADCAST_AFTER_MS = 30_000;
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
  /** The background pass (`runOnce`), for the rows no request is waiting for. */
  private readonly worker = new Periodic(
    () => this.runOnce(),
    (err) => this.deps.log.warn("outbox worker pass failed", { err: describeChainError(err) }),
  );
  /** Per signing address: its passes in this process (one at a time; callers share the next one). */
  private passes = new Map<string, NextRun>();
  /** Back to back while requests wait; half a polling interval apart at most, so a stream of waiters shares them. */
  private readonly receiptPasses: NextRun;
  private readonly recentlySettled = new Map<string, { row: ChainTransaction; at: number }>();
  /** The rows the last receipt pass left sent (its view of them). */
  private stillSent = new Map<string, ChainTransaction>();
  /** Signer leases, held from one pass to the next one already asked for. */
  private readonly signerLeases: LeaseHolder;
  /** Rows a signer's pass has just sent, for the requests waiting on them (spares each a read). */
  private justSent = new Map<string, { row: ChainTransaction; at: number }>();

  constructor(private readonly deps: OutboxDeps) {
    this.receiptPasses = new NextRun(() => this.runReceiptPass(), { minGapMs: deps.chain.config.pollingIntervalMs / 2 });
    this.signerLeases = new LeaseHolder(deps.db, this.workerId, SIGNER_LEASE_MS);
  }

  /**
   * Inserts the row, or returns the first row for this key (a replay, which
   * skips `guard`). `guard` runs in the same write transaction as the insert,
   * so a rule over other rows (the daily funding limit) holds even under
   * concurrent requests.
   */
  async enqueue(
    req: OutboxRequest,
    guard?: (tx: Database) => Promise<void>,
    options: { replayChecked?: boolean } = {},
  ): Promise<{ tx: ChainTransaction; replayed: boolean }> {
    const { db, chain } = this.deps;
    const requestHash = hashToken(stableJson(req.request));
    const replay = async () => {
      const existing = await this.findByKey(req.userId, req.idempotencyKey);
      if (existing && existing.requestHash !== requestHash) throw idempotencyConflict();
      return existing;
    };
    // A caller that has just looked the key up (with `replay`) spares the read; a key that arrives meanwhile still conflicts below.
    if (!options.replayChecked) {
      const earlier = await replay();
      if (earlier) return { tx: earlier, replayed: true };
    }

    const from = req.signer.kind === "operator" ? chain.operator.address : (req.signer.wallet.address as Address);
    const insert = (into: Database) =>
      into
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
    // A single insert needs no transaction of its own; a guard's reads and the insert share one.
    const inserted = guard
      ? await db.transaction(
          async (tx) => {
            await guard(tx as unknown as Database);
            return insert(tx as unknown as Database);
          },
          { behavior: "immediate" },
        )
      : await insert(db);
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
    return rowByKey(this.deps.db).get({ requester: requesterOf(userId), key });
  }

  async get(id: string): Promise<ChainTransaction> {
    const row = await rowById(this.deps.db).get({ id });
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
    options: { timeoutMs?: number; guard?: (tx: Database) => Promise<void>; replayChecked?: boolean } = {},
  ): Promise<{ tx: ChainTransaction; replayed: boolean }> {
    const { tx, replayed } = await this.enqueue(req, options.guard, { replayChecked: options.replayChecked });
    return { tx: await this.untilBroadcast(tx, options.timeoutMs), replayed };
  }

  /**
   * Drives a row not sent yet until it is broadcast (or fails, or the time is up) and returns it as it stands.
   * A replay of a request whose first answer is still on its way (a double click) waits here for the hash the
   * first one gets, instead of answering "the network is busy" while the transaction is about to leave.
   */
  async untilBroadcast(row: ChainTransaction, timeoutMs = 10_000): Promise<ChainTransaction> {
    const deadline = Date.now() + timeoutMs;
    let current = row;
    while (isUnsent(current) && Date.now() < deadline) {
      await this.signerPass(current.chainId, current.fromAddress).catch((err) => this.transient("signing pass", err));
      current = this.takeJustSent(current.id) ?? (await this.get(current.id));
      if (isUnsent(current)) await Bun.sleep(this.deps.chain.config.pollingIntervalMs);
    }
    return current;
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

  /**
   * Waits until the row is confirmed, reverted or failed, or the time is up.
   * Waiters do not each ask the node: they share the signer's passes and one
   * receipt pass over every sent row.
   */
  async waitForSettled(row: ChainTransaction | string, timeoutMs: number): Promise<ChainTransaction> {
    const deadline = Date.now() + timeoutMs;
    const id = typeof row === "string" ? row : row.id;
    let current = typeof row === "string" ? await this.get(id) : row;
    while (!isSettled(current) && Date.now() < deadline) {
      current = await this.advance(current);
      // A sent row waits for the next receipt pass, which starts at most half a polling interval after the last:
      // no sleep of its own on top. A row not sent yet (its signer busy elsewhere, the node away) waits a full one.
      if (!isSettled(current) && current.status !== "sent") {
        await Bun.sleep(Math.max(0, Math.min(this.deps.chain.config.pollingIntervalMs, deadline - Date.now())));
      }
    }
    return current;
  }

  /**
   * Moves the row forward as far as it can go now (its signer's pass, or a
   * receipt pass); returns it as it stands. A step that fails for a
   * transient reason (the node did not answer) leaves it to be retried.
   */
  async advance(rowOrId: ChainTransaction | string): Promise<ChainTransaction> {
    const id = typeof rowOrId === "string" ? rowOrId : rowOrId.id;
    const row = typeof rowOrId === "string" ? await this.get(id) : rowOrId;
    try {
      if (isUnsent(row)) await this.signerPass(row.chainId, row.fromAddress);
      const now = isUnsent(row) ? (this.takeJustSent(id) ?? (await this.get(id))) : row;
      if (now.status === "sent") {
        await this.receiptPasses.request();
        const known = this.takeRecent(id) ?? this.stillSent.get(id);
        if (known) return known;
      }
    } catch (err) {
      this.transient("step", err, id);
    }
    return this.get(id);
  }

  private takeJustSent(id: string): ChainTransaction | undefined {
    const hit = this.justSent.get(id);
    this.justSent.delete(id);
    return hit?.row;
  }

  /** A row the last receipt pass settled, for the request waiting on it (spares it a read). */
  private takeRecent(id: string): ChainTransaction | undefined {
    const hit = this.recentlySettled.get(id);
    this.recentlySettled.delete(id);
    return hit?.row;
  }

  private transient(what: string, err: unknown, id?: string): void {
    this.deps.log.warn(`outbox: ${what} failed, will retry`, { id, err: describeChainError(err) });
  }

  private async update(id: string, fields: Partial<typeof chainTransactions.$inferInsert>): Promise<void> {
    await this.deps.db
      .update(chainTransactions)
      .set({ ...fields, updatedAt: new Date() })
      .where(eq(chainTransactions.id, id));
  }

  /**
   * Runs a pass for this signing address that starts after now, or joins the
   * one already waiting to start: every row queued before the call is in it
   * (unless the pass stops at a refusal, or another process holds the
   * address; callers poll either way).
   */
  private signerPass(chainId: number, from: string): Promise<void> {
    const key = `${chainId}:${from}`;
    let passes = this.passes.get(key);
    if (!passes) this.passes.set(key, (passes = new NextRun(() => this.runSignerPass(chainId, from), { minGapMs: this.deps.chain.config.pollingIntervalMs / 5 })));
    const done = passes.request();
    void done.finally(() => {
      if (!passes.busy) this.passes.delete(key);
    }).catch(() => undefined);
    return done;
  }

  private async runSignerPass(chainId: number, from: string): Promise<void> {
    const { db } = this.deps;
    const leaseName = `signer:${chainId}:${from}`;
    // Kept from the pass before if this process still holds it: under load passes follow one another.
    if (!(await this.signerLeases.hold(leaseName))) return;
    try {
      // Anything signed but not known to be sent (an earlier pass failed half-way, or a process died): send it first, in order.
      const leftover = await db
        .select()
        .from(chainTransactions)
        .where(and(eq(chainTransactions.chainId, chainId), eq(chainTransactions.fromAddress, from), eq(chainTransactions.status, "signed")))
        .orderBy(asc(chainTransactions.nonce));
      if (leftover.length && !(await this.broadcastInOrder(leftover, new Set(), leaseName))) return;

      const queued = await db
        .select()
        .from(chainTransactions)
        .where(and(eq(chainTransactions.chainId, chainId), eq(chainTransactions.fromAddress, from), eq(chainTransactions.status, "queued")))
        .orderBy(sql`rowid`)
        .limit(BATCH_LIMIT);
      if (!queued.length) return;
      let signed: ChainTransaction[];
      try {
        const signable = await this.estimateAll(queued);
        if (!signable.length) return;
        signed = await this.signBatch(chainId, from, signable);
      } catch (err) {
        if (err instanceof WalletKeyError) {
          // Not the chain's fault and not going away by retrying: the rows fail now, with the reason, signing nothing.
          await this.failQueued(queued, `the signing key could not be used: ${err.message}`);
          this.deps.log.error("outbox: a wallet key cannot sign; its queued transactions failed", { from, err: err.message });
          return;
        }
        await this.countFailedAttempt(queued, err);
        throw err;
      }
      if (signed.length) await this.broadcastInOrder(signed, new Set(signed.map((r) => r.id)), leaseName);
    } finally {
      // Kept for the pass already asked for; otherwise handed back, so another process need not wait for it to lapse.
      if (!this.passes.get(`${chainId}:${from}`)?.queued) await this.signerLeases.release(leaseName);
    }
  }

  private async failQueued(rows: ChainTransaction[], error: string): Promise<void> {
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
  private async countFailedAttempt(rows: ChainTransaction[], err: unknown): Promise<void> {
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

  /** Gas for each row, estimated side by side; a row the chain would refuse fails now, before it takes a nonce. */
  private async estimateAll(rows: ChainTransaction[]): Promise<{ row: ChainTransaction; gasLimit: bigint }[]> {
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
          await this.update(row.id, { status: "failed", error: describeChainError(err) });
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
  private async signBatch(chainId: number, from: string, signable: { row: ChainTransaction; gasLimit: bigint }[]): Promise<ChainTransaction[]> {
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

  /**
   * Sends signed rows in nonce order, stopping at the first the node
   * refuses. `ours` are the rows this pass signed (no node has seen them
   * before this call). Returns whether every row was sent.
   */
  private async broadcastInOrder(rows: ChainTransaction[], ours: Set<string>, leaseName: string): Promise<boolean> {
    const { db } = this.deps;
    const sent: ChainTransaction[] = [];
    try {
      for (const [index, row] of rows.entries()) {
        const outcome = await this.sendSigned(row);
        if (outcome.kind === "sent") {
          sent.push(row);
          continue;
        }
        if (outcome.kind === "nonce-used") {
          // Someone else used this nonce (a key exported and used elsewhere): this transaction can never be mined.
          await this.update(row.id, { status: "failed", nonce: null, error: `nonce ${row.nonce} was used by another transaction` });
          await db.delete(walletNonces).where(eq(walletNonces.key, `${row.chainId}:${row.fromAddress}`));
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

  /** Sends one stored raw transaction; a node that already has it (or mined it) counts as sent. */
  private async sendSigned(row: ChainTransaction): Promise<{ kind: "sent" } | { kind: "nonce-used" } | { kind: "refused"; error: unknown }> {
    const { chain } = this.deps;
    try {
      await chain.client.sendRawTransaction({ serializedTransaction: row.rawTx as Hex });
      return { kind: "sent" };
    } catch (err) {
      // Only the node saying "not found" means not found: a lookup that fails leaves the row signed, to be retried.
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
    // Lost from the node's pool (a restart, say): the same signed transaction again.
    for (const row of lost) {
      await chain.client.sendRawTransaction({ serializedTransaction: row.rawTx as Hex }).catch(() => undefined);
      updates.push({ row, fields: { sentAt: new Date() } });
    }
    // What this pass saw still waiting (with what it learnt), so the requests waiting on those rows need not read them.
    const stillSent = new Map(sent.map((row) => [row.id, row]));
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

  private async walletOf(walletId: string): Promise<Wallet> {
    const [wallet] = await this.deps.db.select().from(wallets).where(eq(wallets.id, walletId));
    if (!wallet) throw new Error(`outbox: wallet ${walletId} not found`);
    return wallet;
  }

  private signWith(wallet: Wallet | undefined, sign: (account: PrivateKeyAccount) => Promise<Hex>): Promise<Hex> {
    if (!wallet) return sign(this.deps.chain.operator);
    return withWalletAccount({ keyring: this.deps.keyring }, wallet, sign);
  }

  /**
   * One pass of the worker: a signing pass for every address with queued or
   * signed rows (after a restart, the rows no request is waiting for), then
   * a receipt pass. Returns how many addresses had work.
   */
  async runOnce(limit = 25): Promise<number> {
    const signers = await this.deps.db
      .selectDistinct({ chainId: chainTransactions.chainId, fromAddress: chainTransactions.fromAddress })
      .from(chainTransactions)
      .where(and(eq(chainTransactions.chainId, this.deps.chain.config.chain.id), inArray(chainTransactions.status, ["queued", "signed"])))
      .limit(limit);
    for (const { chainId, fromAddress } of signers) {
      await this.signerPass(chainId, fromAddress).catch((err) => this.transient("signing pass", err));
    }
    await this.receiptPasses.request().catch((err) => this.transient("receipt pass", err));
    return signers.length;
  }

  /** Runs the worker in the background until stop(). */
  start(intervalMs = this.deps.chain.config.pollingIntervalMs * 4): void {
    this.worker.start(intervalMs);
  }

  /** Stops the worker after the pass in progress, if any, and hands back the signer leases still held. */
  async stop(): Promise<void> {
    await this.worker.stop();
    await this.signerLeases.releaseAll();
  }
}

const rowById = preparedQuery((db) => db.select().from(chainTransactions).where(eq(chainTransactions.id, sql.placeholder("id"))).prepare());
const rowByKey = preparedQuery((db) =>
  db
    .select()
    .from(chainTransactions)
    .where(and(eq(chainTransactions.requester, sql.placeholder("requester")), eq(chainTransactions.idempotencyKey, sql.placeholder("key"))))
    .limit(1)
    .prepare(),
);

const requesterOf = (userId: number | null) => (userId === null ? "platform" : `user:${userId}`);

/** Not yet accepted by a node: the signer's passes move it. */
const isUnsent = (tx: ChainTransaction) => tx.status === "queued" || tx.status === "signed";

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
