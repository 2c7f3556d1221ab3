import type { Context, MiddlewareHandler } from "hono";
import type { AppBindings, AppContext } from "../context.ts";
import { validateSessionToken } from "../services/auth/sessions.ts";
import { validateVscodeToken } from "../services/auth/vscode.ts";
import { clearSessionCookies, readSessionCookie } from "./cookies.ts";
import { DomainError, ErrorCode, unauthorized } from "../errors.ts";
import type { User } from "../../db/schema/index.ts";

/** The one write an editor token may make: signing itself out. */
export const EDITOR_LOGOUT_PATH = "/api/auth/vscode/logout";
/** Node agents' routes: their bearer is a node token, checked by those routes; sessions never count there. */
export const NODE_AGENT_PREFIX = "/api/node-agent/";

/**
 * Who is asking: the session behind the cookie, or, for reads only, a VS
 * Code token in `Authorization: Bearer ipv_…`. A stale cookie is cleared.
 * A bearer token is refused outright (401) when it is not a live editor
 * token, so the editor learns at once that it is signed out, and on any
 * write but the editor's own sign-out: editor tokens read, they never act.
 * Otherwise nothing here refuses a request; routes decide with requireUser.
 * Node agents' routes are left alone: no user or session is loaded there.
 */
export function loadSession(ctx: Pick<AppContext, "env" | "database">): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    if (c.req.path.startsWith(NODE_AGENT_PREFIX)) return next();
    const authorization = c.req.header("authorization");
    const bearer = authorization === undefined ? undefined : /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
    const safe = c.req.method === "GET" || c.req.method === "HEAD";
    if (bearer !== undefined && !safe && c.req.path !== EDITOR_LOGOUT_PATH) {
      throw unauthorized("An editor token can only read. Make changes on the Issuepool website.");
    }
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
    } else if (bearer !== undefined) {
      const user = await validateVscodeToken(ctx.database.db, bearer);
      if (!user) throw invalidEditorToken();
      c.set("user", user);
    }
    await next();
  };
}

const invalidEditorToken = () =>
  new DomainError({
    code: ErrorCode.UNAUTHORIZED,
    error: "Unauthorized",
    message: "This editor token is expired or was revoked. Sign in again from VS Code.",
    headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
  });

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
