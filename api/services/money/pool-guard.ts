import { and, eq, gt, inArray, isNotNull, isNull, or } from "drizzle-orm";
import type { Hex } from "viem";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { chainTransactions, type Currency } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { KeptLease, type LeaseReader } from "../../workers/lease.ts";

/**
 * Money locks: one holder at a time per pool (`pool:<repoId>`) and per bounty (`bounty:<repoId>:<issue>`), across
 * processes, from the check of the money to the outbox row that spends it. The next holder then sees that row (a
 * pending debit, a payout or cancellation settling), so a race is decided here, by the platform's refusal, and never
 * by the chain refusing a transaction that cost gas (issue 25, item 4).
 *
 * A lock is a lease of the one lease primitive (api/workers/lease.ts, `KeptLease`) with a token of its own:
 *   - renewed every third of MONEY_LOCK_MS while its holder works, so a slow chain read or an outbox wait under it
 *     does not let it lapse; a crashed or frozen holder stops renewing and the lock is free MONEY_LOCK_MS later;
 *   - fenced: the holder's outbox row is written only if the lease is still its own and live, checked inside the
 *     outbox's write transaction (`lock.fence`, passed as the outbox's `fence` option). A holder that lost it anyway
 *     (its process froze past the lease, the database did not take its renewals, it outlived its bound) writes
 *     nothing: it gets 503 `Pool busy` (its retry then gets the answer for the state as it is now), no transaction
 *     is signed, and the other holder's row is the only one;
 *   - bounded: a holder keeps it at most MONEY_LOCK_MS x 6 (then it lapses, and the fence refuses that holder).
 */
export interface MoneyLock {
  /**
   * Runs in the write transaction of the holder's row (the outbox's `fence` option, or a service's own
   * immediate transaction): throws `pool_busy` unless this holder still holds the lock (same owner, not lapsed).
   */
  fence: (tx: LeaseReader) => Promise<void>;
}

/** What a money lock reads: the database, and its lease time (MONEY_LOCK_MS). */
export type MoneyLockDeps = Pick<AppContext, "database" | "env">;

/** The times of a money lock, all derived from its lease (MONEY_LOCK_MS, 5 s by default). */
export function moneyLockTimes(leaseMs: number) {
  return {
    leaseMs,
    /** A holder's renewals: two may be late or fail before the lease lapses. */
    renewEveryMs: leaseMs / 3,
    /** How long a request waits for the lock (8 s by default): longer than a lease, so a crashed holder's lock is waited out. */
    waitMs: leaseMs * 1.6,
    /**
     * A holder renews for at most this long (30 s by default: its work under the lock is a few database reads, chain
     * reads that give up after two tries of CHAIN_RPC_TIMEOUT_MS, and its outbox row): one stuck for good frees the lock.
     */
    maxHoldMs: leaseMs * 6,
    /**
     * A lease is handed from one request of this process to the next queued one for at most this long after it was
     * taken (1 s by default), so that other processes get their turn.
     */
    handOffMs: leaseMs / 5,
  };
}

/** Outbox kinds that take money out of a pool (the contract debits the pool when they are mined). */
const POOL_DEBITS = ["withdraw_pool", "allocate_bounty"];

/**
 * Serialises the requests that take money out of one pool: from the balance check until the outbox row exists,
 * written with `lock.fence`. The next holder then sees that row as a pending debit (poolDebitsAfter).
 */
export function withPoolLock<T>(ctx: MoneyLockDeps, repoId: number, work: (lock: MoneyLock) => Promise<T>): Promise<T> {
  return withMoneyLock(ctx, `pool:${repoId}`, "pool", work);
}

/** The same for one bounty (a Release and a Cancel of it), so payouts of different bounties never wait for each other. */
export function withBountyLock<T>(ctx: MoneyLockDeps, repoId: number, issueNumber: number, work: (lock: MoneyLock) => Promise<T>): Promise<T> {
  return withMoneyLock(ctx, `bounty:${repoId}:${issueNumber}`, "bounty", work);
}

/** The platform's answer when a lock could not be had in time, or was lost before its holder wrote. */
export const moneyLockBusy = (what: "pool" | "bounty") =>
  new DomainError({
    code: ErrorCode.POOL_BUSY,
    error: "Pool busy",
    message: `Another change to this ${what} is in progress. Try again in a moment.`,
    headers: { "Retry-After": "2" },
  });

