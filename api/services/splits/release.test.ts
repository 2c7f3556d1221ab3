import { afterAll, beforeAll, describe, expect, jest, test } from "bun:test";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { eq, inArray } from "drizzle-orm";
import { payoutSplits, workerLeases } from "../../../db/schema/index.ts";
import { withBountyLock } from "../money/pool-guard.ts";
import { MIN_RELEASE_INTERVAL_MS, releaseDueSplits, releaseInterval, releaseWhenWindowsEnd } from "./release.ts";
import { SPLIT_OPENED_TAG } from "./open.ts";
import { ChangeFeed } from "../../changes.ts";
import { eventually } from "../../../testing/stack.ts";

/**
 * The release pass runs often (every minute by default, every 100 ms in the chain bench): a pass with no split due
 * writes nothing, not even its lease (each durable write waits for the disk; the bench's SQL timings showed lease
 * writes among the most expensive statements of the server).
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t?.close());

describe("releaseDueSplits", () => {
  test("with nothing due: returns 0 and takes no lease", async () => {
    // The other tests' passes (any order) leave their lease row until it lapses: none before this pass.
    await t.ctx.database.db.delete(workerLeases);
    await t.ctx.database.db.delete(payoutSplits).where(inArray(payoutSplits.status, ["window", "releasing"]));
    expect(await releaseDueSplits(t.ctx)).toBe(0);
    expect(await t.ctx.database.db.select().from(workerLeases)).toEqual([]);
  });

  test("splits of different bounties are released side by side: one whose bounty is locked does not hold up the next", async () => {
    const db = t.ctx.database.db;
    const now = Date.now();
    const split = (issueNumber: number, releaseAt: number) => ({
      githubRepoId: 601,
      issueNumber,
      allocatedTx: `0xalloc${issueNumber}`,
      pullNumber: 100 + issueNumber,
      authorGithubId: 1,
      authorLogin: "bob",
      currency: "XDC" as const,
      amount: 10n ** 18n,
      releaseAt: new Date(releaseAt),
    });
    // Issue 1's window ended first, so a pass one split after another would wait for its lock before touching issue 2.
    await db.insert(payoutSplits).values([split(1, now - 2_000), split(2, now - 1_000)]);
    let unlock!: () => void;
    const locked = new Promise<void>((resolve) => (unlock = resolve));
    let lockTaken!: () => void;
    const taken = new Promise<void>((resolve) => (lockTaken = resolve));
    const holder = withBountyLock(t.ctx, 601, 1, async () => {
      lockTaken();
      await locked;
    });
    await taken;
    const pass = releaseDueSplits(t.ctx, { now, owner: "test" });
    try {
      const statusOf = async (issueNumber: number) => (await db.select({ status: payoutSplits.status }).from(payoutSplits).where(eq(payoutSplits.issueNumber, issueNumber)))[0]!.status;
      // Issue 2's split is claimed (and worked on: this context has no chain, so its payout fails and is retried later)
      // while issue 1's bounty is still locked.
      await eventually(async () => (await statusOf(2)) !== "window", 30_000, "issue 2's split claimed while issue 1's bounty was locked");
      expect(await statusOf(2)).toBe("releasing");
    } finally {
      unlock();
      await holder;
      await pass;
    }
  });
});

describe("when the release pass runs", () => {
  test("every interval, or every window when shorter, never more often than the floor (a 1 ms window read the database every millisecond)", () => {
    expect(releaseInterval({ SPLIT_RELEASE_INTERVAL_MS: 60_000, SPLIT_RELEASE_WINDOW_MS: 24 * 3_600_000 })).toBe(60_000);
    expect(releaseInterval({ SPLIT_RELEASE_INTERVAL_MS: 60_000, SPLIT_RELEASE_WINDOW_MS: 4_000 })).toBe(4_000);
    expect(releaseInterval({ SPLIT_RELEASE_INTERVAL_MS: 100, SPLIT_RELEASE_WINDOW_MS: 1 })).toBe(MIN_RELEASE_INTERVAL_MS);
  });

  // On a fake clock: what is asserted is when the timers fire, not how fast this machine runs them.
  test("a window shorter than the interval: the pass is nudged when a split's window ends, not at its next tick", () => {
    jest.useFakeTimers();
    const changes = new ChangeFeed();
    let nudges = 0;
    let long = 0;
    try {
      const stop = releaseWhenWindowsEnd(changes, { nudge: () => nudges++ }, 5, 100);
      changes.publish(["repositories"]);
      changes.publish(["repo:1", SPLIT_OPENED_TAG]);
      jest.advanceTimersByTime(5);
      expect(nudges).toBe(0); // the window has not ended yet
      jest.advanceTimersByTime(1);
      expect(nudges).toBe(1);
      stop();
      // Stopped: a split opened later nudges nothing; a window as long as the interval needs no nudge at all.
      changes.publish([SPLIT_OPENED_TAG]);
      const none = releaseWhenWindowsEnd(changes, { nudge: () => long++ }, 100, 100);
      changes.publish([SPLIT_OPENED_TAG]);
      jest.advanceTimersByTime(1_000);
      none();
    } finally {
      jest.useRealTimers();
    }
    expect(nudges).toBe(1);
    expect(long).toBe(0);
  });
});
