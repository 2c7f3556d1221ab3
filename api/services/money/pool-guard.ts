import { and, eq, inArray, isNull, lt } from "drizzle-orm";
import type { Hex } from "viem";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { chainTransactions, workerLeases, type Currency } from "../../../db/schema/index.ts";
import { ApiError, ErrorCode } from "../../errors.ts";

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
 * a pending debit (pendingPoolDebits), so a race is decided here, by the
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

/** Requests of this process queued per lock name: only the first contends for the lock row, the rest wait their turn here. */
const queues = new Map<string, Promise<unknown>>();

async function withMoneyLock<T>(ctx: DatabaseDeps, name: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(name) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const tail = before.then(() => mine);
  queues.set(name, tail);
  try {
    await before;
    return await withLockRow(ctx, name, work);
  } finally {
    done();
    if (queues.get(name) === tail) queues.delete(name);
  }
}

async function withLockRow<T>(ctx: DatabaseDeps, name: string, work: () => Promise<T>): Promise<T> {
  const owner = crypto.randomUUID();
  const deadline = Date.now() + POOL_WAIT_MS;
  for (;;) {
    const now = new Date();
    const taken = await ctx.database.db
      .insert(workerLeases)
      .values({ name, owner, until: new Date(now.getTime() + POOL_LOCK_MS) })
      .onConflictDoUpdate({ target: workerLeases.name, set: { owner, until: new Date(now.getTime() + POOL_LOCK_MS) }, setWhere: lt(workerLeases.until, now) })
      .returning({ owner: workerLeases.owner });
    if (taken[0]?.owner === owner) break;
    if (Date.now() > deadline) {
      throw new ApiError({ code: ErrorCode.SERVICE_UNAVAILABLE, error: "Pool busy", message: "Another change to this pool is in progress. Try again in a moment.", headers: { "Retry-After": "2" } });
    }
    await Bun.sleep(10 + Math.random() * 20);
  }
  try {
    return await work();
  } finally {
    await ctx.database.db.delete(workerLeases).where(and(eq(workerLeases.name, name), eq(workerLeases.owner, owner)));
  }
}

/**
 * What the outbox is about to take out of the pool in `currency` that the
 * chain's balance does not show yet: debits queued or signed, and sent ones
 * without a receipt (the outbox records a receipt's block before the
 * confirmations are in; a sent row it has not looked at yet is asked about).
 * Read it before the pool's balance: a debit mined in between is then
 * counted twice for a moment (on the safe side), never missed; one already
 * mined is in the balance and not counted again (a bounty right after
 * another is not refused for money the pool still has).
 */
export async function pendingPoolDebits(ctx: Pick<AppContext, "database" | "chain">, repoId: number, currency: Currency): Promise<bigint> {
  const rows = await ctx.database.db
    .select({ intent: chainTransactions.intent, status: chainTransactions.status, txHash: chainTransactions.txHash, blockNumber: chainTransactions.blockNumber })
    .from(chainTransactions)
    .where(
      and(
        eq(chainTransactions.githubRepoId, repoId),
        inArray(chainTransactions.kind, POOL_DEBITS),
        isNull(chainTransactions.oldChain),
        inArray(chainTransactions.status, ["queued", "signed", "sent"]),
      ),
    );
  const amounts = await Promise.all(
    rows.map(async ({ intent, status, txHash, blockNumber }) => {
      const parsed = JSON.parse(intent) as { currency?: string; amount?: string };
      if (parsed.currency !== currency || !parsed.amount || !/^\d+$/.test(parsed.amount)) return 0n;
      if (status === "sent" && (blockNumber !== null || (txHash && (await ctx.chain.client.getTransactionReceipt({ hash: txHash as Hex }).catch(() => null))))) return 0n;
      return BigInt(parsed.amount);
    }),
  );
  return amounts.reduce((total, amount) => total + amount, 0n);
}
