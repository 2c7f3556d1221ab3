/**
 * GET /api/repositories/public at scale (issue 30, item 6): the whole list for the spec's clients from the list
 * kept in memory and brought up to date from what changed (also by another process: nothing tells this one), and
 * keyset pages for new clients (?limit=&cursor=), checked against the API document by the test app.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { parseEther } from "viem";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call } from "../../../testing/auth.ts";
import { repositories, repositoryPools } from "../../../db/schema/index.ts";
import { PublicRepositoryListCache } from "./public-list-cache.ts";

let t: TestContext;
const T0 = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  t = await createTestContext();
  await t.ctx.database.db.insert(repositories).values(
    Array.from({ length: 7 }, (_, i) => ({
      githubRepoId: i + 1, fullName: `acme/r${i + 1}`, fullNameKey: `acme/r${i + 1}`, owner: "acme", name: `r${i + 1}`, htmlUrl: "https://github.com/x",
      registeredAt: new Date(T0 + (i % 3) * 1000), updatedAt: new Date(T0), isPrivate: i === 6,
    })),
  );
});
afterAll(() => t.close());

// biome-ignore lint/suspicious/noExplicitAny: read as a client reads JSON
const get = async (path: string): Promise<{ status: number; body: any }> => {
  const res = await call(t, path);
  return { status: res.status, body: await res.json() };
};

describe("the public repository list", () => {
  test("pages by keyset follow the whole list's order exactly; a bad cursor or limit is 400", async () => {
    const whole = (await get("/api/repositories/public")).body.repositories.map((r: { id: number }) => r.id);
    expect(whole).toEqual([6, 3, 5, 2, 4, 1]);
    const paged: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`/api/repositories/public?limit=4${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      paged.push(...page.body.repositories.map((r: { id: number }) => r.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(whole);
    expect((await get("/api/repositories/public?limit=4&cursor=nonsense")).status).toBe(400);
    expect((await get("/api/repositories/public?limit=0")).status).toBe(400);
  });

  test("the kept list follows changes made elsewhere (a pool, a repository going private) without a rebuild", async () => {
    let clock = Date.now();
    const cache = new PublicRepositoryListCache(t.ctx.database.db, () => clock);
    expect((await cache.list()).map((r) => r.id)).toEqual([6, 3, 5, 2, 4, 1]);
    const version = cache.version;
    try {
      await t.ctx.database.db.insert(repositoryPools).values({ githubRepoId: 2, currency: "XDC", balance: parseEther("3"), updatedAt: new Date(clock) });
      await t.ctx.database.db.update(repositories).set({ isPrivate: true, updatedAt: new Date(clock) }).where(eq(repositories.githubRepoId, 5));
      expect((await cache.list()).find((r) => r.id === 2)!.pools.XDC).toBe(0n); // looked less than a second ago
      clock += 1_000;
      const list = await cache.list();
      expect(list.map((r) => r.id)).toEqual([6, 3, 2, 4, 1]);
      expect(list.find((r) => r.id === 2)!.pools.XDC).toBe(parseEther("3"));
      expect(cache.version).toBe(version + 1);
      clock += 1_000;
      await cache.list();
      expect(cache.version).toBe(version + 1); // the same rows seen again change nothing
    } finally {
      // The file's other test reads the list as seeded (tests run in random order).
      await t.ctx.database.db.delete(repositoryPools).where(eq(repositoryPools.githubRepoId, 2));
      await t.ctx.database.db.update(repositories).set({ isPrivate: false, updatedAt: new Date(clock + 1_000) }).where(eq(repositories.githubRepoId, 5));
    }
  });
  test("a repository written with an old updated_at while the list was kept comes in with its first pool change", async () => {
    let clock = Date.now();
    const cache = new PublicRepositoryListCache(t.ctx.database.db, () => clock);
    await cache.list();
    const db = t.ctx.database.db;
    // As the demo seed wrote them before: the row's time is its story's (30 days ago), after the list was built.
    const old = new Date(clock - 30 * 86_400_000);
    await db.insert(repositories).values({
      githubRepoId: 40, fullName: "acme/late", fullNameKey: "acme/late", owner: "acme", name: "late", htmlUrl: "https://github.com/x",
      registeredAt: old, updatedAt: old,
    });
    try {
      await db.insert(repositoryPools).values({ githubRepoId: 40, currency: "XDC", balance: parseEther("5"), updatedAt: new Date(clock) });
      clock += 1_000;
      const late = (await cache.list()).find((r) => r.id === 40);
      expect(late?.pools.XDC).toBe(parseEther("5"));
    } finally {
      await db.delete(repositoryPools).where(eq(repositoryPools.githubRepoId, 40));
      await db.delete(repositories).where(eq(repositories.githubRepoId, 40));
    }
  });
});
