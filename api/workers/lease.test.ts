import { describe, expect, test } from "bun:test";
import { openDatabase, migrateDatabase } from "../../db/client.ts";
import { workerLeases } from "../../db/schema/index.ts";
import { LeaseHolder, takeLease } from "./lease.ts";

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
    const holder = new LeaseHolder(db, "a", 200);
    const until = async () => (await db.select().from(workerLeases))[0]?.until.getTime();
    expect(await holder.hold("job")).toBe(true);
    const first = await until();
    expect(await holder.hold("job")).toBe(true);
    expect(await until()).toBe(first); // not written again
    await Bun.sleep(120);
    expect(await holder.hold("job")).toBe(true);
    expect(await until()).toBeGreaterThan(first!); // renewed
    expect(await new LeaseHolder(db, "b", 200).hold("job")).toBe(false);
    await holder.releaseAll();
    expect(await db.select().from(workerLeases)).toEqual([]);
    expect(await new LeaseHolder(db, "b", 200).hold("job")).toBe(true);
    close();
  });
});
