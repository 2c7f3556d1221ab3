import type { Server } from "bun";
import { systemClock } from "./clock.ts";
import { createApp, type CreateAppOptions } from "./app.ts";
import type { RootContext } from "./context.ts";
import type { Env } from "./env.ts";
import type { Logger } from "./logger.ts";
import { loggerFromEnv } from "./logger-config.ts";
import { assertWritableDataDir } from "./data-dir.ts";
import { createServices } from "./services/index.ts";
import { createSite, type Site } from "./site-host/index.ts";
import { NETWORKS } from "./chain/networks.ts";
import { filePath, migrateDatabase, openDatabase, type DatabaseHandle } from "../db/client.ts";
import type { RuntimeConfig } from "../lib/runtime-config.ts";
import { createKeyring } from "./crypto/keyring.ts";
import { chainProbe, createChainAccess } from "./chain/clients.ts";
import { Outbox } from "./chain/outbox.ts";
import { RewardsIndexer } from "./chain/indexer.ts";
import { ChainReconciler } from "./chain/outbox-reconciling.ts";
import { afterWebhookPass, startSchedule, type RunningSchedule } from "./schedule.ts";
import { StartupRepair } from "./startup.ts";
import { ChangeFeed } from "./changes.ts";
import { createMailer } from "./mail/mailer.ts";
import { PageCache } from "./site-host/page-cache.ts";
import { WebhookWorker } from "./workers/webhooks.ts";
import { moneyInFlight, OutboundWorker } from "./workers/outbound.ts";
import { DigestWorker } from "./workers/digest.ts";
import { handleGitHubDelivery } from "./services/github-events/index.ts";
import { isGitHubUnavailable } from "./github/client.ts";
import { edgeRoute } from "./middleware/edge.ts";
import { earlyAnswers, publicReadsSource } from "./middleware/response-cache.ts";
import { hasSessionCookie } from "./middleware/cookies.ts";
import { HEALTH_CHECK_TIMEOUT_MS, healthResponder, timed } from "./routes/health/get.ts";
import { currentViewer } from "./services/auth/viewer.ts";
import { upgradeWalletKeyContexts } from "./services/wallets/custodial.ts";
import { decodeBase64 } from "@oslojs/encoding";
import { ScopingWorker } from "./workers/scoping.ts";
import { Extractor } from "./services/scoping/extractor.ts";
import { plannerFor } from "./services/scoping/jobs.ts";
import { ComputeDispatcher, computeSettings } from "./workers/compute-dispatch.ts";
import { ensureRecords } from "./services/reliability/record.ts";
import { createOperations } from "./ops/index.ts";
import { serveMetricsApart } from "./routes/ops/metrics.ts";
import { finishRestoreReport } from "./ops/restore-report.ts";
import { markRunning } from "./ops/backup.ts";

