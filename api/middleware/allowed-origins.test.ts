import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestContext, testEnv, type TestContext } from "../../testing/context.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../testing/auth.ts";
import { ConfigError } from "../env.ts";
import { eq } from "drizzle-orm";
import { wallets } from "../../db/schema/index.ts";
import { earlyAnswers, publicReadsSource } from "./response-cache.ts";
import { createMemoryLogger } from "../logger.ts";
import { PageCache } from "../site-host/page-cache.ts";

/**
 * A client on another origin the deployment lists (ALLOWED_ORIGINS, issue 26):
 * CORS with credentials for exactly that origin, its writes pass the Origin
 * check but still need the anti-forgery token, and the session cookies are
 * SameSite=None; Secure only then. Any other origin is refused as before.
 */
const LISTED = "https://client.example";
const OTHER = "https://evil.example";
let t: TestContext;
let plain: TestContext;
let alice: TestSession;

beforeAll(async () => {
  t = await createTestContext({ env: { ALLOWED_ORIGINS: `${LISTED}, http://localhost:5173` } });
  plain = await createTestContext();
  alice = await signInAs(t, await createTestUser(t, { role: "contributor" }));
});
afterAll(async () => {
  await t?.close();
  await plain?.close();
});

const walletAddress = async (ctx = t, as = alice) =>
  (await ctx.ctx.database.db.select().from(wallets).where(eq(wallets.userId, as.user.id)))[0]!.address;

describe("ALLOWED_ORIGINS", () => {
  test("a write from a listed origin with the token succeeds, with credentialed CORS for that origin", async () => {
    const res = await call(t, "/api/wallet", { as: alice, origin: LISTED, body: { address: await walletAddress() } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true });
    expect(res.headers.get("access-control-allow-origin")).toBe(LISTED);
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(res.headers.get("vary")).toContain("Origin");
  });

  test("from a listed origin without the token, or with a forged one: 403", async () => {
    for (const csrf of [false, "forged-token"] as const) {
      const res = await call(t, "/api/wallet", { as: alice, origin: LISTED, csrf, body: { address: await walletAddress() } });
      expect(res.status).toBe(403);
    }
  });

  test("from an unlisted origin: 403 with the token, and no CORS header", async () => {
    const res = await call(t, "/api/wallet", { as: alice, origin: OTHER, body: { address: await walletAddress() } });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    // Without the list, the listed origin of another deployment is just another origin.
    const bob = await signInAs(plain, await createTestUser(plain, { role: "contributor" }));
    expect((await call(plain, "/api/wallet", { as: bob, origin: LISTED, body: { address: await walletAddress(plain, bob) } })).status).toBe(403);
  });

  test("never Access-Control-Allow-Origin: * on a personal route, from any origin", async () => {
    for (const origin of [LISTED, OTHER]) {
      for (const path of ["/api/auth/user", "/api/wallet/info", `/api/wallet/usdc-balance/${alice.user.id}`, "/api/user/role"]) {
        const res = await t.app.request(path, { headers: { Origin: origin, Cookie: alice.cookie } });
        const allow = res.headers.get("access-control-allow-origin");
        expect({ origin, path, allow }).toEqual({ origin, path, allow: origin === LISTED ? LISTED : null });
      }
    }
  });

  test("public reads: the listed origin gets itself with credentials (its requests carry cookies), others still *", async () => {
    for (let i = 0; i < 2; i++) {
      // twice: the second answer may come from the response cache
      const listed = await t.app.request("/api/repositories/public", { headers: { Origin: LISTED } });
      expect(listed.headers.get("access-control-allow-origin")).toBe(LISTED);
      expect(listed.headers.get("access-control-allow-credentials")).toBe("true");
      const other = await t.app.request("/api/repositories/public", { headers: { Origin: OTHER } });
      expect(other.headers.get("access-control-allow-origin")).toBe("*");
      expect(other.headers.get("access-control-allow-credentials")).toBeNull();
    }
  });

  test("a cached public read answered before the app: the listed origin gets itself with credentials", async () => {
    const cache = new PageCache();
    const answer = earlyAnswers(t.env, createMemoryLogger(), [publicReadsSource(cache)]);
    await cache.getOrRender("/api/repositories/public", async () =>
      new Response('{"repositories":[]}', { headers: { "content-type": "application/json", "X-Page-Cache": "max-age=60; tags=repositories" } }),
    );
    const hit = (origin: string) => answer(new Request("http://127.0.0.1:3000/api/repositories/public", { headers: { Origin: origin } }))!;
    expect(hit(LISTED).headers.get("access-control-allow-origin")).toBe(LISTED);
    expect(hit(LISTED).headers.get("access-control-allow-credentials")).toBe("true");
    expect(hit(OTHER).headers.get("access-control-allow-origin")).toBe("*");
  });

  test("the preflight of a listed origin's write allows the token header; an unlisted origin's preflight gets nothing", async () => {
    const ask = (origin: string) =>
      t.app.request("/api/blockchain/allocate-bounty/1/1", {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-csrf-token" },
      });
    const listed = await ask(LISTED);
    expect(listed.status).toBe(204);
    expect(listed.headers.get("access-control-allow-origin")).toBe(LISTED);
    expect(listed.headers.get("access-control-allow-credentials")).toBe("true");
    expect(listed.headers.get("access-control-allow-headers")).toContain("X-CSRF-Token");
    expect(listed.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect((await ask(OTHER)).headers.get("access-control-allow-origin")).toBeNull();
  });

  test("cookies: SameSite=None; Secure when an origin is listed, Lax otherwise", async () => {
    const listed = (await t.app.request("/api/auth/csrf-token")).headers.get("set-cookie") ?? "";
    expect(listed).toContain("SameSite=None");
    expect(listed).toContain("Secure");
    const same = (await plain.app.request("/api/auth/csrf-token")).headers.get("set-cookie") ?? "";
    expect(same).toContain("SameSite=Lax");
    expect(same).not.toContain("Secure");
  });

  test("the configuration refuses a wildcard or a URL with a path, and is empty by default", async () => {
    expect((await testEnv()).ALLOWED_ORIGINS).toEqual([]);
    expect((await testEnv({ ALLOWED_ORIGINS: "https://a.example,http://localhost:5173/" })).ALLOWED_ORIGINS).toEqual(["https://a.example", "http://localhost:5173"]);
    for (const bad of ["*", "https://a.example/app", "null", "ftp://a.example"]) {
      await expect(testEnv({ ALLOWED_ORIGINS: bad })).rejects.toBeInstanceOf(ConfigError);
    }
  });
});
