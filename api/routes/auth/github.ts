import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import {
  readSessionCookie,
  setOAuthStateCookie,
  setSessionCookies,
  setVscodeHandoffCookie,
  takeOAuthStateCookie,
  VSCODE_CONNECTED_PAGE,
} from "../../middleware/cookies.ts";
import { clientAddress } from "../../middleware/client-address.ts";
import { finishGitHubSignIn, SIGN_IN_ATTEMPT_TTL_MS, SignInError, startGitHubSignIn } from "../../services/auth/github-sign-in.ts";

export const SIGN_IN_RATE_LIMIT = { name: "signin", perIp: 30, windowMs: 10 * 60 * 1000 };

/**
 * GET /api/auth/github            starts a GitHub sign-in (browser navigation)
 * GET /api/auth/github/callback   GitHub sends the browser back here
 */
export function githubSignInRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .use(rateLimit(ctx, SIGN_IN_RATE_LIMIT))
    .get(
      "/",
      validate(
        "query",
        z.object({
          returnTo: z.string().max(2048).optional(),
          source: z.enum(["vscode", "web"]).optional(),
          prompt: z.enum(["none"]).optional(),
        }),
      ),
      async (c) => {
        const query = c.req.valid("query");
        const { url, state } = await startGitHubSignIn(ctx, {
          returnTo: query.returnTo,
          source: query.source === "vscode" ? "vscode" : "web",
          promptNone: query.prompt === "none",
        });
        setOAuthStateCookie(c, ctx.env, state, SIGN_IN_ATTEMPT_TTL_MS / 1000);
        c.header("Cache-Control", "no-store");
        return c.redirect(url.toString(), 302);
      },
    )
    .get("/callback", async (c) => {
      const cookieState = takeOAuthStateCookie(c, ctx.env);
      c.header("Cache-Control", "no-store");
      if (c.req.query("error")) return c.redirect(`/auth?error=${encodeURIComponent("access_denied")}`, 302);
      try {
        const done = await finishGitHubSignIn(ctx, {
          code: c.req.query("code"),
          state: c.req.query("state"),
          cookieState,
          currentSessionToken: readSessionCookie(c, ctx.env),
          ip: clientAddress(c, ctx.env.TRUST_PROXY),
          userAgent: c.req.header("user-agent"),
        });
        setSessionCookies(c, ctx.env, done.sessionToken, done.sessionExpiresAt, done.user.role);
        // The editor hand-over goes through a page of ours, so the browser ends there and not on GitHub's
        // authorize page (a redirect to vscode:// commits no page; issue 16). This request completed a sign-in our
        // own page started (state and PKCE checked): the cookie lets that page open the editor without a click.
        if (done.source === "vscode" && done.user.isProfileComplete) {
          setVscodeHandoffCookie(c, ctx.env);
          return c.redirect(VSCODE_CONNECTED_PAGE, 302);
        }
        return c.redirect(afterSignIn(done), 302);
      } catch (err) {
        if (!(err instanceof SignInError)) throw err;
        c.get("log").warn("sign-in refused", { reason: err.reason });
        return c.redirect(`/auth?error=${err.reason}`, 302);
      }
    });
}

function afterSignIn(done: { user: { isProfileComplete: boolean }; returnTo: string; source: "web" | "vscode" }): string {
  if (!done.user.isProfileComplete) {
    const params = new URLSearchParams({ registration: "true", returnTo: done.returnTo });
    if (done.source === "vscode") params.set("source", "vscode");
    return `/auth?${params}`;
  }
  if (done.source === "vscode") return "/api/auth/vscode/finalize-onboarding";
  return done.returnTo;
}