export interface RunningServer {
  url: string;
  server: Server<unknown>;
  ctx: RootContext;
  site?: Site;
  /** The passes this process runs (api/schedule.ts); only the metrics' when started without workers. */
  schedule: RunningSchedule;
  /** Stops accepting, lets in-flight requests finish, then closes the database. Idempotent. */
  stop(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  /** Serve the built site too (default true). API-only when false. */
  site?: boolean;
  /** An already-open database (the dev stack opens it to seed first). */
  database?: DatabaseHandle;
  /** Run the background workers (outbox, indexer) in this process (default true). */
  workers?: boolean;
  /** Extra routes of the embedded default (createApp's extraRoutes). */
  extraRoutes?: CreateAppOptions["extraRoutes"];
  /**
   * Wraps what the server answers (besides the health check): the test entry
   * (testing/fault-server.ts) checks every answer against the API
   * document there. Production passes nothing and checks nothing.
   */
  checkAnswers?: (fetch: ServerFetch, log: Logger) => ServerFetch;
}

/** The server's fetch handler. */
export type ServerFetch = (request: Request, server: Server<undefined>) => Response | Promise<Response>;

/** vscode://issuepool.issuepool/auth → vscode://issuepool.issuepool (a non-special URL has no origin to ask for). */
const editorUriOf = (redirectUri: string) => {
  const url = new URL(redirectUri);
  return `${url.protocol}//${url.host}`;
};

export function runtimeConfig(env: Env): RuntimeConfig {
  const network = NETWORKS[env.CHAIN]!;
  return {
    supportEmail: env.SUPPORT_EMAIL,
    supportChatScriptUrl: env.SUPPORT_CHAT_SCRIPT_URL ?? "",
    networkLabel: network.label,
    networkKind: network.kind,
    explorerUrl: network.explorerUrl,
    editorUri: editorUriOf(env.VSCODE_REDIRECT_URI),
    publicUrl: env.PUBLIC_URL,
  };
}

/** Builds the application context: database (migrated), workers, health checks. */
export async function createContext(env: Env, options: StartOptions = {}): Promise<RootContext> {
  const log = options.log ?? loggerFromEnv(env);
  if (!options.database) assertWritableDataDir(env);
  const database =
    options.database ??
    (await openDatabase(env.DATABASE_URL, { authToken: env.DATABASE_AUTH_TOKEN, busyTimeoutMs: env.DATABASE_BUSY_TIMEOUT_MS }));
  await migrateDatabase(database);
  // The sponsors' records and the boards' totals, built once for a database from before them (issue 30).
  await ensureRecords(database.db);
  database.storage.onChange((full, err) =>
    full
      ? log.warn("storage full: writes are refused (503) until space returns", { database: database.url, err: (err as Error)?.message })
      : log.info("storage writable again", { database: database.url }),
  );
  const keyring = await createKeyring(env.ENCRYPTION_KEYS);
  await upgradeWalletKeyContexts({ keyring, database, log });
  const appSecret = decodeBase64(env.APP_SECRET.trim());
  const chain = createChainAccess(env);
  const changes = new ChangeFeed();
  const outbox = new Outbox({ db: database.db, chain, keyring, log });
  const indexer = new RewardsIndexer({ db: database.db, chain, log, onChange: (tags) => changes.publish(tags), onRewind: (detail) => ops.metrics.rewound(detail) });
  const startup = new StartupRepair();
  const ops = createOperations({ database, chain, indexer, log, startup });
  const mailer = createMailer(env, log);
  // The workers are built before the context they belong to (no half-built context); the webhook worker's handler
  // and after-pass reach the context when they run.
  const webhooks = new WebhookWorker({
    db: database.db,
    log,
    retry: { baseMs: env.WEBHOOK_RETRY_BASE_MS, maxMs: env.WEBHOOK_RETRY_MAX_MS, windowMs: env.WEBHOOK_RETRY_HOURS * 3_600_000 },
    handlers: { github: (delivery) => handleGitHubDelivery(ctx, delivery) },
    afterPass: () => afterWebhookPass(ctx),
    // A failure because GitHub did not answer is retried as soon as GitHub answers again (schedule: "github-return").
    waitingOn: (err) => (isGitHubUnavailable(err) ? "github" : null),
  });
  const outbound = new OutboundWorker({
    db: database.db,
    keyring,
    log,
    publicUrl: env.PUBLIC_URL,
    githubUrl: env.GITHUB_URL,
    allowLoopback: env.OUTBOUND_ALLOW_LOOPBACK,
    timeoutMs: env.OUTBOUND_TIMEOUT_MS,
    retry: { baseMs: env.OUTBOUND_RETRY_BASE_MS, maxMs: env.OUTBOUND_RETRY_MAX_MS, windowMs: env.OUTBOUND_RETRY_HOURS * 3_600_000 },
    paymentsInFlight: () => moneyInFlight(database.db),
  });
  // Its own pooled connections: thousands of digests should not queue behind, or hold up, a one-time code.
  const digest = new DigestWorker({ db: database.db, log, mailer: createMailer(env, log, { pool: true }), appSecret, publicUrl: env.PUBLIC_URL, hourUtc: env.DIGEST_HOUR_UTC });
  const extractor = new Extractor();
  const ctx: RootContext = {
    env,
    clock: systemClock,
    database,
    log,
    keyring,
    appSecret,
    chain,
    outbox,
    indexer,
    reconciler: new ChainReconciler({ db: database.db, chain, log, indexer, onRepair: ops.metrics.repaired }),
    startup,
    changes,
    mailer,
    responseCache: new PageCache(5000),
    webhooks,
    outbound,
    digest,
    scoping: new ScopingWorker({ db: database.db, log, leaseMs: env.SCOPING_LEASE_MS, planner: plannerFor({ env, extractor }), extract: (bytes) => extractor.extract(bytes) }),
    extractor,
    compute: new ComputeDispatcher({ db: database.db, log, settings: computeSettings(env) }),
    healthChecks: { chain: () => timed(chainProbe(chain, HEALTH_CHECK_TIMEOUT_MS)) },
    ops,
  };
  changes.subscribe((tags) => tags.forEach((tag) => ctx.responseCache.invalidate(tag)));
  return ctx;
}

export async function startServer(env: Env, options: StartOptions = {}): Promise<RunningServer> {
  const ctx = await createContext(env, options);
  // While this process has the embedded database open, `npm run restore` refuses to replace it (api/ops/backup.ts).
  const unmarkRunning = ctx.database.embedded && env.DATABASE_URL.startsWith("file:") ? markRunning(filePath(env.DATABASE_URL)) : undefined;
  const runtime = runtimeConfig(env);
  // What the pages read, handed to them through `locals` (the context does not carry it).
  const services = createServices(ctx);
  const site =
    options.site === false
      ? undefined
      : await createSite({
          distDir: env.SITE_DIST_DIR,
          runtime,
          trustProxy: env.TRUST_PROXY,
          locals: (c) => ({ runtime, services, viewer: () => currentViewer(ctx, c) }),
          signedIn: hasSessionCookie(env),
        });
  const app = createApp(ctx, { site: site?.mount, extraRoutes: options.extraRoutes });
  if (site) ctx.changes.subscribe((tags) => tags.forEach((tag) => site.pageCache.invalidate(tag)));
  // Repaired before trusted (api/startup.ts): the platform's beliefs about the chain are checked against it first,
  // without waiting for a lease a killed process left; money requests wait for it, and so do the passes that move
  // money. Every periodic pass is declared once, in api/schedule.ts.
  let stopping: Promise<void> | undefined;
  ctx.startup.begin();
  const repaired = ctx.startup.run(
    async () => {
      const r = await ctx.reconciler.runOnce({ withoutLease: true });
      return { repaired: r.rebroadcast.length + r.resent.length + r.moved.length + (r.chainReplaced ? 1 : 0) };
    },
    ctx.log,
    () => stopping !== undefined,
  );
  // A process without workers (the API apart from them) still collects the figures of its own /metrics.
  ctx.ops.metrics.withProcessMetrics();
  const schedule = startSchedule(ctx, { only: options.workers === false ? ["metrics"] : undefined, repaired: ctx.startup.repaired });
  // After a restore: what the chain knows that the backup did not, once the start-up check is done (restore-report.ts).
  const restoreReport = options.workers !== false ? finishRestoreReport(ctx) : undefined;
  // /metrics on a port of its own when configured (else on the main port: api/routes/ops/metrics.ts).
  const metricsServer = serveMetricsApart(env, ctx.ops.metrics, ctx.log);

  // The health check is polled hard by load balancers: Bun's router answers it directly (same answer, headers and log line).
  const health = edgeRoute(env, ctx.log, "/api/health", healthResponder(ctx), ctx.ops.metrics.observeRequest);
  // Cached public reads and pages, and built files, leave before the app too (docs/performance.md).
  const early = earlyAnswers(env, ctx.log, [publicReadsSource(ctx.responseCache), ...(site ? [site.early] : [])], ctx.ops.metrics.observeRequest);
  const answer: ServerFetch = (request, srv) => early(request) ?? app.fetch(request, srv);
  const server = Bun.serve({
    hostname: env.HOST,
    port: env.PORT,
    routes: { "/api/health": { GET: health, HEAD: health } },
    fetch: options.checkAnswers ? options.checkAnswers(answer, ctx.log) : answer,
    // Long enough for the 15 s bounty allocation wait; Bun's default is 10 s.
    idleTimeout: 30,
  });
  const url = `http://${env.HOST.includes(":") ? `[${env.HOST}]` : env.HOST}:${server.port}`;
  ctx.log.info("listening", { url, publicUrl: env.PUBLIC_URL });
  // The whole public list (GET /api/repositories/public: 100,000 repositories at 100x, seconds to build and compress)
  // made and kept in the background, so its first client is served from the cache (docs/performance.md).
  const warm = setTimeout(() => {
    Promise.resolve(answer(new Request(`${url}/api/repositories/public`, { headers: { "Accept-Encoding": "gzip" } }), server))
      .then((res) => res.arrayBuffer())
      .catch((err) => ctx.log.debug("the public list was not made ahead", { err: (err as Error).message }));
  }, 0);

  const stop = () =>
    (stopping ??= (async () => {
      ctx.log.info("shutting down");
      clearTimeout(warm);
      // Long polls and waiting chats end first, or the server would wait for them.
      await ctx.compute.stop();
      await server.stop();
      await repaired;
      await schedule.stop();
      await restoreReport?.stop();
      metricsServer?.stop(true);
      ctx.extractor.close();
      ctx.mailer.close();
      ctx.database.close();
      unmarkRunning?.();
      ctx.log.info("stopped");
    })());

  return { url, server, ctx, site, schedule, stop };
}

/**
 * Stops `running` on SIGTERM/SIGINT, then exits. A later signal does not cut the stop short: a terminal's Ctrl-C
 * reaches this process twice (from the terminal, and passed on by npm), and exiting then would kill the local chain
 * in the middle of its final save (issue 24). A supervisor that will not wait sends SIGKILL.
 */
export function stopOnSignals(stop: () => Promise<void>, log: Logger): void {
  let signalled = false;
  const onSignal = (signal: string) => {
    if (signalled) {
      log.info("signal received while stopping: still stopping", { signal });
      return;
    }
    signalled = true;
    log.info("signal received", { signal });
    stop().then(
      () => process.exit(0),
      (err) => {
        log.error("shutdown failed", { err });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
}
