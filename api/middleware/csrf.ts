import type { MiddlewareHandler } from "hono";
import type { AppBindings, AppContext } from "../context.ts";
import { DomainError, ErrorCode } from "../errors.ts";
import { verifyCsrfToken } from "../services/auth/csrf.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const csrfRefused = (message: string) =>
  new DomainError({ code: ErrorCode.CSRF_FAILED, error: "Forbidden", message });

/**
 * Routes a same-origin request may call with its session and no token (issue 38): the original product's chat client
 * sends `POST /api/node/dispatch-task` without one (it never fetches a token for it), so every message was refused.
 * Its `Origin` equal to this site's own (`PUBLIC_URL`: not a listed client origin) and a JSON body are a defence on
 * their own: a browser sets `Origin` itself on every cross-origin POST and a page cannot forge it, and a JSON
 * `Content-Type` from another origin needs a CORS preflight this API never grants it (OWASP's CSRF cheat sheet:
 * "Verifying Origin With Standard Headers"). A token, when sent, must still be right. docs/api.md, "Anti-forgery".
 */
export const SAME_ORIGIN_ROUTES: ReadonlySet<string> = new Set(["POST /api/node/dispatch-task"]);

/**
 * Anti-forgery for every state-changing request made with a session cookie:
 * the Origin must be this site's or one of ALLOWED_ORIGINS (or, without an
 * Origin, the browser must say same-origin), and the session's token must come in `X-CSRF-Token` or as
 * `_csrf` in the JSON body. Refused requests get 403 before any handler runs,
 * so nothing changes. Without a session the route answers 401 itself;
 * webhooks authenticate by signature instead.
 */
export function csrfProtection(ctx: Pick<AppContext, "env" | "appSecret">): MiddlewareHandler<AppBindings> {
  const ownOrigin = new URL(ctx.env.PUBLIC_URL).origin;
  const origins = new Set([ownOrigin, ...ctx.env.ALLOWED_ORIGINS]);
  return async (c, next) => {
    // The one-click unsubscribe (RFC 8058) is authenticated by the signed token in its URL, never by the session.
    if (SAFE_METHODS.has(c.req.method) || c.req.path.startsWith("/api/webhooks/") || c.req.path === "/api/alerts/unsubscribe") return next();
    const session = c.get("session");
    if (!session) return next();

    const origin = c.req.header("origin");
    const fetchSite = c.req.header("sec-fetch-site");
    // A listed client origin (ALLOWED_ORIGINS) passes here; it still needs the token below.
    if (origin ? !origins.has(origin) : fetchSite !== undefined && fetchSite !== "same-origin") {
      throw csrfRefused("This request did not come from this site.");
    }

    let token = c.req.header("x-csrf-token");
    const json = /^application\/json\s*(;|$)/i.test(c.req.header("content-type") ?? "");
    if (!token && json) {
      const body = await c.req.json().catch(() => undefined);
      if (body && typeof body === "object" && typeof (body as { _csrf?: unknown })._csrf === "string") token = (body as { _csrf: string })._csrf;
    }
    if (token === undefined && json && origin === ownOrigin && SAME_ORIGIN_ROUTES.has(`${c.req.method} ${c.req.path}`)) return next();
    if (!(await verifyCsrfToken(ctx.appSecret, session.id, token))) {
      throw csrfRefused("Invalid or missing anti-forgery token. Reload the page and try again.");
    }
    return next();
  };
}
