import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { earlyAnswers, cacheKey, publicReadsSource } from "./response-cache.ts";
import { createTestContext, testEnv, type TestContext } from "../../testing/context.ts";
import { createMemoryLogger } from "../logger.ts";
import { PageCache } from "../site-host/page-cache.ts";

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

describe("cached public reads answered before the app", () => {
  const cachedResponse = (body: string) =>
    new Response(body, { headers: { "content-type": "application/json", "X-Page-Cache": "max-age=60; tags=repositories" } });

  test("a fresh entry leaves with the edge's headers and a log line; everything else goes to the app", async () => {
    const env = await testEnv();
    const log = createMemoryLogger();
    const cache = new PageCache();
    const answer = earlyAnswers(env, log, [publicReadsSource(cache)]);
    const url = (path: string) => `http://127.0.0.1:3000${path}`;

    expect(answer(new Request(url("/api/repositories/public")))).toBeUndefined(); // a miss: the app renders it
    await cache.getOrRender("/api/repositories/public", async () => cachedResponse('{"repositories":[]}'));

    const hit = answer(new Request(url("/api/repositories/public?cachebuster=1"), { headers: { "X-Request-Id": "r-1" } }))!;
    expect(hit.status).toBe(200);
    expect(await hit.text()).toBe('{"repositories":[]}');
    expect(hit.headers.get("X-Request-Id")).toBe("r-1");
    expect(hit.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(hit.headers.get("Cache-Control")).toBe("public, max-age=60");
    expect(log.lines.some((l) => l.includes('"path":"/api/repositories/public"') && l.includes('"requestId":"r-1"'))).toBe(true);

    const etag = hit.headers.get("ETag")!;
    expect(answer(new Request(url("/api/repositories/public"), { headers: { "If-None-Match": etag } }))!.status).toBe(304);
    expect(answer(new Request(url("/api/repositories/public"), { method: "POST" }))).toBeUndefined();
    expect(answer(new Request(url("/api/wallet/info")))).toBeUndefined();

    cache.invalidate("repositories"); // the data changed: the app renders again
    expect(answer(new Request(url("/api/repositories/public")))).toBeUndefined();
  });
});
