/**
 * Where to send the browser after sign-in: only a path on this site. Anything
 * else (another origin, `//evil.example`, `/\evil`, `javascript:`) falls back
 * to /repos, so the sign-in flow cannot be used as an open redirect.
 */
export const DEFAULT_RETURN_TO = "/repos";

export function safeReturnTo(value: string | undefined | null, publicUrl: string): string {
  if (!value || value.length > 2048) return DEFAULT_RETURN_TO;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return DEFAULT_RETURN_TO;
  if (/[\u0000-\u001f\\]/.test(value)) return DEFAULT_RETURN_TO;
  try {
    const origin = new URL(publicUrl).origin;
    const url = new URL(value, origin);
    if (url.origin !== origin) return DEFAULT_RETURN_TO;
    // The sign-in endpoints themselves would loop.
    if (url.pathname.startsWith("/api/auth/github")) return DEFAULT_RETURN_TO;
    return url.pathname + url.search + url.hash;
  } catch {
    return DEFAULT_RETURN_TO;
  }
}
