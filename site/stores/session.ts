import { atom } from "nanostores";
import { api, ApiRequestError, useCsrfToken, type ApiResponse } from "../lib/api.ts";
import { flashToast, toast } from "./toast.ts";

/**
 * The signed-in user (spec section 4, "Session"): loaded at start, checked
 * again when the tab becomes visible or the window gains focus (at most every
 * 3 s). A different user, or a failed check while a user is held, reloads the
 * session. A user brings a fresh anti-forgery token; no user clears it. A 401
 * means signed out; other errors are kept as an error state.
 */
/** The user object of spec section 3, exactly as `GET /api/auth/user` answers it. */
export type SessionUser = NonNullable<ApiResponse<"getCurrentUser">>;

export const SESSION_RECHECK_THROTTLE_MS = 3000;

export const $user = atom<SessionUser | null>(null);
export const $sessionLoading = atom(true);
export const $sessionError = atom<string | null>(null);
export const $csrfToken = atom<string | null>(null);
/** True once the first load finished (whatever its outcome). */
export const $sessionReady = atom(false);

async function fetchCsrfToken(): Promise<string | null> {
  try {
    const { csrfToken } = await api("/api/auth/csrf-token");
    $csrfToken.set(csrfToken);
    useCsrfToken(csrfToken);
    return csrfToken;
  } catch {
    return null;
  }
}
useCsrfToken(null, fetchCsrfToken);

/**
 * The session cookie is HttpOnly, but it always travels with the readable
 * hint cookie: without the hint there is no session, and an anonymous visit
 * needs no request to find that out.
 */
const mayHaveSession = () => typeof document === "undefined" || /(?:^|;\s*)ip_signed_in=/.test(document.cookie);

export async function loadSession(): Promise<void> {
  if (!mayHaveSession() && !$user.get()) {
    clearToken();
    syncHints(null);
    $sessionLoading.set(false);
    $sessionReady.set(true);
    return;
  }
  $sessionLoading.set(true);
  try {
    const user = await api("/api/auth/user");
    $user.set(user && user.id ? user : null);
    $sessionError.set(null);
    if ($user.get()) await fetchCsrfToken();
    else clearToken();
  } catch (err) {
    if (err instanceof ApiRequestError && String(err.status).includes("401")) {
      $user.set(null);
      clearToken();
    } else {
      $sessionError.set(err instanceof Error ? err.message : String(err));
    }
  } finally {
    syncHints($user.get());
    $sessionLoading.set(false);
    $sessionReady.set(true);
  }
}

function clearToken(): void {
  $csrfToken.set(null);
  useCsrfToken(null);
}

let lastCheck = 0;
/** The focus/visibility re-check: cheap probe, full reload only when something changed. */
export async function recheckSession(now = Date.now()): Promise<void> {
  if (now - lastCheck < SESSION_RECHECK_THROTTLE_MS) return;
  lastCheck = now;
  const held = $user.get();
  if (!held && !mayHaveSession()) return;
  try {
    const probe = await api("/api/auth/session");
    if ((probe.user?.id ?? null) !== (held?.id ?? null)) await loadSession();
  } catch {
    if (held) await loadSession();
  }
}

/** Signs out; `leaving` says the page navigates right after, so the success toast is shown on the next page. */
export async function signOut(options: { leaving?: boolean } = {}): Promise<boolean> {
  $sessionLoading.set(true);
  try {
    await api("/api/auth/logout", { method: "POST" });
    $user.set(null);
    clearToken();
    syncHints(null);
    (options.leaving ? flashToast : toast)({ type: "success", message: "Signed out successfully" });
    return true;
  } catch (err) {
    $sessionError.set(err instanceof Error ? err.message : String(err));
    toast({ type: "error", title: "Error signing out", message: "There was a problem signing out. Please try again." });
    return false;
  } finally {
    $sessionLoading.set(false);
  }
}

/** Keeps <html data-auth data-role> (set first from the hint cookie) true to the session. */
function syncHints(user: SessionUser | null): void {
  if (typeof document === "undefined") return;
  const root = document.documentElement;
  if (user) {
    root.setAttribute("data-auth", "yes");
    root.setAttribute("data-role", user.role ?? "user");
  } else {
    root.removeAttribute("data-auth");
    root.removeAttribute("data-role");
  }
}

let watching = false;
/** Loads the session once per page and re-checks it on focus and visibility. */
export function watchSession(): void {
  if (watching || typeof window === "undefined") return;
  watching = true;
  void loadSession();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") void recheckSession();
  });
  window.addEventListener("focus", () => void recheckSession());
}