/** Requests of this process queued per lock name (withMoneyLock). */
const queues = new Map<string, Promise<unknown>>();
/** How many of them wait (not the holder): what a test waits for to act while a request is held up. */
const waiting = new Map<string, number>();

/** Requests of this process waiting for the pool's lock (held by another). */
export function poolLockWaiters(repoId: number): number {
  return waiting.get(`pool:${repoId}`) ?? 0;
}

/** A lease this process holds between two of its requests for the same lock (see withMoneyLock). */
const handedOn = new Map<string, KeptLease>();
/** Longest pause between two tries of a waiting process (takeLock): a lease given up for its age stays free this long. */
const RETRY_MAX_MS = 30;

/**
 * One request at a time per lock name: this process's requests queue here, and only the first contends for the
 * lease. While they follow each other the lease is handed from one to the next instead of being deleted and taken
 * again (two durable writes per request less, in the pool's critical section: a burst of allocations into one pool
 * queued behind them), up to `handOffMs` after it was taken, and never once it is known lost.
 *
 * The hand-off stays correct with the fence: the queue lets the next request start only after the previous one's
 * work has settled, so at any moment at most one request of this process acts under the lease's token; and a fence
 * that finds the token in the row proves no other process took the lease since this process did (every take writes
 * a token of its own). Everything written under the token was thus written by this process's requests one after
 * another, each having read what the one before it wrote.
 */
async function withMoneyLock<T>(ctx: MoneyLockDeps, name: string, what: "pool" | "bounty", work: (lock: MoneyLock) => Promise<T>): Promise<T> {
  const times = moneyLockTimes(ctx.env.MONEY_LOCK_MS);
  const before = queues.get(name) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const tail = before.then(() => mine);
  queues.set(name, tail);
  try {
    waiting.set(name, (waiting.get(name) ?? 0) + 1);
    try {
      await before;
    } finally {
      const left = waiting.get(name)! - 1;
      if (left) waiting.set(name, left);
      else waiting.delete(name);
    }
    let lease = handedOn.get(name);
    handedOn.delete(name);
    if (lease && (lease.lost || Date.now() - lease.takenAt >= times.handOffMs)) {
      const wasLost = lease.lost;
      await lease.release();
      lease = undefined;
      // Another process waiting for the lease finds it free before this one takes it again.
      if (!wasLost) await Bun.sleep(RETRY_MAX_MS);
    }
    lease ??= await takeLock(ctx.database.db, name, what, times);
    lease.keepUntil(Date.now() + times.maxHoldMs);
    const held = lease;
    const lock: MoneyLock = {
      async fence(tx) {
        if (await held.holds(tx)) return;
        held.markLost();
        throw moneyLockBusy(what);
      },
    };
    try {
      return await work(lock);
    } finally {
      // The next request of this process for this lock is queued behind this one: it inherits the lease.
      if (queues.get(name) !== tail && !held.lost && Date.now() - held.takenAt < times.handOffMs) handedOn.set(name, held);
      else await held.release();
    }
  } finally {
    done();
    if (queues.get(name) === tail) queues.delete(name);
  }
}

async function takeLock(db: Database, name: string, what: "pool" | "bounty", times: ReturnType<typeof moneyLockTimes>): Promise<KeptLease> {
  const deadline = Date.now() + times.waitMs;
  for (;;) {
    const lease = await KeptLease.take(db, name, { ms: times.leaseMs, renewEveryMs: times.renewEveryMs });
    if (lease) return lease;
    if (Date.now() > deadline) throw moneyLockBusy(what);
    await Bun.sleep(10 + Math.random() * (RETRY_MAX_MS - 10));
  }
}

/**
 * The pool as the chain states it at one block, and which of the outbox's
 * debits of the pool were settled on-chain by then: taken BEFORE the pool's
 * lock (three RPC calls that no longer hold up the next request for the
 * pool), then completed under the lock by `poolDebitsAfter`, which counts
 * every debit the pool at that block does not show. Exact whatever happens
 * between the two, because each debit is compared with the block rather than
 * with the moment it was read: a debit mined after the block counts (the
 * pool read does not show it), one mined at or before it does not (it does).
 */
