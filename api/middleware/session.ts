import type { Context, MiddlewareHandler } from "hono";
import type { AppBindings, AppContext } from "../context.ts";
import { validateSessionToken } from "../services/auth/sessions.ts";
import { validateVscodeToken } from "../services/auth/vscode.ts";
import { clearSessionCookies, readSessionCookie } from "./cookies.ts";
import { unauthorized } from "../errors.ts";
import type { User } from "../../db/schema/index.ts";

/**
 * Who is asking: the session behind the cookie, or, for safe methods only,
 * a VS Code token in `Authorization: Bearer ipv_…`. A stale cookie is
 * cleared. Nothing here refuses a request; routes decide with requireUser.
 */
export function loadSession(ctx: AppContext): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const token = readSessionCookie(c, ctx.env);
    if (token) {
      const found = await validateSessionToken(ctx.database.db, token);
      if (found) {
        c.set("session", found.session);
        c.set("sessionToken", token);
        c.set("user", found.user);
      } else {
        clearSessionCookies(c, ctx.env);
      }
    } else if (c.req.method === "GET" || c.req.method === "HEAD") {
      const bearer = /^Bearer (ipv_\S+)$/.exec(c.req.header("authorization") ?? "")?.[1];
      if (bearer) {
        const user = await validateVscodeToken(ctx.database.db, bearer);
        if (user) c.set("user", user);
      }
    }
    await next();
  };
}

/** The signed-in user, or 401. */
export function requireUser(c: Context<AppBindings>): User {
  const user = c.get("user");
  if (!user) throw unauthorized();
  return user;
}

/** A browser session (not an editor token): needed for anything that changes state. */
export function requireSession(c: Context<AppBindings>): { user: User; sessionId: string } {
  const session = c.get("session");
  const user = c.get("user");
  if (!session || !user) throw unauthorized();
  return { user, sessionId: session.id };
}
