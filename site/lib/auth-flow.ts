/**
 * The browser side of the sign-in flows (spec section 4, "Registration"):
 * where the GitHub button goes, and the VS Code loop guard.
 */
import { safeReturnTo } from "../../lib/return-to.ts";
export const VSCODE_LOOP_GUARD_MS = 10_000;
const VSCODE_ATTEMPT_KEY = "ip_vscode_attempt_at";
export const AUTH_SOURCE_KEY = "ip_auth_source";

export function githubSignInUrl(options: { returnTo?: string; source?: "vscode"; promptNone?: boolean } = {}): string {
  const params = new URLSearchParams();
  if (options.returnTo) params.set("returnTo", options.returnTo);
  if (options.source) params.set("source", options.source);
  if (options.promptNone) params.set("prompt", "none");
  const query = params.toString();
  return `/api/auth/github${query ? `?${query}` : ""}`;
}

/**
 * Coming back from VS Code without a session: if we already tried under 10 s
 * ago, stop bouncing and show the editor's wallet page; otherwise try a silent
 * sign-in (prompt=none).
 */
export function vscodeReturnTarget(now = Date.now(), storage: Storage = localStorage): string {
  const last = Number(storage.getItem(VSCODE_ATTEMPT_KEY) ?? 0);
  if (now - last < VSCODE_LOOP_GUARD_MS) return "/vscode/wallet";
  storage.setItem(VSCODE_ATTEMPT_KEY, String(now));
  return githubSignInUrl({ source: "vscode", promptNone: true });
}

/** Where a finished registration goes: the editor hand-off for VS Code, else returnTo. */
export function afterRegistration(source: string | null, returnTo: string): string {
  if (source === "vscode") {
    try {
      sessionStorage.setItem(AUTH_SOURCE_KEY, "vscode");
    } catch {
      // storage may be unavailable; the hand-off still works
    }
    return "/api/auth/vscode/finalize-onboarding";
  }
  return returnTo;
}

/** The same return-to rule as the server's (lib/return-to.ts): a path on this site, or /repos. */
export function safeClientReturnTo(value: string | null): string {
  return safeReturnTo(value);
}

export const SIGN_IN_ERRORS: Record<string, string> = {
  access_denied: "GitHub sign-in was cancelled.",
  state_mismatch: "The sign-in could not be verified. Please try again.",
  state_invalid: "That sign-in link has expired or was already used. Please try again.",
  github_denied: "GitHub did not accept the sign-in. Please try again.",
  github_failed: "GitHub could not be reached. Please try again in a moment.",
  storage_full: "The platform's storage is full. Nothing was changed; please try again later.",
};
