import { and, eq, inArray, lt, notInArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { chainTransactions, workerLeases, type Currency } from "../../../db/schema/index.ts";
import { ApiError, ErrorCode } from "../../errors.ts";

/** Long enough for a balance read and an outbox row; a crashed holder's lock frees itself after it. */
const POOL_LOCK_MS = 15_000;
/** How long a request waits for the pool before it is told to try again. */
const POOL_WAIT_MS = 10_000;

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
export async function withPoolLock<T>(ctx: AppContext, repoId: number, work: () => Promise<T>): Promise<T> {
  const name = `pool:${repoId}`;
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
    if (Date.now() > deadline)
      throw new ApiError({ code: ErrorCode.CONFLICT, error: "Pool busy", message: "Another change to this pool is in progress. Try again in a moment." });
    await Bun.sleep(10 + Math.random() * 20);
  }
  try {
    return await work();
  } finally {
    await ctx.database.db.delete(workerLeases).where(and(eq(workerLeases.name, name), eq(workerLeases.owner, owner)));
  }
}

/**
 * What the outbox is about to take out of the pool in `currency`: debits not
 * yet confirmed (queued, signed or sent). Counted against the on-chain
 * balance, which may already include a mined but unconfirmed one: the error
 * is on the safe side for a few seconds.
 */
export async function pendingPoolDebits(ctx: AppContext, repoId: number, currency: Currency): Promise<bigint> {
  const rows = await ctx.database.db
    .select({ intent: chainTransactions.intent })
    .from(chainTransactions)
    .where(and(eq(chainTransactions.githubRepoId, repoId), inArray(chainTransactions.kind, POOL_DEBITS), notInArray(chainTransactions.status, ["confirmed", "failed", "reverted"])));
  let total = 0n;
  for (const { intent } of rows) {
    const parsed = JSON.parse(intent) as { currency?: string; amount?: string };
    if (parsed.currency === currency && parsed.amount && /^\d+$/.test(parsed.amount)) total += BigInt(parsed.amount);
  }
  return total;
}
