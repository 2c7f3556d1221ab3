/**
 * Where to send the browser after sign-in: only a path on this site. One rule
 * for the server (the OAuth callback's redirect) and the page (/auth's
 * "Continue to App" link), in this neutral module both import.
 *
 * The rule checks what it RETURNS, not what it was given: the input is parsed
 * as a URL relative to the site, the path, query and fragment are taken from
 * the parse, and that result must itself be a same-site path, whichever way a
 * browser reads it. A check on the raw string alone is not enough, because
 * the parse normalises it: `/.//evil.com`, `/x/..//evil.com` and
 * `/%2e//evil.com` all have the path `//evil.com`, which a browser follows to
 * evil.com. Control characters (browsers drop tabs and newlines, so
 * `/\t/evil.com` becomes `//evil.com`) and backslashes (read as slashes) are
 * refused outright, raw or percent-encoded in a way a browser would decode in
 * the path.
 */
export const DEFAULT_RETURN_TO = "/repos";

const PLACEHOLDER_ORIGIN = "https://issuepool.invalid";

export function safeReturnTo(value: unknown, siteOrigin: string = PLACEHOLDER_ORIGIN): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) return DEFAULT_RETURN_TO;
  if (!value.startsWith("/") || /[\u0000-\u001f\u007f\\]/.test(value)) return DEFAULT_RETURN_TO;
  let origin: string;
  let url: URL;
  try {
    origin = new URL(siteOrigin).origin;
    url = new URL(value, origin);
  } catch {
    return DEFAULT_RETURN_TO;
  }
  if (url.origin !== origin) return DEFAULT_RETURN_TO;
  const result = url.pathname + url.search + url.hash;
  if (!isSameSitePath(result, origin)) return DEFAULT_RETURN_TO;
  // The sign-in endpoints themselves would loop.
  if (url.pathname.startsWith("/api/auth/github")) return DEFAULT_RETURN_TO;
  return result;
}

/** True when `path` (what we would put in a Location header or an href) can only lead to `origin`. */
function isSameSitePath(path: string, origin: string): boolean {
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return false;
  // Encoded slashes or backslashes right after the first one, which some servers and proxies decode.
  if (/^\/(%2f|%5c)/i.test(path)) return false;
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return false;
  try {
    const again = new URL(path, origin);
    return again.origin === origin && again.pathname + again.search + again.hash === path;
  } catch {
    return false;
  }
}
