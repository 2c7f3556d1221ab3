import type { MiddlewareHandler } from "hono";
import type { Env } from "../env.ts";

/**
 * Headers every response carries. Framing is refused everywhere except the
 * embeddable bounty board (`/embed/*`), which exists to be put in an iframe.
 */
export function securityHeaders(env: Env): MiddlewareHandler {
  const https = env.PUBLIC_URL.startsWith("https://");
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "strict-origin-when-cross-origin");
    if (!c.req.path.startsWith("/embed/")) {
      h.set("X-Frame-Options", "DENY");
      if (!h.has("Content-Security-Policy")) h.set("Content-Security-Policy", "frame-ancestors 'none'");
    }
    if (https) h.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  };
}
