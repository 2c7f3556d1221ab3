import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, signInAs } from "../../../testing/auth.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe("POST /api/repositories/register", () => {
  test("anonymous: 401 whatever the body, before validation and rate limiting", async () => {
    for (const body of [{}, { githubRepoId: "x" }, { githubRepoId: 1, githubRepoFullName: "a/b" }]) {
      const res = await call(t, "/api/repositories/register", { body, ip: "192.0.2.55" });
      expect(res.status).toBe(401);
    }
  });

  test("signed in with a bad body: 400 with a clear message", async () => {
    const session = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
    const res = await call(t, "/api/repositories/register", { as: session, body: { githubRepoId: -1 } });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBeString();
  });
});

describe("GET /api/repositories/registered", () => {
  test("varies with the cookie: public for visitors, private for a signed-in user", async () => {
    const anonymous = await call(t, "/api/repositories/registered");
    expect(anonymous.headers.get("Cache-Control")).toBe("public, max-age=60");
    expect(anonymous.headers.get("Vary")).toContain("Cookie");
    const session = await signInAs(t, await createTestUser(t));
    const signedIn = await call(t, "/api/repositories/registered", { as: session });
    expect(signedIn.headers.get("Cache-Control")).toBe("private, max-age=60");
    expect(signedIn.headers.get("Vary")).toContain("Cookie");
  });
});
