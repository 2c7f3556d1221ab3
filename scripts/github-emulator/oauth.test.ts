import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { APP_CLIENT, OAUTH, PLATFORM, api, authorizeAs, exchangeCode, pkcePair, startTestWorld, type TestWorld } from "./test-support.ts";

let w: TestWorld;
beforeAll(async () => {
  w = await startTestWorld();
});
afterAll(() => w.stop());

const redirect = `${PLATFORM}/auth/github/callback`;
const base = { client_id: OAUTH.clientId, redirect_uri: redirect, scope: "read:user user:email" };

async function codeFor(login: string, extra: Record<string, string> = {}) {
  const { location, cookie } = await authorizeAs(w.emulator, login, { ...base, state: "st-1", ...extra });
  return { code: location.searchParams.get("code")!, location, cookie };
}

describe("authorize page", () => {
  test("lists every demo user with a button, login, name and persona", async () => {
    const res = await fetch(`${w.emulator.webUrl}/login/oauth/authorize?${new URLSearchParams({ ...base, state: "x" })}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    for (const login of ["alice", "bob", "carol", "dave", "erin"]) expect(page).toContain(`<button type="submit" name="login" value="${login}">`);
    expect(page).toContain("Pool manager: admin of issuepool-demo repositories");
  });

  test("redirects to redirect_uri with a code and the state untouched", async () => {
    const state = "a/b+c=d&e%f ü";
    const { location } = await authorizeAs(w.emulator, "bob", { ...base, state });
    expect(`${location.origin}${location.pathname}`).toBe(redirect);
    expect(location.searchParams.get("state")).toBe(state);
    expect(location.searchParams.get("code")).toMatch(/^[0-9a-f]{20}$/);
  });

  test("unknown client_id is a 404 page", async () => {
    const res = await fetch(`${w.emulator.webUrl}/login/oauth/authorize?client_id=nope&state=x`);
    expect(res.status).toBe(404);
  });

  test("a redirect_uri outside the registered callback is refused with redirect_uri_mismatch", async () => {
    const res = await fetch(`${w.emulator.webUrl}/login/oauth/authorize?${new URLSearchParams({ ...base, redirect_uri: "https://evil.example/cb", state: "s" })}`, { redirect: "manual" });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin).toBe(PLATFORM);
    expect(location.searchParams.get("error")).toBe("redirect_uri_mismatch");
    expect(location.searchParams.get("state")).toBe("s");
  });

  test("prompt=none skips the page for the remembered user; without the cookie the page is shown", async () => {
    const { cookie } = await codeFor("carol");
    const url = `${w.emulator.webUrl}/login/oauth/authorize?${new URLSearchParams({ ...base, state: "silent", prompt: "none" })}`;
    const silent = await fetch(url, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(silent.status).toBe(302);
    const location = new URL(silent.headers.get("location")!);
    expect(location.searchParams.get("state")).toBe("silent");
    const token = await exchangeCode(w.emulator, { client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret, code: location.searchParams.get("code")! });
    const user = await (await api(w.emulator, "/user", { token: token.access_token })).json();
    expect(user.login).toBe("carol");

    const anonymous = await fetch(url, { redirect: "manual" });
    expect(anonymous.status).toBe(200);
  });
});

describe("access token exchange", () => {
  const exchange = (fields: Record<string, string>) => exchangeCode(w.emulator, { client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret, redirect_uri: redirect, ...fields });

  test("PKCE S256 success returns a gho_ token with the granted scopes", async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await codeFor("alice", { code_challenge: challenge, code_challenge_method: "S256" });
    const result = await exchange({ code, code_verifier: verifier });
    expect(result.token_type).toBe("bearer");
    expect(result.scope).toBe("read:user,user:email");
    expect(result.access_token).toMatch(/^gho_[A-Za-z0-9]{36}$/);
    const res = await api(w.emulator, "/user", { token: result.access_token });
    expect(res.headers.get("x-oauth-scopes")).toBe("read:user, user:email");
    expect((await res.json()).login).toBe("alice");
  });

  test("a wrong verifier is bad_verification_code mentioning the code verifier", async () => {
    const { challenge } = pkcePair();
    const { code } = await codeFor("alice", { code_challenge: challenge, code_challenge_method: "S256" });
    const result = await exchange({ code, code_verifier: "not-the-verifier-not-the-verifier-not-the-verifier" });
    expect(result.error).toBe("bad_verification_code");
    expect(result.error_description).toContain("code_verifier");
    expect(result.error_uri).toContain("docs.github.com");
  });

  test("a missing verifier is refused when a challenge was sent", async () => {
    const { challenge } = pkcePair();
    const { code } = await codeFor("alice", { code_challenge: challenge, code_challenge_method: "S256" });
    const result = await exchange({ code });
    expect(result.error).toBe("bad_verification_code");
    expect(result.error_description).toContain("code_verifier");
  });

  test("a code works once", async () => {
    const { code } = await codeFor("bob");
    expect((await exchange({ code })).access_token).toBeDefined();
    expect((await exchange({ code })).error).toBe("bad_verification_code");
  });

  test("a code expires after ten minutes", async () => {
    const { code } = await codeFor("bob");
    w.clock.now += 11 * 60 * 1000;
    try {
      expect((await exchange({ code })).error).toBe("bad_verification_code");
    } finally {
      w.clock.now -= 11 * 60 * 1000;
    }
  });

  test("a wrong client secret is incorrect_client_credentials, with HTTP 200 as on GitHub", async () => {
    const { code } = await codeFor("bob");
    const res = await fetch(`${w.emulator.webUrl}/login/oauth/access_token`, {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/json" },
      body: JSON.stringify({ client_id: OAUTH.clientId, client_secret: "wrong", code }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).error).toBe("incorrect_client_credentials");
  });

  test("a different redirect_uri than at authorize time is redirect_uri_mismatch", async () => {
    const { code } = await codeFor("bob");
    expect((await exchange({ code, redirect_uri: `${PLATFORM}/elsewhere` })).error).toBe("redirect_uri_mismatch");
  });

  test("without Accept: application/json the answer is form-encoded; Basic client credentials work", async () => {
    const { code } = await codeFor("dave");
    const res = await fetch(`${w.emulator.webUrl}/login/oauth/access_token`, {
      method: "POST",
      headers: { Authorization: `Basic ${btoa(`${OAUTH.clientId}:${OAUTH.clientSecret}`)}` },
      body: new URLSearchParams({ code, grant_type: "authorization_code" }),
    });
    expect(res.headers.get("content-type")).toContain("application/x-www-form-urlencoded");
    const form = new URLSearchParams(await res.text());
    expect(form.get("access_token")).toMatch(/^gho_/);
  });

  test("the GitHub App's client gets a ghu_ user token without scopes", async () => {
    const { location } = await authorizeAs(w.emulator, "alice", { client_id: APP_CLIENT.clientId, redirect_uri: redirect, state: "s" });
    const result = await exchangeCode(w.emulator, { ...APP_CLIENT, client_id: APP_CLIENT.clientId, client_secret: APP_CLIENT.clientSecret, code: location.searchParams.get("code")! });
    expect(result.access_token).toMatch(/^ghu_/);
    expect(result.scope).toBe("");
  });
});
