import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cacheKey } from "./response-cache.ts";
import { createTestContext, type TestContext } from "../testing/context.ts";

describe("the public response cache key", () => {
  test("is the path and the parameters that matter, in a fixed order", () => {
    expect(cacheKey("http://h:1/api/repositories/public")).toBe("/api/repositories/public");
    expect(cacheKey("http://h:1/api/repositories/public?x=1&y=2")).toBe("/api/repositories/public");
    expect(cacheKey("http://h:1/api/public/github/issues?repo=b&owner=a&cb=9")).toBe("/api/public/github/issues?owner=a&repo=b");
    expect(cacheKey("http://h:1/api/public/github/issues?owner=a&repo=b")).not.toBe(cacheKey("http://h:1/api/public/github/issues?owner=a&repo=c"));
    expect(cacheKey("http://h:1/api/repos/details?owner=a%20b&repo=c")).toBe("/api/repos/details?owner=a+b&repo=c");
    // A parameter that matters on one route does not make a key on another.
    expect(cacheKey("http://h:1/api/repositories/public?owner=x")).toBe("/api/repositories/public");
    expect(cacheKey("http://h:1/api/public/unified-repo/a/b?owner=x&repo=y")).toBe("/api/public/unified-repo/a/b");
  });
});

describe("unknown query parameters on a cached public read", () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext();
  });
  afterAll(() => t.close());

  test("are served from the cache instead of rendering again", async () => {
    const first = await t.app.request("/api/repositories/public");
    expect(first.status).toBe(200);
    const size = t.ctx.responseCache.size;
    for (let i = 0; i < 20; i++) {
      const res = await t.app.request(`/api/repositories/public?cachebuster=${i}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(await (await t.app.request("/api/repositories/public")).json());
    }
    expect(t.ctx.responseCache.size).toBe(size);
  });
});
