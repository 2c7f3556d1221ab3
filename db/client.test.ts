import { describe, expect, test } from "bun:test";
import { count, eq, sql } from "drizzle-orm";
import { migrateDatabase, openDatabase } from "./client.ts";
import { insertTestRepositories } from "../testing/fixtures.ts";
import { repositories, repositoryPools } from "./schema/index.ts";
import { makeTempDir } from "../testing/context.ts";

const repo = (id: number) => ({
  githubRepoId: id,
  fullName: `o/r${id}`,
  fullNameKey: `o/r${id}`,
  owner: "o",
  name: `r${id}`,
  htmlUrl: `http://gh/o/r${id}`,
});

describe("database", () => {
  test("the embedded file database runs in WAL mode", async () => {
    const dir = await makeTempDir();
    const handle = await openDatabase(`file:${dir}/nested/app.db`, { busyTimeoutMs: 4321 });
    const mode = await handle.client.execute("PRAGMA journal_mode");
    expect(String(mode.rows[0]![0])).toBe("wal");
    handle.close();
  });

  test("writes wait for an open write transaction of the same process without stalling it", async () => {
    // Regression: the driver's own busy wait blocked the event loop, so the
    // transaction holding the lock could not commit and everyone stalled until
    // the busy timeout, then failed with SQLITE_BUSY.
    const dir = await makeTempDir();
    const handle = await openDatabase(`file:${dir}/app.db`, { busyTimeoutMs: 3000 });
    await migrateDatabase(handle);
    const started = performance.now();
    const inTransaction = handle.db.transaction(async (tx) => {
      await tx.insert(repositories).values(repo(1));
      await Bun.sleep(150); // e.g. signing a transaction while the nonce is held
      await tx.insert(repositories).values(repo(2));
    });
    await Bun.sleep(10);
    const others = Array.from({ length: 20 }, (_, i) => handle.db.insert(repositories).values(repo(100 + i)));
    await Promise.all([inTransaction, ...others]);
    const elapsed = performance.now() - started;
    const [{ n }] = (await handle.db.select({ n: count() }).from(repositories)) as [{ n: number }];
    expect(n).toBe(22);
    expect(elapsed).toBeLessThan(2000);
    handle.close();
  });

  test("a writer that waits too long for this process's write lock gives up its place, and the queue goes on", async () => {
    const dir = await makeTempDir();
    const handle = await openDatabase(`file:${dir}/app.db`, { busyTimeoutMs: 100 });
    await migrateDatabase(handle);
    let finish!: () => void;
    const holding = handle.db.transaction(async (tx) => {
      await tx.insert(repositories).values(repo(1));
      await new Promise<void>((resolve) => (finish = resolve));
    });
    await Bun.sleep(5);
    const gaveUp = handle.db.insert(repositories).values(repo(2)).catch((err: unknown) => err);
    await Bun.sleep(30);
    const behind = handle.db.insert(repositories).values(repo(3)); // queued behind the one that will give up
    expect(String(((await gaveUp) as Error).cause)).toContain("database write lock not acquired within 100 ms");
    finish();
    await holding;
    await behind;
    await handle.db.insert(repositories).values(repo(4));
    const ids = (await handle.db.select({ id: repositories.githubRepoId }).from(repositories)).map((r) => r.id).sort();
    expect(ids).toEqual([1, 3, 4]);
    handle.close();
  });

  test("concurrent writes with RETURNING never leave a connection reading an old snapshot", async () => {
    // Regression: a write that failed with SQLITE_BUSY while returning rows left its
    // statement unreset, and that pooled connection kept serving stale reads.
    const dir = await makeTempDir();
    const handle = await openDatabase(`file:${dir}/app.db`, { busyTimeoutMs: 3000 });
    await migrateDatabase(handle);
    await handle.db.insert(repositories).values(repo(1));
    const bump = () =>
      handle.db
        .update(repositories)
        .set({ stars: sql`${repositories.stars} + 1` })
        .where(eq(repositories.githubRepoId, 1))
        .returning({ stars: repositories.stars });
    const holdAndBump = () =>
      handle.db.transaction(async (tx) => {
        await tx.update(repositories).set({ forks: sql`${repositories.forks} + 1` }).where(eq(repositories.githubRepoId, 1));
        await Bun.sleep(2);
      });
    await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 5 === 0 ? holdAndBump() : bump())));
    const reads = await Promise.all(
      Array.from({ length: 60 }, () => handle.db.select({ stars: repositories.stars, forks: repositories.forks }).from(repositories)),
    );
    for (const [row] of reads) expect(row).toEqual({ stars: 120, forks: 30 });
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

  test("inserting test repositories twice does not duplicate anything", async () => {
    const handle = await openDatabase(":memory:");
    await migrateDatabase(handle);
    await insertTestRepositories(handle.db, { githubUrl: "http://gh" });
    const first = await handle.db.select({ n: count() }).from(repositories);
    const firstPools = await handle.db.select({ n: count() }).from(repositoryPools);
    await insertTestRepositories(handle.db, { githubUrl: "http://gh" });
    expect(await handle.db.select({ n: count() }).from(repositories)).toEqual(first);
    expect(await handle.db.select({ n: count() }).from(repositoryPools)).toEqual(firstPools);
    expect(first[0]!.n).toBeGreaterThan(0);
    handle.close();
  });

  test("money columns round-trip bigints beyond 2^53 exactly", async () => {
    const handle = await openDatabase(":memory:");
    await migrateDatabase(handle);
    await insertTestRepositories(handle.db, { githubUrl: "http://gh" });
    const huge = 123456789012345678901234567890n;
    await handle.db.update(repositoryPools).set({ balance: huge });
    const rows = await handle.db.select().from(repositoryPools);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.balance === huge)).toBe(true);
    handle.close();
  });
});
