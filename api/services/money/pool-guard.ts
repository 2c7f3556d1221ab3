import { and, eq, gt, inArray, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { Hex } from "viem";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { chainTransactions, workerLeases, type Currency } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";

/** Long enough for a balance read and an outbox row on a busy machine; a crashed holder's lock frees itself after it. */
const POOL_LOCK_MS = 5_000;
/** How long a request waits for the pool: longer than a lock, so a lock left by a crashed process is waited out. */
const POOL_WAIT_MS = 8_000;

/** Outbox kinds that take money out of a pool (the contract debits the pool when they are mined). */
const POOL_DEBITS = ["withdraw_pool", "allocate_bounty"];

/**
 * Serialises the requests that take money out of one pool, across
 * processes: a lock row (worker_leases, `pool:<repoId>`) taken with a
 * conditional upsert (only when free or expired) and held from the balance
 * check until the outbox row exists. The next holder then sees that row as
 * a pending debit (poolDebitsAfter), so a race is decided here, by the
 * platform's 400, and never by the chain refusing a transaction that cost
 * gas (issue 25, item 4).
 */
export function withPoolLock<T>(ctx: DatabaseDeps, repoId: number, work: () => Promise<T>): Promise<T> {
  return withMoneyLock(ctx, `pool:${repoId}`, work);
}

/** The same for one bounty (a Release and a Cancel of it), so payouts of different bounties never wait for each other. */
export function withBountyLock<T>(ctx: DatabaseDeps, repoId: number, issueNumber: number, work: () => Promise<T>): Promise<T> {
  return withMoneyLock(ctx, `bounty:${repoId}:${issueNumber}`, work);
}

/** Requests of this process queued per lock name (withMoneyLock). */
const queues = new Map<string, Promise<unknown>>();
/** How many of them wait (not the holder): what a test waits for to act while a request is held up. */
const waiting = new Map<string, number>();

/** Requests of this process waiting for the pool's lock (held by another). */
export function poolLockWaiters(repoId: number): number {
  return waiting.get(`pool:${repoId}`) ?? 0;
}

/** A lock row this process holds between two of its requests for the same lock (see withMoneyLock). */
interface HeldRow {
  owner: string;
  takenAt: number;
}
const handedOn = new Map<string, HeldRow>();
/**
 * A row is handed on for at most this long after it was taken: each holder starts with at least POOL_LOCK_MS -
 * HANDOFF_MS of it left (as long as the work ever had before, to spare), and other processes get their turn.
 */
const HANDOFF_MS = 1_000;
/** Longest pause between two tries of a waiting process (withLockRow): a row given up for its age stays free this long. */
const RETRY_MAX_MS = 30;

/**
 * One request at a time per lock name: this process's requests queue here, and only the first contends for the lock
 * row. While they follow each other the row is handed from one to the next instead of being deleted and inserted
 * again (two durable writes per request less, in the pool's critical section: a burst of allocations into one
 * pool queued behind them), up to HANDOFF_MS after it was taken.
 */
async function withMoneyLock<T>(ctx: DatabaseDeps, name: string, work: () => Promise<T>): Promise<T> {
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
    let row = handedOn.get(name);
    handedOn.delete(name);
    if (row && Date.now() - row.takenAt >= HANDOFF_MS) {
      await dropLockRow(ctx, name, row.owner);
      row = undefined;
      // Another process waiting for the row finds it free before this one takes it again.
      await Bun.sleep(RETRY_MAX_MS);
    }
    row ??= await takeLockRow(ctx, name);
    try {
      return await work();
    } finally {
      // The next request of this process for this lock is queued behind this one: it inherits the row.
      if (queues.get(name) !== tail && Date.now() - row.takenAt < HANDOFF_MS) handedOn.set(name, row);
      else await dropLockRow(ctx, name, row.owner);
    }
  } finally {
    done();
    if (queues.get(name) === tail) queues.delete(name);
  }
}

async function takeLockRow(ctx: DatabaseDeps, name: string): Promise<HeldRow> {
  const owner = crypto.randomUUID();
  const deadline = Date.now() + POOL_WAIT_MS;
  for (;;) {
    const now = new Date();
    const taken = await ctx.database.db
      .insert(workerLeases)
      .values({ name, owner, until: new Date(now.getTime() + POOL_LOCK_MS) })
      .onConflictDoUpdate({ target: workerLeases.name, set: { owner, until: new Date(now.getTime() + POOL_LOCK_MS) }, setWhere: lt(workerLeases.until, now) })
      .returning({ owner: workerLeases.owner });
    if (taken[0]?.owner === owner) return { owner, takenAt: now.getTime() };
    if (Date.now() > deadline) {
      throw new DomainError({ code: ErrorCode.POOL_BUSY, error: "Pool busy", message: "Another change to this pool is in progress. Try again in a moment.", headers: { "Retry-After": "2" } });
    }
    await Bun.sleep(10 + Math.random() * (RETRY_MAX_MS - 10));
  }
}

async function dropLockRow(ctx: DatabaseDeps, name: string, owner: string): Promise<void> {
  await ctx.database.db.delete(workerLeases).where(and(eq(workerLeases.name, name), eq(workerLeases.owner, owner)));
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
export async function poolDebitsAfter(ctx: DatabaseDeps, repoId: number, currency: Currency, snapshot: PoolSnapshot): Promise<bigint> {
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
