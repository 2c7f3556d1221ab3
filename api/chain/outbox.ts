import { and, asc, eq, inArray, isNull, ne, notInArray, or, sql } from "drizzle-orm";
import { preparedQuery } from "../../db/prepared.ts";
import type { Address, Hex } from "viem";
import type { Database } from "../../db/client.ts";
import { chainTransactions, type ChainTransaction, type Wallet } from "../../db/schema/index.ts";
import { hashToken, randomToken } from "../crypto/tokens.ts";
import { DomainError, ErrorCode } from "../errors.ts";
import { describeChainError } from "./errors.ts";
import { WalletKeyError } from "../services/wallets/custodial.ts";
import { LeaseHolder } from "../workers/lease.ts";
import { NextRun } from "../workers/next-run.ts";
import { Periodic } from "../workers/periodic.ts";
import { OutboxBroadcasting } from "./outbox-broadcasting.ts";
import { OutboxConfirming } from "./outbox-confirming.ts";
import { OutboxSigning, type OutboxDeps } from "./outbox-signing.ts";

export type { OutboxDeps } from "./outbox-signing.ts";
export { REBROADCAST_AFTER_MS } from "./outbox-confirming.ts";

/**
 * The transaction outbox (ARCHITECTURE.md, "Money"). A request becomes a row
 * first; rows move one way, each step in its own file:
 *
 *   queued  -- estimate gas, then sign in ONE database transaction
 *              with the signer's next nonces                 -> signed | failed   (outbox-signing.ts)
 *   signed  -- broadcast the stored raw transaction           -> sent               (outbox-broadcasting.ts)
 *   sent    -- wait for the receipt and confirmations         -> confirmed | reverted (outbox-confirming.ts)
 *   confirmed | reverted -- no longer on-chain (a reorganisation,
 *              a chain that lost blocks)                       -> sent               (outbox-reconciling.ts)
 *
 * A signed row is never signed again: after a crash or restart the same raw
 * transaction is re-broadcast, so a nonce is never reused or skipped and a
 * payment cannot go out twice.
 *
 * This file keeps the rows' entry and the passes that move them: a request's
 * row is inserted once per idempotency key (a replay returns the first row),
 * then driven by passes. Signing and broadcasting happen in passes per
 * signing address (one at a time per address, across processes: a lease), so
 * concurrent requests from one signer are signed together with consecutive
 * nonces and broadcast in nonce order instead of one round trip after
 * another. A pass starts only when the address has no signed-but-unsent rows
 * left (it first re-sends those). Receipts are read in one pass over every
 * sent row (requests waiting for their row share it). Passes of both kinds
 * run in the requests that wait and in the background worker, in any number
 * of processes: a signer's lease keeps its passes one at a time, and every
 * write is conditional on the state it read.
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
  /**
   * When the request was checked against the daily limits (api/services/money/limits.ts): the row counts in the
   * rolling windows from this instant, the same one its guard measured them at. Default: the database's time.
   */
  createdAt?: Date;
}

/** A signer's pass holds this lease; a pass takes far less, and a crashed process's lease lapses after it. */
export const SIGNER_LEASE_MS = 10_000;
/** Rows signed in one pass, at most. */
const BATCH_LIMIT = 50;

