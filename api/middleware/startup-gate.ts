import type { MiddlewareHandler } from "hono";
import type { AppBindings, AppContext } from "../context.ts";
import { DomainError, ErrorCode } from "../errors.ts";
import { STARTUP_WAIT_MS } from "../startup.ts";

/** The API paths whose writes move money (or change who is paid): they wait for the start-up check (api/startup.ts). */
export const MONEY_PATHS = ["/api/blockchain/", "/api/wallet/", "/api/funding/", "/api/tips", "/api/community-bounties", "/api/splits/", "/api/intents/", "/api/token/"];

/**
 * A write that moves money, arriving before the start-up check against the chain is done, waits for it (up to
 * STARTUP_WAIT_MS) and is then served, or answered 503 `not_ready` with Retry-After: the platform never acts on
 * beliefs about the chain it has not checked since it started. Reads, sign-in and webhook intake go on.
 */
export function awaitStartupRepair(ctx: Pick<AppContext, "startup">, waitMs = STARTUP_WAIT_MS): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS" || ctx.startup.isDone) return next();
    if (!MONEY_PATHS.some((p) => c.req.path.startsWith(p))) return next();
    if (!(await ctx.startup.wait(waitMs))) {
      throw new DomainError({
        code: ErrorCode.NOT_READY,
        error: "Starting up",
        message: "The platform is checking its records against the XDC network after a restart. Please try again in a moment.",
        headers: { "Retry-After": "5" },
      });
    }
    return next();
  };
}
