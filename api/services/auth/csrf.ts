import { constantTimeEqualStrings, hmacBase64url } from "../../crypto/tokens.ts";

/**
 * Anti-forgery tokens bound to the session: an HMAC of the session id under
 * the server's secret. Nothing to store, a new one with every new session
 * (so signing in again invalidates the old token), and a token lifted from
 * one session is useless in another.
 */
export function csrfTokenFor(appSecret: Uint8Array, sessionId: string): Promise<string> {
  return hmacBase64url(appSecret, `csrf:${sessionId}`);
}

export async function verifyCsrfToken(appSecret: Uint8Array, sessionId: string, token: string | undefined): Promise<boolean> {
  if (!token || token.length > 128) return false;
  return constantTimeEqualStrings(await csrfTokenFor(appSecret, sessionId), token);
}

/**
 * The token a browser without a session gets (spec: GET /api/auth/csrf-token answers anonymous visitors
 * too), bound to its pre-session cookie. Anonymous requests carry no authority, so the middleware does not
 * require it; it lets clients that always fetch a token before a POST (sign-out, starting registration) work.
 */
export function anonymousCsrfTokenFor(appSecret: Uint8Array, presessionId: string): Promise<string> {
  return hmacBase64url(appSecret, `csrf-anonymous:${presessionId}`);
}
