import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startTestStack, type TestStack } from "../../../testing/stack.ts";
import { authAttempts, sessions, users } from "../../../db/schema/index.ts";
import { unsealText, sealText } from "../../crypto/envelope.ts";
import { githubTokenContext } from "../../services/auth/github-sign-in.ts";
import { hashToken } from "../../crypto/tokens.ts";
import { authorizePath, editorSignInRequest, handoffOf, setCookieValue } from "../../../testing/editor.ts";

let stack: TestStack;
beforeAll(async () => (stack = await startTestStack()), 60_000);
afterAll(() => stack?.stop());

const setCookie = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .map((h) => new RegExp(`^${name}=([^;]*)`).exec(h)?.[1])
    .find((v) => v !== undefined);

/** Starts a sign-in and has the emulator authorize `login`; returns what the browser holds. */
async function authorize(login: string, query = "returnTo=/repos", clientAddress?: string) {
  const start = await stack.t.app.request(`/api/auth/github?${query}`, clientAddress ? { headers: { "X-Forwarded-For": clientAddress } } : {});
  expect(start.status).toBe(302);
  const state = setCookie(start, "ip_oauth_state")!;
  const authorizeUrl = new URL(start.headers.get("location")!);
  const form = new URLSearchParams(authorizeUrl.searchParams);
  form.set("login", login);
  const granted = await fetch(`${authorizeUrl.origin}${authorizeUrl.pathname}`, { method: "POST", body: form, redirect: "manual" });
  return { state, authorizeUrl, callback: new URL(granted.headers.get("location")!) };
}

/** `login` has completed registration (now, or an earlier test did it). */
async function ensureRegistered(login: string, role: "poolmanager" | "contributor"): Promise<void> {
  const session = await stack.signIn(login);
  const register = await stack.t.app.request("/api/auth/register", {
    method: "POST",
    headers: { Cookie: session.cookie, Origin: stack.url, "X-CSRF-Token": session.csrfToken, "Content-Type": "application/json" },
    body: JSON.stringify({ role, email: `${login}@example.com` }),
  });
  expect([200, 409]).toContain(register.status);
}

const back = (callback: URL, cookie: string, clientAddress?: string) =>
  stack.t.app.request(callback.pathname + callback.search, { headers: { Cookie: cookie, ...(clientAddress ? { "X-Forwarded-For": clientAddress } : {}) } });

