import { ANONYMOUS, declareRoute, noJson } from "../../openapi/declare.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { readSessionCookie, readVscodeRequestCookie, setOAuthStateCookie, setSessionCookies, takeOAuthStateCookie } from "../../middleware/cookies.ts";
import { clientAddress } from "../../middleware/client-address.ts";
import { finishGitHubSignIn, SIGN_IN_ATTEMPT_TTL_MS, SignInError, startGitHubSignIn } from "../../services/auth/github-sign-in.ts";
import { handOver } from "./vscode.ts";
import { openVscodeRequest } from "../../services/auth/vscode-sign-in.ts";
import { isStorageFull } from "../../../db/client.ts";

const SignInQuery = z.object({
  returnTo: z.string().max(2048).optional(),
  source: z.enum(["vscode", "web"]).optional(),
  prompt: z.enum(["none"]).optional(),
});

export const SIGN_IN_RATE_LIMIT = { name: "signin", perIp: 30, windowMs: 10 * 60 * 1000 };

/**
 * GET /api/auth/github            starts a GitHub sign-in (browser navigation)
 * GET /api/auth/github/callback   GitHub sends the browser back here
 */
export function githubSignInRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    // Both are browser navigations: a full storage (the rate limit's count is a write, and so is the sign-in)
    // is told on the sign-in page rather than as the API's JSON. The database layer logs the episode once;
    // nothing was stored, so signing in again works once there is space.
    .use(async (c, next) => {
      await next();
      // A new response (Hono carries the old one's headers over, cookies included, but not its JSON type).
      if (c.error && isStorageFull(c.error)) c.res = new Response(null, { status: 302, headers: { Location: "/auth?error=storage_full" } });
    })
    .use(rateLimit(ctx, SIGN_IN_RATE_LIMIT))
    .get(
      "/",
      validate("query", SignInQuery),
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
        // The editor hand-over right here: this request completed a sign-in our own page started (state and PKCE
        // checked), while the redirect chain from GitHub reads as cross-site to finalize-onboarding. It needs the
        // request the extension started (its state, challenge and URI, in a signed cookie); without one, the
        // editor's wallet page offers to start it.
        if (done.source === "vscode" && done.user.isProfileComplete) {
          const request = await openVscodeRequest(ctx.appSecret, ctx.env.VSCODE_REDIRECT_URI, readVscodeRequestCookie(c));
          if (request) return handOver(ctx, c, done.user, request);
          return c.redirect("/vscode/wallet", 302);
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

export const githubSignInApi = [
  declareRoute({
    method: "get", path: "/api/auth/github", operationId: "startGitHubSignIn", tags: ["auth"], security: ANONYMOUS,
    errors: ["rate_limited", "validation_failed"],
    summary: "Starts a GitHub sign-in (a browser navigation)",
    request: { query: SignInQuery },
    responses: { 302: noJson("To GitHub's authorize page (state + PKCE S256)") },
  }),
  declareRoute({
    method: "get", path: "/api/auth/github/callback", operationId: "finishGitHubSignIn", tags: ["auth"], security: ANONYMOUS,
    errors: ["github_unavailable", "rate_limited"],
    summary: "GitHub sends the browser back here",
    request: { query: z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional() }) },
    responses: {
      302: noJson("Signed in (session cookies set) and sent on; or to /auth?error={reason}"),
      303: noJson("The editor hand-over page (/vscode/signed-in)"),
    },
  }),
];
