import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Env } from "../env.ts";

/**
 * The cookies the platform sets. The session cookie is HttpOnly,
 * SameSite=Lax, Secure (and __Host- prefixed) whenever the site is served
 * over HTTPS. The hint cookie is readable by scripts on purpose: it holds no
 * secret, only the role, so the page can show the right header before the
 * session is checked (see docs/design.md, "Signed-in hints").
 */
export const HINT_COOKIE = "ip_signed_in";
export const OAUTH_STATE_COOKIE = "ip_oauth_state";
/** A random id for a browser without a session: what an anonymous anti-forgery token is bound to. */
export const presessionCookieName = (env: Env) => (isSecure(env) ? "__Host-ip_presession" : "ip_presession");

export const isSecure = (env: Env) => env.PUBLIC_URL.startsWith("https://");
/**
 * The cookies a client on a listed other origin must receive (ALLOWED_ORIGINS): `SameSite=None; Secure`, only
 * then; otherwise Lax. (Browsers accept Secure cookies from http://localhost.)
 */
const crossSite = (env: Env) => env.ALLOWED_ORIGINS.length > 0;
const sameSite = (env: Env) => (crossSite(env) ? ("None" as const) : ("Lax" as const));
const secure = (env: Env) => isSecure(env) || crossSite(env);
export const sessionCookieName = (env: Env) => (isSecure(env) ? "__Host-ip_session" : "ip_session");

/** Whether a raw request carries a session cookie (not whether the session is valid): for the page cache, before the app. */
export function hasSessionCookie(env: Env): (request: Request) => boolean {
  const pattern = new RegExp(`(?:^|;\\s*)${sessionCookieName(env)}=[^;\\s]`);
  return (request) => pattern.test(request.headers.get("cookie") ?? "");
}

export function readSessionCookie(c: Context, env: Env): string | undefined {
  return getCookie(c, sessionCookieName(env));
}

export function setSessionCookies(c: Context, env: Env, token: string, expiresAt: Date, role: string | null): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  setCookie(c, sessionCookieName(env), token, { httpOnly: true, secure: secure(env), sameSite: sameSite(env), path: "/", maxAge });
  setHintCookie(c, env, role, maxAge);
}

export function setHintCookie(c: Context, env: Env, role: string | null, maxAge = 30 * 24 * 3600): void {
  setCookie(c, HINT_COOKIE, role ?? "user", { httpOnly: false, secure: secure(env), sameSite: sameSite(env), path: "/", maxAge });
}

export function clearSessionCookies(c: Context, env: Env): void {
  deleteCookie(c, sessionCookieName(env), { path: "/", secure: secure(env), sameSite: sameSite(env) });
  deleteCookie(c, HINT_COOKIE, { path: "/", secure: secure(env), sameSite: sameSite(env) });
}

/** The browser's pre-session id, set (HttpOnly, a day) when it has none. */
export function presessionId(c: Context, env: Env): string {
  const existing = getCookie(c, presessionCookieName(env));
  if (existing && /^[A-Za-z0-9_-]{22,64}$/.test(existing)) return existing;
  const id = Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64url");
  setCookie(c, presessionCookieName(env), id, { httpOnly: true, secure: secure(env), sameSite: sameSite(env), path: "/", maxAge: 24 * 3600 });
  return id;
}

export function setOAuthStateCookie(c: Context, env: Env, state: string, maxAgeSeconds: number): void {
  setCookie(c, OAUTH_STATE_COOKIE, state, {
    httpOnly: true,
    secure: isSecure(env),
    sameSite: "Lax",
    path: "/api/auth/github",
    maxAge: maxAgeSeconds,
  });
}

export function takeOAuthStateCookie(c: Context, env: Env): string | undefined {
  const state = getCookie(c, OAUTH_STATE_COOKIE);
  deleteCookie(c, OAUTH_STATE_COOKIE, { path: "/api/auth/github", secure: isSecure(env) });
  return state;
}

/**
 * The editor sign-in in flight (services/auth/vscode-sign-in.ts): the
 * extension's request, signed, for the sign-in routes only, for as long as a
 * person may take to sign in and register.
 */
export const VSCODE_REQUEST_COOKIE = "ip_vscode_request";
const VSCODE_REQUEST_PATH = "/api/auth";

export function setVscodeRequestCookie(c: Context, env: Env, value: string, maxAgeSeconds: number): void {
  setCookie(c, VSCODE_REQUEST_COOKIE, value, { httpOnly: true, secure: isSecure(env), sameSite: "Lax", path: VSCODE_REQUEST_PATH, maxAge: maxAgeSeconds });
}

export function readVscodeRequestCookie(c: Context): string | undefined {
  return getCookie(c, VSCODE_REQUEST_COOKIE);
}

export function clearVscodeRequestCookie(c: Context, env: Env): void {
  deleteCookie(c, VSCODE_REQUEST_COOKIE, { path: VSCODE_REQUEST_PATH, secure: isSecure(env) });
}

/**
 * The editor URI that carries the one-time code, for our "Signed in: you can
 * return to VS Code" page only (it opens the editor, and its button opens it
 * again), and only while the code lives: the code never appears in one of
 * our http URLs.
 */
export const VSCODE_HANDOFF_COOKIE = "ip_vscode_handoff";
export const VSCODE_SIGNED_IN_PATH = "/vscode/signed-in";

export function setVscodeHandoffCookie(c: Context, env: Env, handoffUri: string, maxAgeSeconds: number): void {
  setCookie(c, VSCODE_HANDOFF_COOKIE, handoffUri, { httpOnly: true, secure: isSecure(env), sameSite: "Lax", path: VSCODE_SIGNED_IN_PATH, maxAge: maxAgeSeconds });
}
