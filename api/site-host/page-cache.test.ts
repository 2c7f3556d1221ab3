import { describe, expect, test } from "bun:test";
import { PageCache, parseCachePolicy } from "./page-cache.ts";
import type { StaticFile } from "./static-files.ts";

const page = (html: string, policy?: string, status = 200) =>
  new Response(html, { status, headers: { "content-type": "text/html", ...(policy ? { "X-Page-Cache": policy } : {}) } });
const text = (r: StaticFile | Response) => (r instanceof Response ? r.text() : new TextDecoder().decode(r.body));

describe("parseCachePolicy", () => {
  test("reads max-age and tags", () => {
    expect(parseCachePolicy("max-age=120; tags=repositories, repo:5")).toEqual({ maxAge: 120, tags: ["repositories", "repo:5"], anonymousOnly: false });
    expect(parseCachePolicy("max-age=60; tags=contributors; anonymous")).toEqual({ maxAge: 60, tags: ["contributors"], anonymousOnly: true });
    expect(parseCachePolicy("max-age=0")).toBeUndefined();
    expect(parseCachePolicy(null)).toBeUndefined();
  });
});

describe("PageCache", () => {
  test("a second visit is a cache hit; expiry renders again", async () => {
    let now = 1_000;
    const cache = new PageCache(10, () => now);
    let renders = 0;
    const render = async () => page(`v${++renders}`, "max-age=60; tags=repositories");
    expect(await text(await cache.getOrRender("/repos", render))).toBe("v1");
    expect(await text(await cache.getOrRender("/repos", render))).toBe("v1");
    now += 61_000;
    expect(await text(await cache.getOrRender("/repos", render))).toBe("v2");
    expect(renders).toBe(2);
  });

  test("invalidating a tag drops the pages that show that data, and only those", async () => {
    const cache = new PageCache();
    let n = 0;
    await cache.getOrRender("/repos", async () => page(`list${++n}`, "max-age=60; tags=repositories"));
    await cache.getOrRender("/faq-like", async () => page("other", "max-age=60; tags=other"));
    cache.invalidate("repositories");
    expect(cache.get("/repos")).toBeUndefined();
    expect(cache.get("/faq-like")).toBeDefined();
  });

  test("a page cached as the anonymous visitor's is never served to a request with a session", async () => {
    const cache = new PageCache();
    let n = 0;
    // The page as it decides: the anonymous version opts in (anonymous only), a viewer's is not cached.
    const render = (signedIn: boolean) => async () => (signedIn ? page(`viewer${++n}`) : page(`anonymous${++n}`, "max-age=60; tags=contributors; anonymous"));
    expect(await text(await cache.getOrRender("/@carol", render(false)))).toBe("anonymous1");
    expect(cache.get("/@carol")).toBeDefined();
    // A browser revalidates it (a sign-in in between gets the viewer's page); no shared cache keeps it.
    expect(cache.get("/@carol")!.cacheControl).toBe("private, no-cache");
    expect(cache.get("/@carol", true)).toBeUndefined();
    expect(await text(await cache.getOrRender("/@carol", render(true), { signedIn: true }))).toBe("viewer2");
    expect(await text(await cache.getOrRender("/@carol", render(true), { signedIn: true }))).toBe("viewer3");
    expect(await text(await cache.getOrRender("/@carol", render(false)))).toBe("anonymous1");
    // Other pages are shared by everyone as before.
    await cache.getOrRender("/repos", async () => page("list", "max-age=60; tags=repositories"));
    expect(cache.get("/repos", true)).toBeDefined();
    // Who asks is read only for a page cached as the anonymous one's (issue 38: reading every cached page's cookie cost
    // the cached /repos 7-9 % more CPU per request).
    let asked = 0;
    const signedIn = () => (asked++, true);
    expect(cache.get("/repos", signedIn)).toBeDefined();
    expect(asked).toBe(0);
    expect(cache.get("/@carol", signedIn)).toBeUndefined();
    expect(asked).toBe(1);
  });

  test("a request with a session does not wait for an anonymous render in flight of a page cached as anonymous", async () => {
    const cache = new PageCache();
    let release!: () => void;
    const slow = cache.getOrRender("/@dave", async () => {
      await new Promise<void>((r) => (release = r));
      return page("anonymous", "max-age=60; tags=contributors; anonymous");
    });
    const viewer = await cache.getOrRender("/@dave", async () => page("viewer"), { signedIn: true });
    expect(await text(viewer)).toBe("viewer");
    release();
    expect(await text(await slow)).toBe("anonymous");
  });

  test("concurrent misses share one render", async () => {
    const cache = new PageCache();
    let renders = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const render = async () => {
      renders++;
      await gate; // still rendering while the other nine ask
      return page("shared", "max-age=60");
    };
    const asked = Array.from({ length: 10 }, () => cache.getOrRender("/x", render));
    release();
    const results = await Promise.all(asked);
    expect(renders).toBe(1);
    for (const r of results) expect(await text(r)).toBe("shared");
  });

  test("a render that straddles an invalidation is served but not kept", async () => {
    const cache = new PageCache();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const pending = cache.getOrRender("/repos", async () => {
      await gate; // the invalidation comes while this render runs
      return page("stale?", "max-age=60; tags=repositories");
    });
    cache.invalidate("repositories");
    release();
    expect(await text(await pending)).toBe("stale?");
    expect(cache.get("/repos")).toBeUndefined();
  });

  test("pages without the header, and errors, are never cached", async () => {
    const cache = new PageCache();
    const plain = await cache.getOrRender("/profile", async () => page("mine"));
    expect(plain).toBeInstanceOf(Response);
    await cache.getOrRender("/gone", async () => page("nope", "max-age=60", 404));
    expect(cache.size).toBe(0);
  });

  test("stays within its size bound", async () => {
    const cache = new PageCache(3);
    for (let i = 0; i < 5; i++) await cache.getOrRender(`/p${i}`, async () => page(`p${i}`, "max-age=60"));
    expect(cache.size).toBe(3);
    expect(cache.get("/p0")).toBeUndefined();
    expect(cache.get("/p4")).toBeDefined();
  });
});
