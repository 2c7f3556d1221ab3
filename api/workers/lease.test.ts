import { describe, expect, test } from "bun:test";
import { openDatabase, migrateDatabase } from "../../db/client.ts";
import { workerLeases } from "../../db/schema/index.ts";
import { eventually } from "../../testing/stack.ts";
import { holdsLease, KeptLease, LeaseHolder, releaseLease, renewLease, takeLease } from "./lease.ts";

async function database() {
  const handle = await openDatabase(":memory:");
  await migrateDatabase(handle);
  return handle;
}

describe("leases", () => {
  test("one live owner at a time; a lapsed lease can be taken over", async () => {
    const { db, close } = await database();
    expect(await takeLease(db, "job", "a", 1000, 0)).toBe(true);
    expect(await takeLease(db, "job", "b", 1000, 500)).toBe(false);
    expect(await takeLease(db, "job", "a", 1000, 500)).toBe(true); // renewal
    expect(await takeLease(db, "job", "b", 1000, 1600)).toBe(true); // a's lapsed at 1500
    close();
  });

  test("a holder writes the lease again only when half of it is spent, and hands it back", async () => {
    const { db, close } = await database();
    let now = Date.now();
    const clock = () => now;
    const holder = new LeaseHolder(db, "a", 200, clock);
    const until = async () => (await db.select().from(workerLeases))[0]?.until.getTime();
    expect(await holder.hold("job")).toBe(true);
    const first = await until();
    now += 99; // less than half the lease spent
    expect(await holder.hold("job")).toBe(true);
    expect(await until()).toBe(first); // not written again
    now += 21; // more than half
    expect(await holder.hold("job")).toBe(true);
    expect(await until()).toBe(first! + 120); // renewed
    expect(await new LeaseHolder(db, "b", 200, clock).hold("job")).toBe(false);
    await holder.releaseAll();
    expect(await db.select().from(workerLeases)).toEqual([]);
    expect(await new LeaseHolder(db, "b", 200, clock).hold("job")).toBe(true);
    close();
  });

  test("renewing and the fence: only the owner renews; the fence holds for the owner of a live lease only", async () => {
    const { db, close } = await database();
    const now = Date.now();
    expect(await takeLease(db, "lock", "a", 1000, now)).toBe(true);
    expect(await holdsLease(db, "lock", "a", now + 999)).toBe(true);
    expect(await holdsLease(db, "lock", "b", now + 999)).toBe(false);
    expect(await holdsLease(db, "lock", "a", now + 1000)).toBe(false); // lapsed
    expect(await renewLease(db, "lock", "b", 1000, now + 500)).toBe(false);
    expect(await renewLease(db, "lock", "a", 1000, now + 500)).toBe(true);
    expect(await takeLease(db, "lock", "b", 1000, now + 1200)).toBe(false); // renewed until now + 1500
    expect(await holdsLease(db, "lock", "a", now + 1400)).toBe(true);
    // Lapsed and taken by b: a can neither renew nor pass the fence any more, even later.
    expect(await takeLease(db, "lock", "b", 1000, now + 1600)).toBe(true);
    expect(await renewLease(db, "lock", "a", 1000, now + 1700)).toBe(false);
    expect(await holdsLease(db, "lock", "a", now + 1700)).toBe(false);
    expect(await holdsLease(db, "lock", "b", now + 1700)).toBe(true);
    // Handed back: gone for everyone.
    await releaseLease(db, "lock", "a"); // not a's: nothing happens
    expect(await holdsLease(db, "lock", "b", now + 1700)).toBe(true);
    await releaseLease(db, "lock", "b");
    expect(await holdsLease(db, "lock", "b", now + 1700)).toBe(false);
    close();
  });

  test("a kept lease is renewed in the background past its own time; once its holder's bound passes it lapses, another takes it, and the holder learns it lost it", async () => {
    const { db, close } = await database();
    // Renewed every third of it: a lease of a second leaves room for a busy machine's late timers.
    const MS = 1_000;
    const kept = (await KeptLease.take(db, "money", { ms: MS }))!;
    try {
      expect(kept).toBeDefined();
      expect(await KeptLease.take(db, "money", { ms: MS })).toBeUndefined();
      const firstUntil = kept.takenAt + MS;
      // Renewed: still the holder's after its first time is over, and nobody else could take it meanwhile.
      await eventually(async () => (Date.now() > firstUntil + MS && (await holdsLease(db, "money", kept.owner)) ? true : undefined), 20 * MS, "the lease renewed past its first time");
      expect(await takeLease(db, "money", "other", MS)).toBe(false);
      expect(kept.lost).toBe(false);
      // The holder's bound: no renewal after it, the lease lapses and another owner takes it.
      kept.keepUntil(Date.now());
      await eventually(async () => ((await takeLease(db, "money", "other", 60_000)) ? true : undefined), 20 * MS, "the lease lapsed and taken by another");
      expect(await kept.holds(db)).toBe(false);
      // Its next renewal (called here rather than waited for) finds the lease another's.
      kept.keepUntil(Infinity);
      await kept.renew();
      expect(kept.lost).toBe(true);
      await kept.release(); // not its own any more: the other's stays
      expect(await holdsLease(db, "money", "other")).toBe(true);
    } finally {
      await kept.release();
      close();
    }
  }, 60_000);
});
