import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, databaseDigest, signInAs, type TestSession } from "../../../testing/auth.ts";
import { authorizePath, editorSignInRequest, handoffOf, setCookieValue, type EditorSignInRequest } from "../../../testing/editor.ts";
import { vscodeCodes, vscodeTokens } from "../../../db/schema/index.ts";
import { hashToken } from "../../crypto/tokens.ts";
import { issueVscodeToken } from "../../services/auth/vscode.ts";
import { securityCases } from "../../../testing/security.ts";

let t: TestContext;
let owner: TestSession;
let stranger: TestSession;

beforeAll(async () => (t = await createTestContext()));
afterAll(() => t.close());
beforeEach(async () => {
  owner = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  stranger = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
});

/** The browser opened by the editor (Sec-Fetch-Site none), signed in as `as`. */
const openAuthorize = (request: EditorSignInRequest, as?: TestSession, site = "none") =>
  call(t, authorizePath(request), { as, headers: { "Sec-Fetch-Site": site } });

/** The whole browser side for a signed-in user: the code the editor receives. */
async function codeFor(as: TestSession, request = editorSignInRequest()) {
  const res = await openAuthorize(request, as);
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/vscode/signed-in");
  const handoff = handoffOf(res)!;
  expect(handoff.state).toBe(request.state);
  return { request, code: handoff.code, handoff };
}

const exchange = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.app.request("/api/auth/vscode/token", { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });

const exchangeBody = (request: EditorSignInRequest, code: string) => ({
  grant_type: "authorization_code",
  code,
  code_verifier: request.verifier,
  state: request.state,
  redirect_uri: request.redirectUri,
});

const tokensOf = (userId: number) => t.ctx.database.db.select().from(vscodeTokens).where(eq(vscodeTokens.userId, userId));
const codesOf = (userId: number) => t.ctx.database.db.select().from(vscodeCodes).where(eq(vscodeCodes.userId, userId));
const asEditor = (token: string, path = "/api/auth/user", init: RequestInit = {}) =>
  t.app.request(path, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });

/** A refused exchange: 400 invalid_grant, and no token for anyone. */
async function expectRefused(res: Response, userId: number, tokensBefore: number) {
  expect(res.status).toBe(400);
  const body = await res.json();
  expect(body).toMatchObject({ error: "invalid_grant", code: "invalid_grant" });
  expect(JSON.stringify(body)).not.toContain("ipv_");
  expect(await tokensOf(userId)).toHaveLength(tokensBefore);
}

