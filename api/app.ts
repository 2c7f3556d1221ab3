import { awaitStartupRepair } from "./middleware/startup-gate.ts";
import { statementRoutes } from "./routes/statements/index.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "./context.ts";
import { noApiEndpoint } from "./errors.ts";
import { limitBody } from "./middleware/body-limit.ts";
import { exactAmounts } from "./middleware/exact-amounts.ts";
import { errorResponse, onError } from "./middleware/errors.ts";
import { edge } from "./middleware/edge.ts";
import { healthRoutes } from "./routes/health/get.ts";
import { loadSession } from "./middleware/session.ts";
import { csrfProtection } from "./middleware/csrf.ts";
import { devWritesJson, devWritesSignedIn } from "./middleware/dev-routes.ts";
import { authRoutes } from "./routes/auth/index.ts";
import { userRoutes } from "./routes/user/role.ts";
import { blockchainRoutes } from "./routes/blockchain/index.ts";
import { tokenRoutes, walletRoutes } from "./routes/wallet/index.ts";
import { walletFeatureRoutes } from "./routes/wallet/features.ts";
import { onrampWebhookRoutes } from "./routes/webhooks/onramp.ts";
import { repositoryRoutes } from "./routes/repositories/index.ts";
import { githubRoutes } from "./routes/github/index.ts";
import { publicRoutes } from "./routes/public/index.ts";
import { reposRoutes } from "./routes/repos/index.ts";
import { cachePublicResponses, PUBLIC_CACHED_PATHS } from "./middleware/response-cache.ts";
import { githubWebhookRoutes } from "./routes/webhooks/github.ts";
import { badgeRoutes } from "./routes/badges/index.ts";
import { aiScopingRoutes, SCOPING_UPLOAD_PATHS } from "./routes/ai-scoping/index.ts";
import { nodeRoutes, nodesRoutes } from "./routes/node/index.ts";
import { nodeAgentRoutes } from "./routes/node-agent/index.ts";
import { docsRoutes } from "./routes/docs/index.ts";
import { allowedOriginsCors, PUBLIC_READ_PATHS, publicReadCors } from "./middleware/cors.ts";
import { apiDocument } from "./openapi/document.ts";
import { userActivityRoutes } from "./routes/user/activity.ts";
import { leaderboardRoutes } from "./routes/leaderboard/index.ts";
import { exploreRoutes } from "./routes/explore/index.ts";
import { contributorRoutes, profileVisibilityRoutes } from "./routes/contributors/index.ts";
import { notOffered } from "./routes/not-offered.ts";
import { intentRoutes } from "./routes/intents/index.ts";
import { splitRoutes } from "./routes/splits/index.ts";
import { attemptRoutes } from "./routes/attempts/index.ts";
import { tipRoutes } from "./routes/tips/index.ts";
import { reviewRoutes } from "./routes/reviews/index.ts";
import { boostRoutes } from "./routes/funding/boosts.ts";
import { communityRoutes } from "./routes/funding/community.ts";
import { alertSearchRoutes } from "./routes/alerts/searches.ts";
import { alertWebhookRoutes } from "./routes/alerts/webhooks.ts";
import { feedRoutes } from "./routes/alerts/feeds.ts";
import { metricsRoute } from "./routes/ops/metrics.ts";

export interface CreateAppOptions {
  /** Serves everything that is not `/api/*`: the Astro site. Absent in API-only tests. */
  site?: (app: Hono<AppBindings>) => void;
  /**
   * Routes only the embedded default has (under /dev/: the mail sink's pages, the digest on demand), mounted before
   * the site. Their writes need a session, the anti-forgery token and JSON, like every write (issue 36).
   */
  extraRoutes?: (app: Hono<AppBindings>) => void;
}

