import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestContext, testEnv, type TestContext } from "../../testing/context.ts";
import { createTestUser, signInAs, type TestSession } from "../../testing/auth.ts";
import { earlyAnswers, PUBLIC_CACHED_PATHS, publicReadsSource } from "./response-cache.ts";
import { createMemoryLogger } from "../logger.ts";
import { PageCache } from "../site-host/page-cache.ts";
import { isPublicReadPath, PUBLIC_READ_PATHS } from "./cors.ts";

/**
 * The public reads answer any origin, read-only and without credentials
 * (docs/api.md, "Public reads and CORS"); everything else stays same-origin.
 */
let t: TestContext;
let owner: TestSession;
beforeAll(async () => {
  t = await createTestContext();
  owner = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
});
afterAll(() => t.close());

const fromElsewhere = { Origin: "https://dashboard.example" };

describe("cross-origin reads", () => {
  test("public reads allow any origin, never with credentials; cached answers and errors too", async () => {
    for (const path of ["/api/repositories/public", "/api/repositories/public", "/api/public/unified-repo/nobody/nothing", "/api/openapi.json", "/api/repos/details?owner=a&repo=b"]) {
      const res = await t.app.request(path, { headers: fromElsewhere });
      expect({ path, allow: res.headers.get("access-control-allow-origin") }).toEqual({ path, allow: "*" });
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
      expect(res.headers.get("access-control-expose-headers")).toContain("ETag");
    }
    // An error of a public read (unknown repository) is readable too.
    const missing = await t.app.request("/api/repos/details?owner=nobody&repo=nothing", { headers: fromElsewhere });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("the preflight of a conditional read allows GET and HEAD only, and no credentials", async () => {
    const res = await t.app.request("/api/public/github/issues?owner=a&repo=b", {
      method: "OPTIONS",
      headers: { ...fromElsewhere, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "if-none-match" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, HEAD");
    expect(res.headers.get("access-control-allow-headers")).toContain("If-None-Match");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  test("personal and writing routes send no CORS header at all", async () => {
    for (const path of ["/api/wallet/info", "/api/auth/user", "/api/user/role", "/api/github/user/repos", "/api/node/nodes"]) {
      const res = await t.app.request(path, { headers: { ...fromElsewhere, Cookie: owner.cookie } });
      expect({ path, allow: res.headers.get("access-control-allow-origin") }).toEqual({ path, allow: null });
    }
    const preflight = await t.app.request("/api/wallet/send", { method: "OPTIONS", headers: { ...fromElsewhere, "Access-Control-Request-Method": "POST" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    // A write to a public path is not opened up either.
    const write = await t.app.request("/api/repositories/public", { method: "POST", headers: fromElsewhere });
    expect(write.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("a cached public read answered before the app carries the same headers", async () => {
    const cache = new PageCache();
    const answer = earlyAnswers(await testEnv(), createMemoryLogger(), [publicReadsSource(cache)]);
    await cache.getOrRender("/api/repositories/public", async () =>
      new Response('{"repositories":[]}', { headers: { "content-type": "application/json", "X-Page-Cache": "max-age=60; tags=repositories" } }),
    );
    const hit = answer(new Request("http://127.0.0.1:3000/api/repositories/public", { headers: fromElsewhere }))!;
    expect(hit.status).toBe(200);
    expect(hit.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("the list of public read paths", () => {
    expect(isPublicReadPath("/api/public/unified-repo/a/b")).toBe(true);
    expect(isPublicReadPath("/api/blockchain/pool-info/1")).toBe(true);
    expect(isPublicReadPath("/api/blockchain/issue-bounty/1/2")).toBe(true);
    expect(isPublicReadPath("/api/repositories/public")).toBe(true);
    expect(isPublicReadPath("/api/repositories/registered")).toBe(false);
    expect(isPublicReadPath("/api/blockchain/roxn-allowance")).toBe(false);
    expect(isPublicReadPath("/api/wallet/info")).toBe(false);
  });

  test("every cached public read is a public read (its early answer gets the CORS headers without a path check)", () => {
    for (const path of PUBLIC_CACHED_PATHS) expect(PUBLIC_READ_PATHS as readonly string[]).toContain(path);
  });
});
