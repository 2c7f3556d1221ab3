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
  "/api/leaderboard/*",
  "/api/explore",
  "/api/contributors/*",
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

/**
 * Clients on other origins the deployment lists (`ALLOWED_ORIGINS`, empty by default): a client of the original
 * product is a single-page app of its own. Exactly those origins, and no other, get CORS with credentials on
 * every /api/* answer (errors and public reads included: a credentialed request refuses `*`), echoing the origin
 * with `Vary: Origin`, never `*`. Their writes still need the session's anti-forgery token (csrf.ts lets only
 * these origins past the Origin check). Any other origin gets what it got before: public reads with `*`,
 * everything else no CORS header at all.
 */
export function allowedOriginsCors(allowed: readonly string[]): MiddlewareHandler<AppBindings> {
  const listed = new Set(allowed);
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (!origin || !listed.has(origin)) return next();
    if (c.req.method === "OPTIONS" && c.req.header("access-control-request-method")) {
      return c.body(null, 204, {
        ...credentialedHeaders(origin),
        "Access-Control-Allow-Methods": "GET, HEAD, POST, PUT, PATCH, DELETE",
        "Access-Control-Allow-Headers": "Content-Type, Accept, X-CSRF-Token, Idempotency-Key, If-None-Match, X-Request-Id",
        "Access-Control-Max-Age": "600",
      });
    }
    await next();
    try {
      allowCredentialedOrigin(c.res.headers, origin);
    } catch {
      c.res = new Response(c.res.body, c.res);
      allowCredentialedOrigin(c.res.headers, origin);
    }
  };
}

function credentialedHeaders(origin: string): Record<string, string> {
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true", Vary: "Origin" };
}

/** The headers of an answer to a listed origin (also on answers made before the app: response-cache.ts earlyAnswers). */
export function allowCredentialedOrigin(headers: Headers, origin: string): void {
  headers.set("Access-Control-Allow-Origin", origin);
  headers.set("Access-Control-Allow-Credentials", "true");
  headers.set("Access-Control-Expose-Headers", EXPOSED);
  const vary = headers.get("Vary");
  if (!vary?.split(",").some((v) => v.trim().toLowerCase() === "origin")) headers.set("Vary", vary ? `${vary}, Origin` : "Origin");
}