/** The one place the HTTP application is put together. */
export function createApp(ctx: AppContext, options: CreateAppOptions = {}): Hono<AppBindings> {
  const app = new Hono<AppBindings>();

  app.use(edge(ctx.env, ctx.log, ctx.ops.metrics.observeRequest));
  app.use("/api/*", limitBody(ctx.env.MAX_BODY_BYTES, ["/api/webhooks/github", ...SCOPING_UPLOAD_PATHS]));
  app.use("/api/*", exactAmounts(["/api/webhooks/"]));
  app.onError(onError);

  // Health answers before sessions are loaded: load balancers poll it hard.
  app.route("/api/health", healthRoutes(ctx));
  if (ctx.env.ALLOWED_ORIGINS.length) app.use("/api/*", allowedOriginsCors(ctx.env.ALLOWED_ORIGINS));
  app.use("/api/*", loadSession(ctx));
  app.use("/api/*", csrfProtection(ctx));
  // Money waits for the start-up check against the chain (api/startup.ts).
  app.use("/api/*", awaitStartupRepair(ctx));
  app.route("/api/auth", authRoutes(ctx));
  app.route("/api/user", userRoutes());
  app.route("/api/user", userActivityRoutes(ctx));
  app.route("/api/wallet", walletRoutes(ctx));
  app.route("/api/wallet", walletFeatureRoutes(ctx));
  app.route("/api/webhooks/onramp", onrampWebhookRoutes(ctx));
  app.route("/api/webhooks/github", githubWebhookRoutes(ctx, () => ctx.webhooks.nudge()));
  // Public reads answer any origin, without credentials (before the cache, so cached answers get the headers too).
  const cors = publicReadCors();
  for (const path of PUBLIC_READ_PATHS) app.use(path, cors);
  for (const path of PUBLIC_CACHED_PATHS) app.use(path, cachePublicResponses(ctx.responseCache));
  app.route("/api/repositories", repositoryRoutes(ctx));
  app.route("/api/github", githubRoutes(ctx));
  app.route("/api/public", publicRoutes(ctx));
  app.route("/api/repos", reposRoutes(ctx));
  const badges = badgeRoutes(ctx);
  app.route("/api/badges", badges);
  // The reliability badge at the short address a README links (issue 30); same answer as /api/badges/…/reliability.svg.
  app.get("/badge/:owner/:repo/reliability.svg", (c) => badges.reliabilityBadge(c, { ...c.req.param(), file: "reliability.svg" }));
  app.get("/badge/:owner/:repo/reliability.json", (c) => badges.reliabilityBadge(c, { ...c.req.param(), file: "reliability.json" }));
  app.route("/api/token", tokenRoutes(ctx));
  app.route("/api/blockchain", blockchainRoutes(ctx));
  app.route("/api/ai-scoping", aiScopingRoutes(ctx));
  app.route("/api/node", nodeRoutes(ctx));
  app.route("/api/nodes", nodesRoutes(ctx));
  app.route("/api/node-agent", nodeAgentRoutes(ctx));
  app.route("/api/leaderboard", leaderboardRoutes(ctx));
  app.route("/api/intents", intentRoutes(ctx));
  app.route("/api/splits", splitRoutes(ctx));
  app.route("/api/attempts", attemptRoutes(ctx));
  app.route("/api/tips", tipRoutes(ctx));
  app.route("/api/reviews", reviewRoutes(ctx));
  app.route("/api/funding", boostRoutes(ctx));
  app.route("/api/community-bounties", communityRoutes(ctx));
  app.route("/api/alerts/webhooks", alertWebhookRoutes(ctx));
  app.route("/api/alerts", alertSearchRoutes(ctx));
  app.route("/api/feeds", feedRoutes(ctx));
  app.route("/api/explore", exploreRoutes(ctx));
  app.route("/api/contributors", contributorRoutes(ctx));
  app.route("/api/statements", statementRoutes(ctx));
  app.route("/api/user", profileVisibilityRoutes(ctx));
  app.route("/api", docsRoutes(apiDocument));
  // Prometheus's scrape, in text format (docs/operations.md): who may read it is configured (api/routes/ops/metrics.ts).
  app.get("/metrics", metricsRoute(ctx));

  app.all("/api/*", (c) =>
    errorResponse(
      c,
      notOffered(c.req.method, c.req.path) ?? noApiEndpoint(c.req.method, c.req.path),
    ),
  );

  if (options.extraRoutes) {
    app.use("/dev/*", loadSession(ctx), devWritesSignedIn(), csrfProtection(ctx), devWritesJson());
    options.extraRoutes(app);
  }
  options.site?.(app);
  return app;
}
