import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../context.ts";
import { DomainError, ErrorCode } from "../errors.ts";
import { requireSession } from "./session.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The development server's own writes (`/dev/*`, scripts/lib/dev-routes.ts: the digest on demand, the chain's
 * clock moved on for boosts' expiry) follow the rules of every other write (issue 36): a session (401 without),
 * then the anti-forgery check (csrfProtection, mounted after this: the site's Origin and the session's token),
 * then a JSON body (415 otherwise). Any page a developer visits could otherwise POST there: a form or a
 * `no-cors` fetch sends no token and no JSON content type, and changes nothing.
 */
export function devWritesSignedIn(): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    requireSession(c);
    return next();
  };
}

export function devWritesJson(): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    if (!/^application\/json(\s*;|$)/i.test(c.req.header("content-type") ?? "")) {
      throw new DomainError({ code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, error: "Unsupported Media Type", message: "Send JSON (Content-Type: application/json)." });
    }
    return next();
  };
}