export interface PoolSnapshot {
  block: bigint;
  pool: Record<Currency, bigint>;
  /** Outbox rows (ids) of debits of this pool whose receipt, asked after `block` was read, put them at or before it (or reverted). */
  settledBy: Set<string>;
}

export async function poolSnapshot(ctx: Pick<AppContext, "database" | "chain">, repoId: number): Promise<PoolSnapshot> {
  // The block first: a receipt asked after it and not found means "mined after the block", if ever.
  const block = await ctx.chain.client.getBlockNumber({ cacheTime: 0 });
  const [pool, settledBy] = await Promise.all([poolAt(ctx, repoId, block), debitsSettledBy(ctx, repoId, block)]);
  return { block, pool, settledBy };
}

async function poolAt(ctx: Pick<AppContext, "chain">, repoId: number, block: bigint): Promise<Record<Currency, bigint>> {
  const [xdc, roxn, usdc] = (await ctx.chain.client.readContract({
    address: ctx.chain.config.contracts.rewards,
    abi: RepoRewardsAbi,
    functionName: "getPool",
    args: [BigInt(repoId)],
    blockNumber: block,
  })) as readonly [bigint, bigint, bigint];
  return { XDC: xdc, ROXN: roxn, USDC: usdc };
}

/** The debits with a hash whose block the outbox has not recorded yet, asked of the node: mined by `block` (or reverted)? */
async function debitsSettledBy(ctx: Pick<AppContext, "database" | "chain">, repoId: number, block: bigint): Promise<Set<string>> {
  const rows = await ctx.database.db
    .select({ id: chainTransactions.id, txHash: chainTransactions.txHash })
    .from(chainTransactions)
    .where(
      and(
        eq(chainTransactions.githubRepoId, repoId),
        inArray(chainTransactions.kind, POOL_DEBITS),
        isNull(chainTransactions.oldChain),
        inArray(chainTransactions.status, ["signed", "sent"]),
        isNull(chainTransactions.blockNumber),
        isNotNull(chainTransactions.txHash),
      ),
    );
  const settled = new Set<string>();
  await Promise.all(
    rows.map(async ({ id, txHash }) => {
      const receipt = await ctx.chain.client.getTransactionReceipt({ hash: txHash as Hex }).catch(() => null);
      if (receipt && (receipt.status === "reverted" || receipt.blockNumber <= block)) settled.add(id);
    }),
  );
  return settled;
}

/**
 * Under the pool's lock (every debit row is written under it, so the rows
 * read here are all there are): what the outbox takes out of the pool in
 * `currency` that the pool at `snapshot.block` does not show. Queued rows,
 * rows whose recorded block is after it (confirmed ones too), and rows with
 * neither a recorded block nor a receipt at or before it in the snapshot:
 * such a row was not mined when its receipt was asked (after the block was
 * read), or had no hash then, or did not exist yet.
 */
export async function poolDebitsAfter(ctx: Pick<AppContext, "database">, repoId: number, currency: Currency, snapshot: PoolSnapshot): Promise<bigint> {
  const block = Number(snapshot.block);
  const rows = await ctx.database.db
    .select({ id: chainTransactions.id, intent: chainTransactions.intent, blockNumber: chainTransactions.blockNumber })
    .from(chainTransactions)
    .where(
      and(
        eq(chainTransactions.githubRepoId, repoId),
        inArray(chainTransactions.kind, POOL_DEBITS),
        isNull(chainTransactions.oldChain),
        or(inArray(chainTransactions.status, ["queued", "signed", "sent"]), and(eq(chainTransactions.status, "confirmed"), gt(chainTransactions.blockNumber, block))),
      ),
    );
  let total = 0n;
  for (const { id, intent, blockNumber } of rows) {
    const parsed = JSON.parse(intent) as { currency?: string; amount?: string };
    if (parsed.currency !== currency || !parsed.amount || !/^\d+$/.test(parsed.amount)) continue;
    if (blockNumber !== null ? blockNumber <= block : snapshot.settledBy.has(id)) continue;
    total += BigInt(parsed.amount);
  }
  return total;
}
