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

export const isSecure = (env: Env) => env.PUBLIC_URL.startsWith("https://");
export const sessionCookieName = (env: Env) => (isSecure(env) ? "__Host-ip_session" : "ip_session");

export function readSessionCookie(c: Context, env: Env): string | undefined {
  return getCookie(c, sessionCookieName(env));
}

export function setSessionCookies(c: Context, env: Env, token: string, expiresAt: Date, role: string | null): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  setCookie(c, sessionCookieName(env), token, { httpOnly: true, secure: isSecure(env), sameSite: "Lax", path: "/", maxAge });
  setHintCookie(c, env, role, maxAge);
}

export function setHintCookie(c: Context, env: Env, role: string | null, maxAge = 30 * 24 * 3600): void {
  setCookie(c, HINT_COOKIE, role ?? "user", { httpOnly: false, secure: isSecure(env), sameSite: "Lax", path: "/", maxAge });
}

export function clearSessionCookies(c: Context, env: Env): void {
  deleteCookie(c, sessionCookieName(env), { path: "/", secure: isSecure(env) });
  deleteCookie(c, HINT_COOKIE, { path: "/", secure: isSecure(env) });
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
 * Set by the sign-in callback of an editor sign-in: the next visit to
 * /vscode/connected (within 2 minutes) opens the editor by itself. Without it
 * that page waits for a click, so a link from another site cannot make the
 * browser hand a token to the editor.
 */
export const VSCODE_HANDOFF_COOKIE = "ip_vscode_handoff";
export const VSCODE_CONNECTED_PAGE = "/vscode/connected";

export function setVscodeHandoffCookie(c: Context, env: Env): void {
  setCookie(c, VSCODE_HANDOFF_COOKIE, "1", { httpOnly: true, secure: isSecure(env), sameSite: "Lax", path: VSCODE_CONNECTED_PAGE, maxAge: 120 });
}
