import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { securityCases } from "../../../testing/security.ts";
import { sessions } from "../../../db/schema/index.ts";
import { issueVscodeToken } from "../../services/auth/vscode.ts";

let t: TestContext;
let owner: TestSession;
let stranger: TestSession;

beforeAll(async () => (t = await createTestContext()));
afterAll(() => t.close());
beforeEach(async () => {
  owner = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
  stranger = await signInAs(t, await createTestUser(t, { role: "contributor" }));
});

describe("GET /api/auth/user", () => {
  test("returns the spec's user object for a session, with the wallet in xdc form", async () => {
    const res = await call(t, "/api/auth/user", { as: owner });
    expect(res.headers.get("cache-control")).toBe("no-store");
    const user = await res.json();
    expect(Object.keys(user).sort()).toEqual(
      ["id", "username", "name", "githubUsername", "email", "avatarUrl", "bio", "location", "website", "role", "isProfileComplete", "xdcWalletAddress"].sort(),
    );
    expect(user).toMatchObject({ id: owner.user.id, role: "poolmanager", isProfileComplete: true });
    expect(user.xdcWalletAddress).toMatch(/^xdc[0-9a-fA-F]{40}$/);
  });

  test("returns null when signed out, and clears a stale signed-in hint", async () => {
    const res = await t.app.request("/api/auth/user", { headers: { Cookie: "ip_signed_in=poolmanager" } });
    expect(await res.json()).toBeNull();
    expect(res.headers.get("set-cookie")).toContain("ip_signed_in=;");
  });

  test("an unknown or expired session cookie is cleared", async () => {
    const res = await t.app.request("/api/auth/user", { headers: { Cookie: "ip_session=abcdefghijklmnopqrstuvwxyz234567" } });
    expect(await res.json()).toBeNull();
    expect(res.headers.get("set-cookie")).toContain("ip_session=;");
  });
});

describe("GET /api/auth/session and /api/user/role", () => {
  test("probe a session", async () => {
    const signedIn = await (await call(t, "/api/auth/session", { as: owner })).json();
    expect(signedIn).toMatchObject({ authenticated: true, user: { id: owner.user.id, role: "poolmanager", isProfileComplete: true } });
    const anonymous = await (await call(t, "/api/auth/session")).json();
    expect(anonymous).toEqual({ authenticated: false, user: null, expiresAt: null });
  });

  test("role of the signed-in user; 401 when signed out", async () => {
    expect(await (await call(t, "/api/user/role", { as: stranger })).json()).toEqual({ role: "contributor" });
    const res = await call(t, "/api/user/role");
    expect(res.status).toBe(401);
  });
});

describe("GET /api/auth/csrf-token", () => {
  test("returns the session's token; without a session, one bound to a pre-session cookie (spec section 7)", async () => {
    const res = await call(t, "/api/auth/csrf-token", { as: owner });
    expect(await res.json()).toEqual({ csrfToken: owner.csrfToken });
    const anonymous = await call(t, "/api/auth/csrf-token");
    expect(anonymous.status).toBe(200);
    const { csrfToken } = (await anonymous.json()) as { csrfToken: string };
    expect(csrfToken).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(csrfToken).not.toBe(owner.csrfToken);
    const cookie = anonymous.headers.get("set-cookie")!;
    expect(cookie).toMatch(/ip_presession=[A-Za-z0-9_-]+;.*HttpOnly/i);
    // The same browser gets the same token; another browser another one.
    const again = await call(t, "/api/auth/csrf-token", { headers: { Cookie: cookie.split(";")[0]! } });
    expect(((await again.json()) as { csrfToken: string }).csrfToken).toBe(csrfToken);
    expect(((await (await call(t, "/api/auth/csrf-token")).json()) as { csrfToken: string }).csrfToken).not.toBe(csrfToken);
    // An anonymous POST with it works (signing out when signed out).
    const logout = await call(t, "/api/auth/logout", { body: {}, headers: { Cookie: cookie.split(";")[0]!, "X-CSRF-Token": csrfToken } });
    expect(logout.status).toBe(200);
  });

  test("the token also works as _csrf in the JSON body", async () => {
    const res = await call(t, "/api/auth/logout", { as: owner, csrf: false, body: { _csrf: owner.csrfToken } });
    expect(res.status).toBe(200);
  });
});

describe("POST /api/auth/logout", () => {
  test("deletes the session; the old cookie is refused afterwards", async () => {
    const res = await call(t, "/api/auth/logout", { as: owner, body: {} });
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toContain("ip_session=;");
    expect(await t.ctx.database.db.select().from(sessions).where(eq(sessions.id, owner.sessionId))).toHaveLength(0);
    expect(await (await call(t, "/api/auth/user", { as: owner })).json()).toBeNull();
    expect((await call(t, "/api/user/role", { as: owner })).status).toBe(401);
  });

  test("signed out already: succeeds and clears cookies", async () => {
    const res = await call(t, "/api/auth/logout", { body: {} });
    expect(res.status).toBe(200);
  });

  securityCases({ method: "POST", path: "/api/auth/logout", body: {} }, {
    t: () => t,
    owner: () => owner,
    stranger: () => stranger,
    allowsAnonymous: true,
  });
});

describe("editor tokens on the session routes", () => {
  test("an editor token reads the user but cannot ask for an anti-forgery token (the editor sign-in itself: vscode.test.ts)", async () => {
    const { token } = await issueVscodeToken(t.ctx.database.db, owner.user.id);
    const read = await t.app.request("/api/auth/user", { headers: { Authorization: `Bearer ${token}` } });
    expect((await read.json()).id).toBe(owner.user.id);
    expect((await t.app.request("/api/auth/csrf-token", { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    const probe = await (await t.app.request("/api/auth/session", { headers: { Authorization: `Bearer ${token}` } })).json();
    expect(probe).toMatchObject({ authenticated: true, expiresAt: null });
  });
});
