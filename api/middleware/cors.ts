import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../context.ts";

/**
 * Cross-origin reads of the public, stable API (docs/api.md, "Public reads
 * and CORS"): any site may read them from a browser, read-only and without
 * credentials. `Access-Control-Allow-Origin: *` (never with
 * Allow-Credentials) means a browser sends no cookie, or refuses to show the
 * answer when one was sent: a cross-origin reader always sees what an
 * anonymous visitor sees, so nothing personal can leak. Every other route
 * sends no CORS header and stays same-origin.
 */
export const PUBLIC_READ_PATHS = [
  "/api/repositories/public",
  "/api/public/*",
  "/api/repos/*",
  "/api/badges/*",
  "/api/blockchain/issue-bounty/*",
  "/api/blockchain/pool-info/*",
  "/api/openapi.json",
] as const;

const EXPOSED = "ETag, X-Request-Id, X-Data-Stale, Retry-After";

/** Whether `path` is one of PUBLIC_READ_PATHS. */
export function isPublicReadPath(path: string): boolean {
  return PUBLIC_READ_PATHS.some((p) => (p.endsWith("/*") ? path.startsWith(p.slice(0, -1)) : path === p));
}

/** The headers of a cross-origin public read (also on answers made before the app: response-cache.ts earlyAnswers). */
export function allowPublicRead(headers: Headers): void {
  headers.set("Access-Control-Allow-Origin", "*");
  headers.set("Access-Control-Expose-Headers", EXPOSED);
}

export function publicReadCors(): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    if (c.req.method === "OPTIONS") {
      // The preflight of a conditional GET (If-None-Match is not a simple header) or one with a request id.
      return c.body(null, 204, {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": "GET, HEAD",
        "Access-Control-Allow-Headers": "If-None-Match, X-Request-Id",
        "Access-Control-Max-Age": "86400",
        "Cache-Control": "public, max-age=86400",
      });
    }
    await next();
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return;
    try {
      allowPublicRead(c.res.headers);
    } catch {
      // An immutable Response (e.g. Response.redirect): copy it.
      c.res = new Response(c.res.body, c.res);
      allowPublicRead(c.res.headers);
    }
  };
}
