import { declareRoute, json, orNull, OPTIONAL_USER, SESSION_WRITE, z } from "../../openapi/declare.ts";
import { Role, Success, UserObject } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import type { AppBindings, AppContext } from "../../context.ts";
import { HINT_COOKIE, clearSessionCookies, presessionId } from "../../middleware/cookies.ts";
import { anonymousCsrfTokenFor, csrfTokenFor } from "../../services/auth/csrf.ts";
import { invalidateSession } from "../../services/auth/sessions.ts";
import { unauthorized } from "../../errors.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";
import { toUserObject } from "../../services/users/user-object.ts";

/**
 * GET  /api/auth/user         the signed-in user's object, or null
 * GET  /api/auth/session      a probe: is there a session, and for whom
 * GET  /api/auth/csrf-token   the anti-forgery token of this session
 * POST /api/auth/logout       ends the session
 */
export function sessionRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .use(async (c, next) => {
      await next();
      c.header("Cache-Control", "no-store");
    })
    .get("/user", async (c) => {
      const user = c.get("user");
      if (!user) {
        // A hint cookie without a session would keep showing a signed-in header.
        if (getCookie(c, HINT_COOKIE)) clearSessionCookies(c, ctx.env);
        return c.json(null);
      }
      return c.json(toUserObject(user, await walletOfUser(ctx.database.db, user.id)));
    })
    .get("/session", (c) => {
      const user = c.get("user");
      const session = c.get("session");
      return c.json({
        authenticated: Boolean(user),
        user: user ? { id: user.id, username: user.username, role: user.role, isProfileComplete: user.isProfileComplete } : null,
        expiresAt: session?.expiresAt.toISOString() ?? null,
      });
    })
    .get("/csrf-token", async (c) => {
      // Signed in: the session's token. Signed out: one bound to the browser's pre-session cookie (spec section 7).
      const session = c.get("session");
      if (session) return c.json({ csrfToken: await csrfTokenFor(ctx.appSecret, session.id) });
      // An editor token is a user without a browser session: it writes nothing, so it gets no token.
      if (c.get("user")) throw unauthorized();
      return c.json({ csrfToken: await anonymousCsrfTokenFor(ctx.appSecret, presessionId(c, ctx.env)) });
    })
    .post("/logout", async (c) => {
      // Signing out when already signed out succeeds: the browser ends up signed out either way.
      const session = c.get("session");
      if (session) await invalidateSession(ctx.database.db, session.id);
      clearSessionCookies(c, ctx.env);
      return c.json({ success: true });
    });
}

export const sessionApi = [
  declareRoute({
    method: "get", path: "/api/auth/user", operationId: "getCurrentUser", tags: ["auth"], security: OPTIONAL_USER,
    summary: "The signed-in user, or null",
    responses: { 200: json("The user object, or null when not signed in", orNull(UserObject)) },
  }),
  declareRoute({
    method: "get", path: "/api/auth/session", operationId: "getSession", tags: ["auth"], security: OPTIONAL_USER,
    summary: "Is there a session, and for whom",
    responses: {
      200: json("The session probe", z.object({
        authenticated: z.boolean(),
        user: z.object({ id: z.number().int(), username: z.string(), role: Role.nullable(), isProfileComplete: z.boolean() }).nullable(),
        expiresAt: z.string().nullable(),
      })),
    },
  }),
  declareRoute({
    method: "get", path: "/api/auth/csrf-token", operationId: "getCsrfToken", tags: ["auth"], security: [{}, { session: [] }],
    summary: "The anti-forgery token of this session (or of the pre-session cookie)",
    responses: { 200: json("The token", z.object({ csrfToken: z.string() })) },
  }),
  declareRoute({
    method: "post", path: "/api/auth/logout", operationId: "logout", tags: ["auth"], security: [{}, ...SESSION_WRITE!],
    summary: "Ends the session (succeeds when already signed out)",
    responses: { 200: json("Signed out", Success) },
  }),
];
