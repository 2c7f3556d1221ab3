/**
 * The web side of GitHub sign-in: the authorize page (pick a demo user; no
 * passwords), the code-for-token exchange with PKCE (S256), and the
 * emulator's own "signed in" cookie. Two clients are known: the OAuth app
 * (tokens gho_, with scopes) and the GitHub App's own client (user tokens
 * ghu_, which act through the app's installations). Errors use GitHub's
 * codes and texts; the token endpoint answers them with HTTP 200, as GitHub does.
 */
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";
import { Hono, type Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { randomToken } from "./app-auth.ts";
import { hiddenFields, layout, userButtons } from "./html.ts";
import type { TokenRecord, UserRecord } from "./state.ts";
import type { World } from "./world.ts";

const SESSION_COOKIE = "emulator_user";
const CODE_LIFETIME_MS = 10 * 60 * 1000;
const TOKEN_ERRORS_DOCS = "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors";
const TOKEN_ERRORS = {
  bad_verification_code: ["The code passed is incorrect or expired.", "#bad-verification-code"],
  incorrect_client_credentials: ["The client_id and/or client_secret passed are incorrect.", "#incorrect-client-credentials"],
  redirect_uri_mismatch: ["The redirect_uri MUST match the registered callback URL for this application.", "#redirect-uri-mismatch2"],
  unsupported_grant_type: ["The grant type is not supported by the GitHub emulator.", "#unsupported-grant-type"],
} as const;

interface Client {
  secret: string;
  kind: TokenRecord["kind"];
  prefix: string;
}

interface CodeRecord {
  clientId: string;
  login: string;
  redirectUri?: string;
  scope: string;
  challenge?: string;
  expiresAt: number;
}

export function sessionUser(c: Context, world: World): UserRecord | undefined {
  const login = getCookie(c, SESSION_COOKIE);
  return login ? world.user(login) : undefined;
}

function signIn(c: Context, login: string): void {
  setCookie(c, SESSION_COOKIE, login, { path: "/", httpOnly: true, sameSite: "Lax" });
}

/** A path on this host, never an open redirect. */
function safeReturnTo(value: string | undefined): string {
  return value && value.startsWith("/") && !value.startsWith("//") ? value : "/_emulator";
}

export function notFoundPage(c: Context, world: World): Response | Promise<Response> {
  return c.html(layout("Page not found", html`<h1>404</h1><p>This is not the web page you are looking for.</p>`, sessionUser(c, world)?.login), 404);
}

export function oauthRoutes(world: World): Hono {
  const app = new Hono();
  const codes = new Map<string, CodeRecord>();
  const { oauth, app: ghApp } = world.config;
  const clients = new Map<string, Client>([
    [oauth.clientId, { secret: oauth.clientSecret, kind: "oauth", prefix: "gho_" }],
    [ghApp.clientId, { secret: ghApp.clientSecret, kind: "user-app", prefix: "ghu_" }],
  ]);
  // Both clients' callback URL is registered as the platform's origin; GitHub accepts any redirect_uri below the callback URL.
  const callbackOrigin = new URL(ghApp.setupUrl).origin;

  const redirectTo = (c: Context, target: string, params: Record<string, string | undefined>) => {
    const url = new URL(target);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    return c.redirect(url.toString(), 302);
  };

  /** Checks an authorize request; answers the error page or redirect GitHub would, or undefined when it may proceed. */
  const refuse = (c: Context, p: Record<string, string | undefined>): Response | Promise<Response> | undefined => {
    if (!p.client_id || !clients.has(p.client_id)) return notFoundPage(c, world);
    let redirect: URL | undefined;
    try {
      redirect = new URL(p.redirect_uri ?? callbackOrigin);
    } catch {
      redirect = undefined;
    }
    if (!redirect || redirect.origin !== callbackOrigin) {
      const [description] = TOKEN_ERRORS.redirect_uri_mismatch;
      return redirectTo(c, `${callbackOrigin}/`, { error: "redirect_uri_mismatch", error_description: description, error_uri: "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#redirect-uri-mismatch", state: p.state });
    }
    if (p.code_challenge && (p.code_challenge_method ?? "plain") !== "S256") {
      return redirectTo(c, redirect.toString(), { error: "invalid_request", error_description: "code_challenge_method must be S256", state: p.state });
    }
    return undefined;
  };

  const grant = (c: Context, p: Record<string, string | undefined>, login: string) => {
    const code = Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => b.toString(16).padStart(2, "0")).join("");
    codes.set(code, { clientId: p.client_id!, login, redirectUri: p.redirect_uri, scope: p.scope ?? "", challenge: p.code_challenge, expiresAt: world.now() + CODE_LIFETIME_MS });
    return redirectTo(c, p.redirect_uri ?? `${callbackOrigin}/`, { code, state: p.state });
  };

  app.get("/login/oauth/authorize", (c) => {
    const p = c.req.query();
    const refused = refuse(c, p);
    if (refused) return refused;
    const remembered = sessionUser(c, world);
    if (remembered && p.prompt === "none") return grant(c, p, remembered.login);
    const page = html`<h1>Sign in to continue</h1>
<p>Choose the demo user to authorize <strong>${p.client_id === ghApp.clientId ? ghApp.slug : "the OAuth app"}</strong> as${remembered ? html` (you are signed in as <strong>${remembered.login}</strong>)` : ""}.</p>
<form method="post" action="/login/oauth/authorize">${hiddenFields(p)}${userButtons(world)}</form>`;
    return c.html(layout("Authorize application", page, remembered?.login));
  });

  app.post("/login/oauth/authorize", async (c) => {
    const form = (await c.req.parseBody()) as Record<string, string>;
    const refused = refuse(c, form);
    if (refused) return refused;
    const user = form.login ? world.user(form.login) : undefined;
    if (!user) return notFoundPage(c, world);
    signIn(c, user.login);
    return grant(c, form, user.login);
  });

  app.post("/login/oauth/access_token", async (c) => {
    const type = c.req.header("content-type") ?? "";
    const body = type.includes("json") ? ((await c.req.json().catch(() => ({}))) as Record<string, string>) : ((await c.req.parseBody()) as Record<string, string>);
    const p: Record<string, string | undefined> = { ...c.req.query(), ...body };
    const basic = c.req.header("authorization")?.match(/^Basic\s+(.+)$/i)?.[1];
    if (basic) [p.client_id, p.client_secret] = atob(basic).split(/:(.*)/s) as [string, string];

    const answer = (data: Record<string, string>) =>
      (c.req.header("accept") ?? "").includes("json") ? c.json(data) : c.body(new URLSearchParams(data).toString(), 200, { "Content-Type": "application/x-www-form-urlencoded; charset=utf-8" });
    const fail = (error: keyof typeof TOKEN_ERRORS, description?: string) => {
      const [text, anchor] = TOKEN_ERRORS[error];
      return answer({ error, error_description: description ?? text, error_uri: TOKEN_ERRORS_DOCS + anchor });
    };

    const client = p.client_id ? clients.get(p.client_id) : undefined;
    if (!client || client.secret !== p.client_secret) return fail("incorrect_client_credentials");
    if (p.grant_type && p.grant_type !== "authorization_code") return fail("unsupported_grant_type");
    const record = p.code ? codes.get(p.code) : undefined;
    // A code is good for one attempt, whatever its outcome, so a PKCE verifier cannot be guessed at.
    if (p.code) codes.delete(p.code);
    if (!record || record.clientId !== p.client_id || record.expiresAt <= world.now()) return fail("bad_verification_code");
    if (p.redirect_uri && record.redirectUri && p.redirect_uri !== record.redirectUri) return fail("redirect_uri_mismatch");
    if (record.challenge) {
      if (!p.code_verifier) return fail("bad_verification_code", "The code_verifier is required: this code was requested with a code_challenge (PKCE).");
      const computed = encodeBase64urlNoPadding(sha256(new TextEncoder().encode(p.code_verifier)));
      if (computed !== record.challenge) return fail("bad_verification_code", "The code_verifier does not match the code_challenge of the authorization request.");
    }
    const scope = client.kind === "oauth" ? record.scope.split(/[\s,]+/).filter(Boolean).join(",") : "";
    const token: TokenRecord = { token: randomToken(client.prefix), kind: client.kind, login: record.login, scope, expiresAt: null };
    world.state.tokens.push(token);
    world.save();
    return answer({ access_token: token.token, token_type: "bearer", scope });
  });

  app.get("/login", (c) => {
    const returnTo = safeReturnTo(c.req.query("return_to"));
    const page = html`<h1>Sign in to the GitHub emulator</h1><p>Choose a demo user.</p>
<form method="post" action="/session">${hiddenFields({ return_to: returnTo })}${userButtons(world)}</form>`;
    return c.html(layout("Sign in", page, sessionUser(c, world)?.login));
  });

  app.post("/session", async (c) => {
    const form = (await c.req.parseBody()) as Record<string, string>;
    const user = form.login ? world.user(form.login) : undefined;
    if (!user) return notFoundPage(c, world);
    signIn(c, user.login);
    return c.redirect(safeReturnTo(form.return_to), 303);
  });

  app.get("/logout", (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.html(layout("Signed out", html`<h1>Signed out</h1><p><a href="/login">Sign in again</a></p>`));
  });

  return app;
}
