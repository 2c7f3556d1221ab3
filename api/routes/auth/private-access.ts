import { declareRoute, json, noJson, SESSION, USER, z } from "../../openapi/declare.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { setOAuthStateCookie } from "../../middleware/cookies.ts";
import { PRIVATE_ACCESS_SCOPES, SIGN_IN_ATTEMPT_TTL_MS, startGitHubSignIn } from "../../services/auth/github-sign-in.ts";
import { SIGN_IN_RATE_LIMIT } from "./github.ts";

const UpgradeQuery = z.object({ returnTo: z.string().max(2048).optional() });

/**
 * Private repositories, as the original product's my-repos card asks (docs/api.md, "Clients of the original product"):
 *
 * GET /api/auth/private-access-status            signed in -> { hasPrivateAccess }
 * GET /api/auth/github/upgrade-private?returnTo=  signed in, a browser navigation: the GitHub sign-in again, asking
 *                                                also for the `repo` (and `read:org`) scope, with state and PKCE as
 *                                                the normal sign-in; back through /api/auth/github/callback to
 *                                                `returnTo` (same rules: a path of this site, else /)
 */
export function privateAccessRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/private-access-status", (c) => {
      c.header("Cache-Control", "no-store");
      return c.json({ hasPrivateAccess: requireUser(c).hasPrivateRepoAccess });
    })
    .get("/github/upgrade-private", rateLimit(ctx, SIGN_IN_RATE_LIMIT), validate("query", UpgradeQuery), async (c) => {
      requireSession(c);
      const { url, state } = await startGitHubSignIn(ctx, { returnTo: c.req.valid("query").returnTo, source: "web", promptNone: false, scopes: PRIVATE_ACCESS_SCOPES });
      setOAuthStateCookie(c, ctx.env, state, SIGN_IN_ATTEMPT_TTL_MS / 1000);
      c.header("Cache-Control", "no-store");
      return c.redirect(url.toString(), 302);
    });
}

export const privateAccessApi = [
  declareRoute({
    method: "get", path: "/api/auth/private-access-status", operationId: "getPrivateAccessStatus", tags: ["auth"], security: USER,
    summary: "Whether the user's GitHub token reaches private repositories",
    responses: { 200: json("The status", z.object({ hasPrivateAccess: z.boolean() })) },
  }),
  declareRoute({
    method: "get", path: "/api/auth/github/upgrade-private", operationId: "upgradePrivateAccess", tags: ["auth"], security: SESSION,
    errors: ["rate_limited", "validation_failed"],
    summary: "Signs in with GitHub again, asking for private repositories (a browser navigation)",
    request: { query: UpgradeQuery },
    responses: { 302: noJson("To GitHub's authorize page (scopes + repo, read:org; state + PKCE S256)") },
  }),
];
