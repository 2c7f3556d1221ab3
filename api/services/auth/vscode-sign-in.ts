import { and, eq, isNull, lt } from "drizzle-orm";
import { sha256 } from "@oslojs/crypto/sha2";
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import type { Database } from "../../../db/client.ts";
import { vscodeCodes } from "../../../db/schema/index.ts";
import { constantTimeEqualStrings, hashToken, hmacBase64url, randomToken } from "../../crypto/tokens.ts";
import { issueVscodeToken } from "./vscode.ts";
import { EDITOR_SCHEMES } from "../../../lib/editor-handoff.ts";

/**
 * The editor sign-in (docs/vscode.md), an OAuth-style authorization code
 * flow with PKCE between the extension and the platform:
 *
 *   editor: state + verifier ──▶ browser GET /api/auth/vscode/authorize?state&code_challenge&redirect_uri
 *       (the request rides in a signed, HttpOnly cookie while the person signs in and registers)
 *   browser signed in ──▶ a one-time code (stored hashed, 2 min, single use) bound to the state,
 *       the challenge and the redirect URI ──▶ our page "Signed in: you can return to VS Code",
 *       which opens <redirect_uri>?code&state in the editor
 *   editor: POST /api/auth/vscode/token { code, codeVerifier, state, redirectUri } ──▶ the token
 *
 * The token never travels in a URL; a code that leaks (browser history, a
 * log of the editor) is useless without the verifier, which never leaves the
 * extension, and is dead after one try or two minutes.
 */

/** The editors whose URI handlers may receive a code: VS Code, its Insiders build, VSCodium, Cursor. */
export { EDITOR_SCHEMES };
export const VSCODE_REQUEST_TTL_MS = 10 * 60 * 1000;
export const VSCODE_CODE_TTL_MS = 2 * 60 * 1000;

/** What the extension asks for: where to send the code, and what binds the code to it. */
export interface VscodeSignInRequest {
  state: string;
  codeChallenge: string;
  redirectUri: string;
  expiresAt: number;
}

/** The state: random, URL-safe, long enough not to be guessed. */
export const STATE_PATTERN = /^[A-Za-z0-9_-]{22,128}$/;
/** An S256 challenge: base64url of a SHA-256, 43 characters. */
export const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** RFC 7636 verifier: 43 to 128 unreserved characters. */
export const VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * `value` as a redirect URI we hand codes to, or null: an editor scheme from
 * the allow-list, and the extension's own authority (its publisher.name) and
 * path from VSCODE_REDIRECT_URI, so another extension cannot have our codes
 * sent to itself. No credentials, port or fragment. A query is kept: the
 * editor's `asExternalUri` may add one (a window id) and the extension must
 * not alter it; it may not carry a code or state of its own.
 */
export function editorRedirectUri(value: string, extensionUri: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (!(EDITOR_SCHEMES as readonly string[]).includes(scheme)) return null;
  const expected = new URL(extensionUri);
  if (url.username || url.password || url.port || url.hash || value.includes("#")) return null;
  if (url.hostname.toLowerCase() !== expected.hostname.toLowerCase() || url.pathname !== expected.pathname) return null;
  if (url.searchParams.has("code") || url.searchParams.has("state")) return null;
  return `${scheme}://${url.hostname.toLowerCase()}${url.pathname}${url.search}`;
}

/** The S256 challenge of a verifier (RFC 7636, section 4.2). */
export function s256(verifier: string): string {
  return encodeBase64urlNoPadding(sha256(new TextEncoder().encode(verifier)));
}

const requestMac = (appSecret: Uint8Array, payload: string) => hmacBase64url(appSecret, `vscode-request:${payload}`);

/** The request as a cookie value: JSON in base64url, then its HMAC (it holds no secret, but must not be forged). */
export async function sealVscodeRequest(appSecret: Uint8Array, request: VscodeSignInRequest): Promise<string> {
  const payload = encodeBase64urlNoPadding(
    new TextEncoder().encode(JSON.stringify({ s: request.state, c: request.codeChallenge, r: request.redirectUri, e: request.expiresAt })),
  );
  return `${payload}.${await requestMac(appSecret, payload)}`;
}

