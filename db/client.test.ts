import { describe, expect, test } from "bun:test";
import { count, sql } from "drizzle-orm";
import { migrateDatabase, openDatabase } from "./client.ts";
import { seedDemoData } from "./seed.ts";
import { repositories, repositoryPools } from "./schema/index.ts";
import { makeTempDir } from "../api/testing/context.ts";

describe("database", () => {
  test("the embedded file database runs in WAL mode with a busy timeout", async () => {
    const dir = await makeTempDir();
    const handle = await openDatabase(`file:${dir}/nested/app.db`, { busyTimeoutMs: 4321 });
    const mode = await handle.client.execute("PRAGMA journal_mode");
    expect(String(mode.rows[0]![0])).toBe("wal");
    const timeout = await handle.client.execute("PRAGMA busy_timeout");
    expect(Number(timeout.rows[0]![0])).toBe(4321);
    handle.close();
  });

  test("migrations apply once and again as a no-op", async () => {
    const handle = await openDatabase(":memory:");
    await migrateDatabase(handle);
    await migrateDatabase(handle);
    const tables = await handle.db.all<{ name: string }>(sql`select name from sqlite_master where type = 'table'`);
    expect(tables.map((t) => t.name)).toContain("repositories");
    handle.close();
  });

  test("seeding twice does not duplicate anything", async () => {
    const handle = await openDatabase(":memory:");
    await migrateDatabase(handle);
    await seedDemoData(handle.db, { githubUrl: "http://gh" });
    const first = await handle.db.select({ n: count() }).from(repositories);
    const firstPools = await handle.db.select({ n: count() }).from(repositoryPools);
    await seedDemoData(handle.db, { githubUrl: "http://gh" });
    expect(await handle.db.select({ n: count() }).from(repositories)).toEqual(first);
    expect(await handle.db.select({ n: count() }).from(repositoryPools)).toEqual(firstPools);
    expect(first[0]!.n).toBeGreaterThan(0);
    handle.close();
  });

  test("money columns round-trip bigints beyond 2^53 exactly", async () => {
    const handle = await openDatabase(":memory:");
    await migrateDatabase(handle);
    await seedDemoData(handle.db, { githubUrl: "http://gh" });
    const huge = 123456789012345678901234567890n;
    await handle.db.update(repositoryPools).set({ balance: huge });
    const rows = await handle.db.select().from(repositoryPools);
    expect(rows.every((r) => r.balance === huge)).toBe(true);
    handle.close();
  });
});