/** A live payout of the issue exists (not failed or reverted): a second one is refused before it is written. */
async function refuseSecondPayout(db: Database, repoId: number, issueNumber: number, requester: string, key: string): Promise<void> {
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

/**
 * What a service asks of the outbox (AppContext's `outbox`): queue a
 * transaction, find or replay one by its key, wait for it. Running the passes
 * (`start`, `stop`, `runOnce`, `advance`) stays with the composition root and
 * the tests, which hold the class (`RootContext`).
 */
export type OutboxPort = Pick<
  Outbox,
  "enqueue" | "replay" | "findByKey" | "get" | "submit" | "untilBroadcast" | "submitOnce" | "waitForSettled" | "currentGasPrice"
>;

export class Outbox {
  readonly workerId = `w-${randomToken(6)}`;
  /** The background pass (`runOnce`), for the rows no request is waiting for. */
  private readonly worker = new Periodic(
    "outbox",
    () => this.runOnce(),
    (err) => this.deps.log.warn("outbox worker pass failed", { err: describeChainError(err) }),
  );
  /** Per signing address: its passes in this process (one at a time; callers share the next one). */
  private passes = new Map<string, NextRun>();
  /** Signer leases, held from one pass to the next one already asked for. */
  private readonly signerLeases: LeaseHolder;
  private readonly signing: OutboxSigning;
  private readonly broadcasting: OutboxBroadcasting;
  /** Receipt passes: back to back while requests wait; half a polling interval apart at most, so a stream of waiters shares them. */
  private readonly confirming: OutboxConfirming;

  constructor(private readonly deps: OutboxDeps) {
    this.signerLeases = new LeaseHolder(deps.db, this.workerId, SIGNER_LEASE_MS);
    this.signing = new OutboxSigning(deps);
    this.broadcasting = new OutboxBroadcasting(deps, this.workerId);
    this.confirming = new OutboxConfirming(deps);
  }

  /**
   * Inserts the row, or returns the first row for this key (a replay, which
   * skips `guard`). `guard` runs in the same write transaction as the insert,
   * so a rule over other rows (the daily funding limit) holds even under
   * concurrent requests. `fence` is a money lock's (pool-guard.ts,
   * `lock.fence`): it runs first in that transaction and refuses the insert
   * unless the caller still holds its lock, so a holder that lost it writes
   * nothing and nothing is signed for it.
   */
  async enqueue(
    req: OutboxRequest,
    guard?: (tx: Database) => Promise<void>,
    options: { replayChecked?: boolean; fence?: (tx: Database) => Promise<void> } = {},
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
          ...(req.createdAt ? { createdAt: req.createdAt } : {}),
        })
        // Only the same key is a replay; any other unique rule (one payout per issue) must fail loudly.
        .onConflictDoNothing({ target: [chainTransactions.requester, chainTransactions.idempotencyKey] })
        .returning();
    // One live payout per issue (a bounty is paid once): checked in the insert's own write transaction, so two
    // concurrent payouts cannot both pass; the unique index chain_tx_one_payout_idx stands behind it.
    const onePayout = req.kind === "pay_bounty" && req.githubRepoId != null && req.issueNumber != null ? (into: Database) => refuseSecondPayout(into, req.githubRepoId!, req.issueNumber!, requesterOf(req.userId), req.idempotencyKey) : undefined;
    const guards = [options.fence, onePayout, guard].filter((g): g is (tx: Database) => Promise<void> => g !== undefined);
    // A single insert needs no transaction of its own; a guard's reads and the insert share one.
    const inserted = guards.length
      ? await db.transaction(
          async (tx) => {
            for (const check of guards) await check(tx as unknown as Database);
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
    options: { timeoutMs?: number; guard?: (tx: Database) => Promise<void>; replayChecked?: boolean; fence?: (tx: Database) => Promise<void> } = {},
  ): Promise<{ tx: ChainTransaction; replayed: boolean }> {
    const { tx, replayed } = await this.enqueue(req, options.guard, { replayChecked: options.replayChecked, fence: options.fence });
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
      current = this.broadcasting.takeJustSent(current.id) ?? (await this.get(current.id));
      if (isUnsent(current)) await Bun.sleep(this.deps.chain.config.pollingIntervalMs);
    }
    return current;
  }

  /**
   * For the platform's own transactions (userId null), keyed by what they do:
   * sends once, but if an earlier attempt failed or reverted, tries again
   * under the next key (`key#2`, `key#3`, ...) instead of replaying the failure.
   */
  async submitOnce(
    req: OutboxRequest,
    options: {
      timeoutMs?: number;
      /** Only the row: the caller drives it later (`untilBroadcast`). */
      queueOnly?: boolean;
      /** A money lock's fence (see `enqueue`). */
      fence?: (tx: Database) => Promise<void>;
    } = {},
  ): Promise<{ tx: ChainTransaction; replayed: boolean }> {
    for (let attempt = 1; attempt < 100; attempt++) {
      const key = attempt === 1 ? req.idempotencyKey : `${req.idempotencyKey}#${attempt}`;
      const existing = await this.findByKey(req.userId, key);
      if (existing && (existing.status === "failed" || existing.status === "reverted")) continue;
      if (options.queueOnly) return this.enqueue({ ...req, idempotencyKey: key }, undefined, { fence: options.fence });
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
      const now = isUnsent(row) ? (this.broadcasting.takeJustSent(id) ?? (await this.get(id))) : row;
      if (now.status === "sent") {
        await this.confirming.request();
        const known = this.confirming.known(id);
        if (known) return known;
      }
    } catch (err) {
      this.transient("step", err, id);
    }
    return this.get(id);
  }

  private transient(what: string, err: unknown, id?: string): void {
    this.deps.log.warn(`outbox: ${what} failed, will retry`, { id, err: describeChainError(err) });
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
      if (leftover.length && !(await this.broadcasting.broadcastInOrder(leftover, new Set(), leaseName))) return;

      const queued = await db
        .select()
        .from(chainTransactions)
        .where(and(eq(chainTransactions.chainId, chainId), eq(chainTransactions.fromAddress, from), eq(chainTransactions.status, "queued")))
        .orderBy(sql`rowid`)
        .limit(BATCH_LIMIT);
      if (!queued.length) return;
      let signed: ChainTransaction[];
      try {
        const signable = await this.signing.estimateAll(queued);
        if (!signable.length) return;
        signed = await this.signing.signBatch(chainId, from, signable);
      } catch (err) {
        if (err instanceof WalletKeyError) {
          // Not the chain's fault and not going away by retrying: the rows fail now, with the reason, signing nothing.
          await this.signing.failQueued(queued, `the signing key could not be used: ${err.message}`);
          this.deps.log.error("outbox: a wallet key cannot sign; its queued transactions failed", { from, err: err.message });
          return;
        }
        await this.signing.countFailedAttempt(queued, err);
        throw err;
      }
      if (signed.length) await this.broadcasting.broadcastInOrder(signed, new Set(signed.map((r) => r.id)), leaseName);
    } finally {
      // Kept for the pass already asked for; otherwise handed back, so another process need not wait for it to lapse.
      if (!this.passes.get(`${chainId}:${from}`)?.queued) await this.signerLeases.release(leaseName);
    }
  }

  /**
   * The gas price the next signing uses (read at most every few seconds). Quotes read it too, so a fee shown is the
   * fee paid: Max leaves exactly the reserve (issue 16).
   */
  currentGasPrice(): Promise<bigint> {
    return this.signing.currentGasPrice();
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
    await this.confirming.request().catch((err) => this.transient("receipt pass", err));
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

/** The scope of a requester's idempotency keys (the `requester` column): `user:<id>`, or `platform`. */
export const requesterOf = (userId: number | null) => (userId === null ? "platform" : `user:${userId}`);

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