/** The request in a cookie, when it is ours, well-formed and unexpired; otherwise undefined. */
export async function openVscodeRequest(
  appSecret: Uint8Array,
  extensionUri: string,
  cookie: string | undefined,
  now = Date.now(),
): Promise<VscodeSignInRequest | undefined> {
  if (!cookie || cookie.length > 2048) return undefined;
  const [payload, mac, extra] = cookie.split(".");
  if (!payload || !mac || extra !== undefined) return undefined;
  if (!constantTimeEqualStrings(await requestMac(appSecret, payload), mac)) return undefined;
  try {
    const raw = JSON.parse(new TextDecoder().decode(decodeBase64urlIgnorePadding(payload))) as Record<string, unknown>;
    const request = { state: raw.s, codeChallenge: raw.c, redirectUri: raw.r, expiresAt: raw.e };
    if (typeof request.state !== "string" || !STATE_PATTERN.test(request.state)) return undefined;
    if (typeof request.codeChallenge !== "string" || !CHALLENGE_PATTERN.test(request.codeChallenge)) return undefined;
    if (typeof request.redirectUri !== "string" || editorRedirectUri(request.redirectUri, extensionUri) !== request.redirectUri) return undefined;
    if (typeof request.expiresAt !== "number" || request.expiresAt <= now) return undefined;
    return request as VscodeSignInRequest;
  } catch {
    return undefined;
  }
}

/**
 * Issues the one-time code for a signed-in user and the request the browser
 * carried, and returns the editor URI that hands it over. Codes expired for
 * a day are swept here, so the table stays small without a worker.
 */
export async function issueVscodeCode(
  db: Database,
  userId: number,
  request: VscodeSignInRequest,
  now = Date.now(),
): Promise<{ handoffUri: string; expiresAt: Date }> {
  const code = randomToken(32);
  const expiresAt = new Date(now + VSCODE_CODE_TTL_MS);
  await db.delete(vscodeCodes).where(lt(vscodeCodes.expiresAt, new Date(now - 24 * 3600 * 1000)));
  await db.insert(vscodeCodes).values({
    codeHash: hashToken(code),
    stateHash: hashToken(request.state),
    codeChallenge: request.codeChallenge,
    redirectUri: request.redirectUri,
    userId,
    createdAt: new Date(now),
    expiresAt,
  });
  const handoff = new URL(request.redirectUri);
  handoff.searchParams.set("code", code);
  handoff.searchParams.set("state", request.state);
  return { handoffUri: handoff.toString(), expiresAt };
}

export type VscodeGrantFailure = "unknown_code" | "expired_code" | "state_mismatch" | "redirect_mismatch" | "verifier_mismatch";

export class VscodeGrantError extends Error {
  constructor(readonly reason: VscodeGrantFailure) {
    super(reason);
    this.name = "VscodeGrantError";
  }
}

/**
 * Trades a code for an editor token. The code is marked used before anything
 * else is checked, in one statement, so it works at most once even when two
 * exchanges race and even when this one is refused: a guess at the verifier
 * costs the code.
 */
export async function exchangeVscodeCode(
  db: Database,
  input: { code: string; codeVerifier: string; state: string; redirectUri: string },
  now = Date.now(),
): Promise<{ token: string; expiresAt: Date; userId: number }> {
  const [row] = await db
    .update(vscodeCodes)
    .set({ consumedAt: new Date(now) })
    .where(and(eq(vscodeCodes.codeHash, hashToken(input.code)), isNull(vscodeCodes.consumedAt)))
    .returning();
  if (!row) throw new VscodeGrantError("unknown_code");
  if (row.expiresAt.getTime() <= now) throw new VscodeGrantError("expired_code");
  if (!constantTimeEqualStrings(row.stateHash, hashToken(input.state))) throw new VscodeGrantError("state_mismatch");
  if (row.redirectUri !== input.redirectUri) throw new VscodeGrantError("redirect_mismatch");
  if (!constantTimeEqualStrings(row.codeChallenge, s256(input.codeVerifier))) throw new VscodeGrantError("verifier_mismatch");
  const { token, expiresAt } = await issueVscodeToken(db, row.userId, now);
  return { token, expiresAt, userId: row.userId };
}
