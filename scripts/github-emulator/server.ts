/**
 * One Hono application on one port: the web side (OAuth, install pages,
 * repository/issue pages, the control panel and endpoints) at the root, and
 * the REST and GraphQL API under API_PREFIX, the same layout as GitHub
 * Enterprise Server (https://host/api/v3).
 */
import { Hono } from "hono";
import { authenticate } from "./app-auth.ts";
import type { EmulatorContext } from "./context.ts";
import { controlPageRoutes } from "./control-page.ts";
import { controlRoutes, type EmulatorControls } from "./controls.ts";
import { graphqlRoutes } from "./graphql.ts";
import { apiError, notFound, requestId, type ApiEnv } from "./http.ts";
import { installRoutes } from "./install.ts";
import { notFoundPage, oauthRoutes } from "./oauth.ts";
import { pageRoutes } from "./pages.ts";
import { rateLimit } from "./rate-limit.ts";
import { registerCommentRoutes } from "./rest-comments.ts";
import { registerReviewRoutes } from "./rest-reviews.ts";
import { installationRoutes, registerRepoInstallationRoute } from "./rest-installations.ts";
import { registerIssueRoutes } from "./rest-issues.ts";
import { registerRepoRoutes, repoScope } from "./rest-repos.ts";
import { userRoutes } from "./rest-users.ts";
import { orgRoutes } from "./rest-orgs.ts";

export const API_PREFIX = "/api/v3";

function apiApp(ctx: EmulatorContext): Hono<ApiEnv> {
  const { world } = ctx;
  const api = new Hono<ApiEnv>();
  api.use("*", async (c, next) => {
    c.header("x-github-request-id", requestId());
    c.header("x-github-api-version-selected", "2022-11-28");
    c.header("x-github-media-type", "github.v3; format=json");
    await next();
  });
  api.use("*", authenticate(world, ctx.appKey));
  api.use("*", async (c, next) => {
    const caller = c.get("caller");
    // OAuth tokens report their scopes on every response, as on GitHub.
    if (caller.kind === "user" && !caller.viaApp) c.header("x-oauth-scopes", caller.scopes.join(", "));
    await next();
  });
  api.use("*", rateLimit(world));

  api.route("/", userRoutes(ctx));
  api.route("/", orgRoutes(ctx));
  api.route("/", installationRoutes(ctx));
  api.route("/", graphqlRoutes(ctx));

  const repos = new Hono<ApiEnv>();
  repos.use("*", repoScope(world));
  registerRepoRoutes(repos, ctx);
  registerIssueRoutes(repos, ctx);
  registerCommentRoutes(repos, ctx);
  registerReviewRoutes(repos, ctx);
  registerRepoInstallationRoute(repos, ctx);
  api.route("/repos/:owner/:repo", repos);
  api.route("/repositories/:repository_id{[0-9]+}", repos);
  return api;
}

export function createApp(ctx: EmulatorContext, controls: EmulatorControls): Hono {
  const { world, webhooks } = ctx;
  const app = new Hono();
  app.route(API_PREFIX, apiApp(ctx));
  app.route("/", oauthRoutes(world));
  app.route("/", installRoutes(ctx));
  app.route("/", controlRoutes(controls, ctx));
  app.route("/", controlPageRoutes(world, webhooks));
  // Last: its /:owner/:repo patterns would otherwise shadow the fixed paths above.
  app.route("/", pageRoutes(world));

  const isApi = (path: string) => path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
  app.notFound((c) => (isApi(c.req.path) ? notFound(c) : notFoundPage(c, world)));
  app.onError((err, c) => {
    console.error("[github-emulator]", err);
    return isApi(c.req.path) ? apiError(c, 500, "Server Error") : c.text("Server Error", 500);
  });
  return app;
}
