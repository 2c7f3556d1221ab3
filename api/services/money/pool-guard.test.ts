import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { eventually } from "../../../testing/stack.ts";
import { chainTransactions, workerLeases } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, hasCode } from "../../errors.ts";
import { takeLease } from "../../workers/lease.ts";
import { moneyLockTimes, withBountyLock, withPoolLock, type MoneyLock } from "./pool-guard.ts";

/**
 * The pool's lock (issue 25) across processes is a row; within a process, requests queue and the row is handed
 * from one to the next while they follow each other (issue 29: two durable writes per allocation fewer in the
 * pool's critical section). What must hold: one holder at a time, in this process and against another process,
 * and no row left behind.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
}, 60_000);
afterAll(() => t?.close());

const REPO = 880_001;
const lockRow = async () => (await t.ctx.database.db.select().from(workerLeases).where(eq(workerLeases.name, `pool:${REPO}`)))[0];
/** What another process does to take the lock (the lease primitive, workers/lease.ts): true when it got it. */
const otherProcessTakes = (name = `pool:${REPO}`) => takeLease(t.ctx.database.db, name, "another-process", 5_000);

test("a burst of requests for one pool: one at a time, in order, on one lock row that another process cannot take, and none left after", async () => {
  let inside = 0;
  let most = 0;
  const order: number[] = [];
  const owners = new Set<string>();
  const othersGotIt: boolean[] = [];
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      withPoolLock(t.ctx, REPO, async () => {
        most = Math.max(most, ++inside);
        order.push(i);
        const row = await lockRow();
        owners.add(row!.owner);
        expect(row!.until.getTime()).toBeGreaterThan(Date.now());
        othersGotIt.push(await otherProcessTakes());
        inside--;
      }),
    ),
  );
  expect(most).toBe(1);
  expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(othersGotIt.every((got) => !got)).toBe(true);
  // Handed on (one row for the burst, unless it was older than the hand-off limit on a very slow machine).
  expect(owners.size).toBeLessThanOrEqual(2);
  expect(await lockRow()).toBeUndefined();
});

test("a request that throws hands the row on or drops it like one that succeeds; the next request is served", async () => {
  const results = await Promise.allSettled([
    withPoolLock(t.ctx, REPO, async () => {
      throw new Error("refused");
    }),
    withPoolLock(t.ctx, REPO, async () => (await lockRow())?.owner),
  ]);
  expect(results[0]!.status).toBe("rejected");
  expect(results[1]!.status === "fulfilled" && typeof results[1].value === "string").toBe(true);
  expect(await lockRow()).toBeUndefined();
  // A row another process holds: this process waits for it (here: it expires) rather than going in beside it.
  expect(await otherProcessTakes()).toBe(true);
  await t.ctx.database.db.update(workerLeases).set({ until: new Date(Date.now() + 300) }).where(eq(workerLeases.name, `pool:${REPO}`));
  const started = Date.now();
  const owner = await withPoolLock(t.ctx, REPO, async () => (await lockRow())?.owner);
  expect(owner).not.toBe("another-process");
  expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  expect(await lockRow()).toBeUndefined();
});

/** A row of the outbox written by a holder of the lock, fenced (as every money path writes its row). */
function enqueueFenced(lock: MoneyLock, key: string) {
  return t.ctx.outbox.enqueue(
    {
      userId: null,
      idempotencyKey: key,
      request: { key },
      kind: "withdraw_pool",
      githubRepoId: REPO,
      intent: { currency: "XDC", amount: "1" },
      signer: { kind: "operator" },
      to: t.ctx.chain.config.contracts.rewards,
      data: "0x",
    },
    undefined,
    { fence: lock.fence },
  );
}
const rowsOf = async (key: string) => t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.idempotencyKey, key));

test("a holder working longer than the lock's lease keeps it (renewed): no other process takes it meanwhile, and its fenced row is written", async () => {
  // Renewed every third of it: a lease of a second leaves room for a busy machine's late timers.
  const LEASE = 1_000;
  const ctx = { ...t.ctx, env: { ...t.ctx.env, MONEY_LOCK_MS: LEASE } };
  const takenByOther: boolean[] = [];
  const { tx } = await withPoolLock(ctx, REPO, async (lock) => {
    const started = Date.now();
    // Three leases long, asking as another process would all along.
    await eventually(async () => {
      takenByOther.push(await otherProcessTakes());
      return Date.now() - started > 3 * LEASE ? true : undefined;
    }, 30 * LEASE, "three leases of work");
    return enqueueFenced(lock, "fence-renewed");
  });
  expect(takenByOther.length).toBeGreaterThan(3);
  expect(takenByOther.every((got) => !got)).toBe(true);
  expect((await rowsOf("fence-renewed")).map((r) => r.id)).toEqual([tx.id]);
  expect(await lockRow()).toBeUndefined();
}, 60_000);

test("a holder that lost the lock (it lapsed and another process took it) writes nothing: its fenced row is refused with pool_busy, and the next request of this process is not handed the lost lease", async () => {
  const LEASE = 300;
  const ctx = { ...t.ctx, env: { ...t.ctx.env, MONEY_LOCK_MS: LEASE } };
  let refused: unknown;
  let nextOwner: string | undefined;
  const first = withPoolLock(ctx, REPO, async (lock) => {
    // What a frozen process finds when it runs again: its lease lapsed, and another process took the lock.
    await t.ctx.database.db.update(workerLeases).set({ owner: "another-process", until: new Date(Date.now() + LEASE / 2) }).where(eq(workerLeases.name, `pool:${REPO}`));
    try {
      await enqueueFenced(lock, "fence-lost");
    } catch (err) {
      refused = err;
    }
  });
  // Queued behind it in this process: it must wait for the other process's lock, not inherit the lost lease.
  const second = withPoolLock(ctx, REPO, async () => (nextOwner = (await lockRow())?.owner));
  await first;
  await second;
  expect(hasCode(refused, ErrorCode.POOL_BUSY)).toBe(true);
  expect((refused as DomainError).headers).toEqual({ "Retry-After": "2" });
  expect(await rowsOf("fence-lost")).toEqual([]);
  expect(nextOwner).toBeDefined();
  expect(nextOwner).not.toBe("another-process");
  expect(await lockRow()).toBeUndefined();
});

test("the times of a lock follow its lease: renewed every third, waited for 1.6 leases, kept at most 6, handed on for a fifth", () => {
  expect(moneyLockTimes(5_000)).toEqual({ leaseMs: 5_000, renewEveryMs: 5_000 / 3, waitMs: 8_000, maxHoldMs: 30_000, handOffMs: 1_000 });
});

test("a bounty's lock is its own: held, it does not hold up its pool's lock or another bounty's, and a lost one answers that the bounty is busy", async () => {
  let message: string | undefined;
  await withBountyLock(t.ctx, REPO, 1, async (lock) => {
    expect(await withPoolLock(t.ctx, REPO, async () => "pool")).toBe("pool");
    expect(await withBountyLock(t.ctx, REPO, 2, async () => "other bounty")).toBe("other bounty");
    await t.ctx.database.db.update(workerLeases).set({ owner: "another-process" }).where(eq(workerLeases.name, `bounty:${REPO}:1`));
    message = await enqueueFenced(lock, "fence-bounty").then(
      () => undefined,
      (err: DomainError) => err.message,
    );
  });
  expect(message).toBe("Another change to this bounty is in progress. Try again in a moment.");
  await t.ctx.database.db.delete(workerLeases).where(eq(workerLeases.name, `bounty:${REPO}:1`));
});
