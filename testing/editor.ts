import { randomBase64url } from "../api/crypto/tokens.ts";
import { s256 } from "../api/services/auth/vscode-sign-in.ts";

/** What the extension makes before it opens the browser: a state and a PKCE verifier (and the verifier's challenge). */
export function editorSignInRequest(redirectUri = "vscode://issuepool.issuepool/auth") {
  const state = randomBase64url(32);
  const verifier = randomBase64url(48);
  return { state, verifier, challenge: s256(verifier), redirectUri };
}

export type EditorSignInRequest = ReturnType<typeof editorSignInRequest>;

/** The browser's first stop: /api/auth/vscode/authorize with the request in the query. */
export function authorizePath(request: Pick<EditorSignInRequest, "state" | "challenge" | "redirectUri">, method = "S256"): string {
  const query = new URLSearchParams({
    state: request.state,
    code_challenge: request.challenge,
    code_challenge_method: method,
    redirect_uri: request.redirectUri,
  });
  return `/api/auth/vscode/authorize?${query}`;
}

/** A cookie the response sets (value as sent, still URL-encoded), or undefined. */
export function setCookieValue(res: Response, name: string): string | undefined {
  for (const header of res.headers.getSetCookie()) {
    const match = new RegExp(`^${name}=([^;]*)`).exec(header);
    if (match && match[1] && !/Max-Age=0/i.test(header)) return match[1];
  }
  return undefined;
}

/** The editor URI our "Signed in" page opens, from the cookie the hand-over sets for it. */
export function handoffOf(res: Response): { uri: URL; code: string; state: string } | undefined {
  const value = setCookieValue(res, "ip_vscode_handoff");
  if (!value) return undefined;
  const uri = new URL(decodeURIComponent(value));
  return { uri, code: uri.searchParams.get("code")!, state: uri.searchParams.get("state")! };
}
