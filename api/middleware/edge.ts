import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Env } from "../env.ts";
import type { Logger } from "../logger.ts";
import type { AppBindings } from "../context.ts";

const VALID_REQUEST_ID = /^[\w\-=]{1,255}$/;

/**
 * Told of every answered request (the HTTP figures of /metrics, api/ops/metrics.ts): `route` is the pattern that
 * answered (`/api/repos/:owner/:repo`, `/*` for the site), never the path, so the label's values stay few.
 */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;
/** The route label of answers made before the app (cached public reads and pages, built files). */
export const EARLY_ROUTE = "(early)";

/** The embeddable board's policy: no script, plugin, form, connection or base; styles and images of its own. */
export const EMBED_CSP =
  "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; object-src 'none'";

/**
 * What every request gets, in one middleware because it runs on every
 * request and each layer and header costs:
 * - a request id (the caller's, when it is a sane token, else a new UUID),
 *   on the response as X-Request-Id and in every log line;
 * - one log line: method, path (never the query string, which can carry OAuth
 *   codes and states), status, duration and request id;
 * - security headers: nosniff everywhere; for documents also a referrer
 *   policy and no framing, except the embeddable board under /embed/.
 */
export function edge(env: Env, log: Logger, observe?: RequestObserver): MiddlewareHandler<AppBindings> {
  const https = env.PUBLIC_URL.startsWith("https://");
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdOf(c.req.raw);
    c.set("requestId", requestId);
    c.set("log", log.child({ requestId }));
    await next();
    const path = c.req.path;
    finishResponse(c.res.headers, path, requestId, https);
    const ms = performance.now() - started;
    log.request(c.req.method, path, c.res.status, Math.round(ms * 10) / 10, requestId);
    observe?.(c.req.method, routePath(c) || "(none)", c.res.status, ms / 1000);
  };
}

/** The caller's request id when it is a sane token, else a new one. */
export function requestIdOf(request: Request): string {
  const incoming = request.headers.get("x-request-id");
  return incoming && VALID_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/** The headers every response leaves with (see `edge`). */
export function finishResponse(headers: Headers, path: string, requestId: string, https: boolean): void {
  headers.set("X-Request-Id", requestId);
  headers.set("X-Content-Type-Options", "nosniff");
  // Documents only: the site's hashed, immutable scripts and styles (/_astro/) are never framed and navigate
  // nowhere, and a signed-in page loads about ten of them (issue 27: the headers count in its JavaScript budget).
  if (!path.startsWith("/api/") && !path.startsWith("/_astro/")) {
    headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
    if (!path.startsWith("/embed/")) {
      // The page's own policy (scripts by hash, no plugins, no <base>...) is the <meta> tag Astro writes
      // (astro.config.ts); framing can only be refused by a header.
      headers.set("X-Frame-Options", "DENY");
      const policy = headers.get("Content-Security-Policy");
      if (!policy) headers.set("Content-Security-Policy", "frame-ancestors 'none'");
      else if (!policy.includes("frame-ancestors")) headers.set("Content-Security-Policy", `${policy.replace(/;\s*$/, "")}; frame-ancestors 'none'`);
    } else if (!headers.get("Content-Security-Policy")?.includes(EMBED_CSP)) {
      // The board runs no script at all and is framed by anyone: nothing but its own styles and images. A second
      // policy beside the page's own (both are enforced).
      headers.append("Content-Security-Policy", EMBED_CSP);
    }
  }
  if (https) headers.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
}

/**
 * For answers made before Hono (api/server.ts): gives a response what `edge`
 * gives every request (the id, the headers, the log line).
 */
export function outsideTheApp(env: Env, log: Logger, observe?: RequestObserver, route = EARLY_ROUTE): (request: Request, path: string, response: Response, started: number) => Response {
  const https = env.PUBLIC_URL.startsWith("https://");
  return (request, path, response, started) => {
    const requestId = requestIdOf(request);
    finishResponse(response.headers, path, requestId, https);
    const ms = performance.now() - started;
    log.request(request.method, path, response.status, Math.round(ms * 10) / 10, requestId);
    observe?.(request.method, route, response.status, ms / 1000);
    return response;
  };
}

/**
 * A route answered by Bun's own router, before Hono: for the few requests
 * that are polled hard and need nothing of the app (the health check).
 */
export function edgeRoute(env: Env, log: Logger, path: string, respond: () => Promise<Response>, observe?: RequestObserver): (request: Request) => Promise<Response> {
  const finish = outsideTheApp(env, log, observe, path);
  return async (request) => {
    const started = performance.now();
    return finish(request, path, await respond(), started);
  };
}