describe("GitHub sign-in", () => {
  test("the authorization request carries state and a PKCE S256 challenge", async () => {
    const { authorizeUrl, state } = await authorize("bob");
    expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${stack.github.webUrl}/login/oauth/authorize`);
    expect(authorizeUrl.searchParams.get("state")).toBe(state);
    expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizeUrl.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorizeUrl.searchParams.get("redirect_uri")).toBe(`${stack.url}/api/auth/github/callback`);
  });

  test("a new user is created from GitHub, signed in, and sent to complete registration", async () => {
    const { state, callback } = await authorize("dave");
    expect(callback.searchParams.get("state")).toBe(state);
    const res = await back(callback, `ip_oauth_state=${state}`);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/auth?registration=true&returnTo=%2Frepos");
    const token = setCookie(res, "ip_session")!;
    expect(token).toMatch(/^[a-z2-7]{40,}$/);
    expect(setCookie(res, "ip_signed_in")).toBe("user");
    expect(res.headers.getSetCookie().find((h) => h.startsWith("ip_session="))).toContain("HttpOnly");
    const [user] = await stack.t.ctx.database.db.select().from(users).where(eq(users.githubId, 1004));
    expect(user).toMatchObject({ username: "dave", name: "Dave Newcomer", email: "dave@example.com", isProfileComplete: false });
    const [session] = await stack.t.ctx.database.db.select().from(sessions).where(eq(sessions.id, hashToken(token)));
    expect(session!.userId).toBe(user!.id);
  });

  test("the GitHub token is stored sealed: never in plaintext in a column, a response or a log line", async () => {
    stack.t.log.lines.length = 0;
    const { state, callback } = await authorize("erin");
    const res = await back(callback, `ip_oauth_state=${state}`);
    const responseText = JSON.stringify([...res.headers.entries()]) + (await res.text());
    const [user] = await stack.t.ctx.database.db.select().from(users).where(eq(users.githubId, 1005));
    const githubToken = await unsealText(stack.t.ctx.keyring, user!.githubTokenSealed!, githubTokenContext(user!.id));
    expect(githubToken).toMatch(/^gh[uo]_/);
    expect(responseText).not.toContain(githubToken);
    expect(stack.t.log.lines.join("\n")).not.toContain(githubToken);
    for (const table of ["users", "sessions", "auth_attempts", "audit_log"]) {
      const dump = JSON.stringify((await stack.t.ctx.database.client.execute(`select * from ${table}`)).rows);
      expect(dump).not.toContain(githubToken);
    }
    const cookie = `ip_session=${setCookie(res, "ip_session")}`;
    const me = await (await stack.t.app.request("/api/auth/user", { headers: { Cookie: cookie } })).text();
    expect(me).not.toContain(githubToken);
  });

  test("a state that does not match the browser's cookie is refused; nobody is signed in", async () => {
    const { callback } = await authorize("bob");
    const res = await back(callback, "ip_oauth_state=somebody-elses-state");
    expect(res.headers.get("location")).toBe("/auth?error=state_mismatch");
    expect(setCookie(res, "ip_session")).toBeUndefined();
  });

  test("a state works once: replaying the callback is refused", async () => {
    const { state, callback } = await authorize("bob");
    const first = await back(callback, `ip_oauth_state=${state}`);
    expect(setCookie(first, "ip_session")).toBeTruthy();
    const replay = await back(callback, `ip_oauth_state=${state}`);
    expect(replay.headers.get("location")).toBe("/auth?error=state_invalid");
    expect(setCookie(replay, "ip_session")).toBeUndefined();
  });

  test("the PKCE verifier is checked: a wrong verifier gets no token and no session", async () => {
    const { state, callback } = await authorize("bob");
    const id = hashToken(state);
    // Swap the stored verifier for another valid-looking one: GitHub (the emulator) must refuse the code.
    await stack.t.ctx.database.db
      .update(authAttempts)
      .set({ codeVerifierSealed: await sealText(stack.t.ctx.keyring, "x".repeat(64), `oauth-verifier:${id}`) })
      .where(eq(authAttempts.id, id));
    const res = await back(callback, `ip_oauth_state=${state}`);
    expect(res.headers.get("location")).toBe("/auth?error=github_denied");
    expect(setCookie(res, "ip_session")).toBeUndefined();
  });

  test("returnTo outside this site falls back to /repos (no open redirect)", async () => {
    const { state, callback } = await authorize("carol", `returnTo=${encodeURIComponent("https://evil.example/phish")}`);
    const res = await back(callback, `ip_oauth_state=${state}`);
    expect(res.headers.get("location")).toBe("/auth?registration=true&returnTo=%2Frepos");
  });

  test("no open redirect through a normalised returnTo: the callback sends a registered user only to a path of this site", async () => {
    await ensureRegistered("erin", "poolmanager");
    for (const returnTo of ["/.//evil.com", "/..//evil.com", "/x/..//evil.com", "/%2e//evil.com", "/%2E%2E//evil.com", "/\t/evil.com", "/\\evil.com", "/%5C%5Cevil.com", "/%2F%2Fevil.com"]) {
      // From an address of its own: these nine sign-ins do not eat into the other tests' per-address budget.
      const { state, callback } = await authorize("erin", `returnTo=${encodeURIComponent(returnTo)}`, "198.51.100.23");
      const res = await back(callback, `ip_oauth_state=${state}`, "198.51.100.23");
      const location = res.headers.get("location")!;
      expect({ returnTo, location }).toEqual({ returnTo, location: "/repos" });
    }
  });

  test("a VS Code sign-in the extension started hands the editor a one-time code from the callback itself, on our page, never a token", async () => {
    await ensureRegistered("grace", "contributor");
    const request = editorSignInRequest();
    const opened = await stack.t.app.request(authorizePath(request), { headers: { "Sec-Fetch-Site": "none", "X-Forwarded-For": "198.51.100.24" } });
    expect(opened.headers.get("location")).toBe("/auth?source=vscode");
    const kept = setCookieValue(opened, "ip_vscode_request")!;
    const { state, callback } = await authorize("grace", "source=vscode", "198.51.100.24");
    const res = await back(callback, `ip_oauth_state=${state}; ip_vscode_request=${kept}`, "198.51.100.24");
    // The browser lands on our page (not on GitHub's), which opens the editor with the code.
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/vscode/signed-in");
    const handoff = handoffOf(res)!;
    expect(handoff.uri.protocol).toBe("vscode:");
    expect(handoff.state).toBe(request.state);
    expect(handoff.uri.searchParams.get("token")).toBeNull();
    expect(setCookie(res, "ip_session")).toBeTruthy();
    const exchanged = await stack.t.app.request("/api/auth/vscode/token", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code: handoff.code, code_verifier: request.verifier, state: request.state, redirect_uri: request.redirectUri }),
    });
    const { access_token } = await exchanged.json();
    const me = await stack.t.app.request("/api/auth/user", { headers: { Authorization: `Bearer ${access_token}` } });
    expect((await me.json()).githubUsername).toBe("grace");
  });

  test("a VS Code sign-in the extension did not start hands nothing over: the editor's wallet page offers to connect", async () => {
    await ensureRegistered("grace", "contributor");
    const { state, callback } = await authorize("grace", "source=vscode", "198.51.100.25");
    const res = await back(callback, `ip_oauth_state=${state}`, "198.51.100.25");
    expect(res.headers.get("location")).toBe("/vscode/wallet");
    expect(handoffOf(res)).toBeUndefined();
  });

  test("signing in again issues a new session and ends the one the browser had (no fixation)", async () => {
    const first = await stack.signIn("alice");
    const { state, callback } = await authorize("alice");
    const res = await back(callback, `ip_oauth_state=${state}; ${first.cookie}`);
    const fresh = setCookie(res, "ip_session")!;
    expect(`ip_session=${fresh}`).not.toBe(first.cookie);
    expect(await stack.t.ctx.database.db.select().from(sessions).where(eq(sessions.id, first.sessionId))).toHaveLength(0);
    const old = await stack.t.app.request("/api/auth/user", { headers: { Cookie: first.cookie } });
    expect(await old.json()).toBeNull();
  });

  test("a registered user goes straight back to where they started", async () => {
    const session = await stack.signIn("bob");
    const register = await stack.t.app.request("/api/auth/register", {
      method: "POST",
      headers: { Cookie: session.cookie, Origin: stack.url, "X-CSRF-Token": session.csrfToken, "Content-Type": "application/json" },
      body: JSON.stringify({ role: "contributor", email: "bob@example.com" }),
    });
    expect(register.status).toBe(200);
    const { state, callback } = await authorize("bob", "returnTo=/repos/issuepool-demo/xdc-wallet-kit");
    const res = await back(callback, `ip_oauth_state=${state}`);
    expect(res.headers.get("location")).toBe("/repos/issuepool-demo/xdc-wallet-kit");
    expect(setCookie(res, "ip_signed_in")).toBe("contributor");
  });

  test("sign-in is rate limited per client address, with Retry-After", async () => {
    let last: Response | undefined;
    for (let i = 0; i < 31; i++) last = await stack.t.app.request("/api/auth/github", { headers: { "X-Forwarded-For": "203.0.113.7" } });
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
