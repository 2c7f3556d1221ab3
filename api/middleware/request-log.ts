import type { MiddlewareHandler } from "hono";
import type { Logger } from "../logger.ts";
import type { AppBindings } from "../context.ts";

/**
 * One log line per request: method, path (never the query string, which can
 * carry OAuth codes and states), status, duration and request id. Also hands
 * handlers a logger that carries the request id.
 */
export function requestLog(log: Logger): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = c.get("requestId");
    c.set("log", log.child({ requestId }));
    await next();
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const status = c.res.status;
    const fields = { method: c.req.method, path: c.req.path, status, ms, requestId };
    if (status >= 500) log.error("request", fields);
    else log.info("request", fields);
  };
}