describe("editor sign-in: code + PKCE", () => {
  test("signed in: the browser gets a one-time code for the editor on our page, the editor trades it with its verifier for a token", async () => {
    t.log.lines.length = 0;
    const { request, code, handoff } = await codeFor(owner);
    expect(handoff.uri.protocol).toBe("vscode:");
    expect(`${handoff.uri.protocol}//${handoff.uri.host}${handoff.uri.pathname}`).toBe("vscode://issuepool.issuepool/auth");
    const [row] = await codesOf(owner.user.id);
    expect(row).toMatchObject({ codeHash: hashToken(code), stateHash: hashToken(request.state), codeChallenge: request.challenge, consumedAt: null });
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(2 * 60 * 1000);

    const res = await exchange(exchangeBody(request, code));
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body).toMatchObject({ token_type: "Bearer" });
    const token = body.access_token as string;
    expect(token).toStartWith("ipv_");
    const [stored] = await tokensOf(owner.user.id);
    expect(stored!.tokenHash).toBe(hashToken(token));
    expect(JSON.stringify(stored)).not.toContain(token);
    // The token reads as the user.
    expect((await (await asEditor(token)).json()).id).toBe(owner.user.id);
    // Nowhere in a URL, a header or a log line; the code is used up.
    expect(handoff.uri.toString()).not.toContain(token);
    expect(t.log.lines.join("\n")).not.toContain(token);
    expect(t.log.lines.join("\n")).not.toContain(code);
    const [used] = await codesOf(owner.user.id);
    expect(used!.consumedAt).not.toBeNull();
  });

  test("signed out: the browser keeps the request while the person signs in, and the hand-over follows on finalize-onboarding", async () => {
    const request = editorSignInRequest();
    const start = await openAuthorize(request);
    expect(start.status).toBe(302);
    expect(start.headers.get("location")).toBe("/auth?source=vscode");
    const kept = setCookieValue(start, "ip_vscode_request")!;
    expect(start.headers.getSetCookie().find((h) => h.startsWith("ip_vscode_request="))).toMatch(/HttpOnly.*|Path=\/api\/auth/);
    expect(await codesOf(owner.user.id)).toHaveLength(0);
    // Back from GitHub, signed in (the callback hands over itself: github.test.ts); here, after registration.
    const done = await call(t, "/api/auth/vscode/finalize-onboarding", {
      headers: { Cookie: `${owner.cookie}; ip_vscode_request=${kept}`, "Sec-Fetch-Site": "same-origin" },
    });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/vscode/signed-in");
    const handoff = handoffOf(done)!;
    expect(handoff.state).toBe(request.state);
    expect(done.headers.getSetCookie().some((h) => h.startsWith("ip_vscode_request=;"))).toBe(true);
    expect((await exchange(exchangeBody(request, handoff.code))).status).toBe(200);
  });

  test("an unregistered user registers first, with the request kept", async () => {
    const fresh = await signInAs(t, await createTestUser(t));
    const res = await openAuthorize(editorSignInRequest(), fresh);
    expect(res.headers.get("location")).toBe("/auth?registration=true&source=vscode");
    expect(setCookieValue(res, "ip_vscode_request")).toBeTruthy();
    expect(await codesOf(fresh.user.id)).toHaveLength(0);
  });

  test("unknown state: an exchange under another state is refused, gets no token, and the code is dead after it", async () => {
    const { request, code } = await codeFor(owner);
    await expectRefused(await exchange({ ...exchangeBody(request, code), state: editorSignInRequest().state }), owner.user.id, 0);
    await expectRefused(await exchange(exchangeBody(request, code)), owner.user.id, 0);
  });

  test("unknown state: a request cookie we did not sign issues no code; finalize-onboarding without one hands over nothing", async () => {
    const before = await databaseDigest(t);
    const forged = `${Buffer.from(JSON.stringify({ s: editorSignInRequest().state, c: editorSignInRequest().challenge, r: "vscode://issuepool.issuepool/auth", e: Date.now() + 60_000 })).toString("base64url")}.forged`;
    for (const cookie of [`${owner.cookie}; ip_vscode_request=${forged}`, owner.cookie]) {
      const res = await call(t, "/api/auth/vscode/finalize-onboarding", { headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" } });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/vscode/wallet");
      expect(handoffOf(res)).toBeUndefined();
    }
    expect(await databaseDigest(t)).toBe(before);
  });

  test("a replayed code is refused: one token only", async () => {
    const { request, code } = await codeFor(owner);
    expect((await exchange(exchangeBody(request, code))).status).toBe(200);
    await expectRefused(await exchange(exchangeBody(request, code)), owner.user.id, 1);
  });

  test("two exchanges racing for one code: exactly one token", async () => {
    const { request, code } = await codeFor(owner);
    const results = await Promise.all([exchange(exchangeBody(request, code)), exchange(exchangeBody(request, code))]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(await tokensOf(owner.user.id)).toHaveLength(1);
  });

  test("an expired code is refused", async () => {
    const { request, code } = await codeFor(owner);
    await t.ctx.database.db.update(vscodeCodes).set({ expiresAt: new Date(Date.now() - 1) }).where(eq(vscodeCodes.codeHash, hashToken(code)));
    await expectRefused(await exchange(exchangeBody(request, code)), owner.user.id, 0);
  });

  test("a wrong verifier is refused, and the code cannot be tried again with the right one", async () => {
    const { request, code } = await codeFor(owner);
    await expectRefused(await exchange({ ...exchangeBody(request, code), code_verifier: editorSignInRequest().verifier }), owner.user.id, 0);
    await expectRefused(await exchange(exchangeBody(request, code)), owner.user.id, 0);
  });

  test("a code is traded only for the redirect URI it was issued for", async () => {
    const { request, code } = await codeFor(owner);
    await expectRefused(await exchange({ ...exchangeBody(request, code), redirect_uri: "vscode-insiders://issuepool.issuepool/auth" }), owner.user.id, 0);
  });

  test("malformed exchanges are 400 and issue nothing", async () => {
    const before = await databaseDigest(t);
    for (const body of [{}, { code: "x" }, { ...exchangeBody(editorSignInRequest(), "nope"), code_verifier: "short" }, { ...exchangeBody(editorSignInRequest(), "nope"), grant_type: "password" }]) {
      expect((await exchange(body)).status).toBe(400);
    }
    await expectRefused(await exchange(exchangeBody(editorSignInRequest(), "no-such-code")), owner.user.id, 0);
    expect(await databaseDigest(t)).toBe(before);
  });

  test("a redirect URI not on the list of editor schemes, or not the extension's, is refused; nothing is stored, no cookie set", async () => {
    const refused = [
      "https://evil.example/auth",
      "http://127.0.0.1:9/auth",
      "javascript:alert(1)",
      "vscode://evil.extension/auth",
      "vscode://issuepool.issuepool/other",
      "vscode://issuepool.issuepool/auth?code=planted",
      "vscode://issuepool.issuepool/auth?state=planted",
      "vscode://issuepool.issuepool/auth#x",
      "vscode://user@issuepool.issuepool/auth",
      "vscode-remote://issuepool.issuepool/auth",
      "",
    ];
    const before = await databaseDigest(t);
    for (const redirectUri of refused) {
      const res = await openAuthorize(editorSignInRequest(redirectUri), owner);
      expect({ redirectUri, status: res.status }).toEqual({ redirectUri, status: 400 });
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    expect(await databaseDigest(t)).toBe(before);
    for (const redirectUri of ["vscode-insiders://issuepool.issuepool/auth", "vscodium://issuepool.issuepool/auth", "cursor://issuepool.issuepool/auth", "VSCODE://Issuepool.Issuepool/auth"]) {
      const res = await openAuthorize(editorSignInRequest(redirectUri), owner);
      expect({ redirectUri, status: res.status }).toEqual({ redirectUri, status: 303 });
      expect(handoffOf(res)!.uri.protocol).toBe(`${redirectUri.split(":")[0]!.toLowerCase()}:`);
    }
    // The editor may add a query of its own (asExternalUri: a window id); it is kept, and the code and state join it.
    const withWindow = editorSignInRequest("vscode://issuepool.issuepool/auth?windowId=3");
    const res = await openAuthorize(withWindow, owner);
    const handoff = handoffOf(res)!;
    expect(handoff.uri.searchParams.get("windowId")).toBe("3");
    expect((await exchange(exchangeBody(withWindow, handoff.code))).status).toBe(200);
  });

  test("only S256 challenges and sane states are taken", async () => {
    const before = await databaseDigest(t);
    const request = editorSignInRequest();
    for (const path of [
      authorizePath(request, "plain"),
      authorizePath({ ...request, challenge: "too-short" }),
      authorizePath({ ...request, state: "short" }),
      authorizePath({ ...request, state: "x".repeat(129) }),
    ]) {
      const res = await call(t, path, { as: owner, headers: { "Sec-Fetch-Site": "none" } });
      expect(res.status).toBe(400);
    }
    expect(await databaseDigest(t)).toBe(before);
  });

  test("a link from another site does not hand over at once: the person continues from the VS Code card", async () => {
    const res = await openAuthorize(editorSignInRequest(), owner, "cross-site");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/auth?source=vscode");
    expect(handoffOf(res)).toBeUndefined();
    expect(await codesOf(owner.user.id)).toHaveLength(0);
    for (const site of ["cross-site", "same-site"]) {
      const finalize = await call(t, "/api/auth/vscode/finalize-onboarding", {
        headers: { Cookie: `${owner.cookie}; ip_vscode_request=${setCookieValue(res, "ip_vscode_request")}`, "Sec-Fetch-Site": site },
      });
      expect(finalize.status).toBe(303);
      expect(finalize.headers.get("location")).toBe("/vscode/wallet");
    }
    expect(await codesOf(owner.user.id)).toHaveLength(0);
  });

  test("the spec's finalize-onboarding redirects stay: signed out, and not yet registered", async () => {
    const anonymous = await call(t, "/api/auth/vscode/finalize-onboarding");
    expect(anonymous.headers.get("location")).toBe("/auth?source=vscode&from_vscode=true");
    const fresh = await signInAs(t, await createTestUser(t));
    const unregistered = await call(t, "/api/auth/vscode/finalize-onboarding", { as: fresh });
    expect(unregistered.headers.get("location")).toBe("/auth?registration=true&source=vscode");
  });
});

describe("editor tokens: read only, and the editor signs itself out", () => {
  test("logout from the editor revokes its token: the next call is 401 and the editor must sign in again", async () => {
    const { token } = await issueVscodeToken(t.ctx.database.db, owner.user.id);
    const other = await issueVscodeToken(t.ctx.database.db, owner.user.id);
    const res = await asEditor(token, "/api/auth/vscode/logout", { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    const [row] = await t.ctx.database.db.select().from(vscodeTokens).where(eq(vscodeTokens.tokenHash, hashToken(token)));
    expect(row!.revokedAt).not.toBeNull();
    const after = await asEditor(token, "/api/wallet/info");
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain("invalid_token");
    expect((await asEditor(token, "/api/auth/vscode/logout", { method: "POST" })).status).toBe(401);
    // Only that editor: another token of the same user still reads.
    expect((await asEditor(other.token)).status).toBe(200);
  });

  test("logout is bearer only: a browser session or nothing at all is 401 and revokes nothing", async () => {
    await issueVscodeToken(t.ctx.database.db, owner.user.id);
    const before = await databaseDigest(t);
    expect((await call(t, "/api/auth/vscode/logout", { body: {} })).status).toBe(401);
    expect((await call(t, "/api/auth/vscode/logout", { as: owner, body: {} })).status).toBe(401);
    expect(await databaseDigest(t)).toBe(before);
  });

  test("a bearer token on any other POST (or PUT, PATCH, DELETE) of the API is 401 and changes nothing", async () => {
    const { token } = await issueVscodeToken(t.ctx.database.db, owner.user.id);
    // Node agents' routes take node tokens, never user credentials (api/routes/node-agent/index.test.ts).
    const writes = t.app.routes.filter((r) => ["POST", "PUT", "PATCH", "DELETE"].includes(r.method) && r.path !== "/api/auth/vscode/logout" && !r.path.startsWith("/api/node-agent/"));
    const paths = [...new Set(writes.map((r) => `${r.method} ${r.path.replace(/:(\w+)\{[^}]*\}|:(\w+)/g, "1")}`))];
    expect(paths).toContain("POST /api/auth/logout");
    expect(paths).toContain("POST /api/auth/vscode/token");
    expect(paths.length).toBeGreaterThan(20);
    const before = await databaseDigest(t);
    for (const route of paths) {
      const [method, path] = route.split(" ") as [string, string];
      for (const bearer of [token, "ipv_not-a-real-token", "something-else"]) {
        const res = await t.app.request(path, {
          method,
          headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" },
          body: JSON.stringify({ role: "contributor", email: "x@example.org" }),
        });
        expect({ route, status: res.status }).toEqual({ route, status: 401 });
      }
    }
    expect(await databaseDigest(t)).toBe(before);
  });

  test("an unknown, revoked or expired bearer token is 401 on reads too (the editor drops its session)", async () => {
    const expired = await issueVscodeToken(t.ctx.database.db, owner.user.id, Date.now() - 25 * 3600 * 1000);
    for (const token of ["ipv_unknown", expired.token, "not-ours"]) {
      const res = await asEditor(token, "/api/wallet/info");
      expect(res.status).toBe(401);
      expect((await res.json()).code).toBe("unauthorized");
    }
  });

  test("the browser can end every editor token of the user", async () => {
    const { token } = await issueVscodeToken(t.ctx.database.db, owner.user.id);
    const res = await call(t, "/api/auth/vscode/revoke", { as: owner, body: {} });
    expect(await res.json()).toEqual({ success: true, revoked: 1 });
    expect((await asEditor(token)).status).toBe(401);
  });

  securityCases({ method: "POST", path: "/api/auth/vscode/revoke", body: {} }, { t: () => t, owner: () => owner, stranger: () => stranger });
});
