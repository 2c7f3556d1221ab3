import type { Env } from "./env.ts";
import type { Clock } from "./clock.ts";
import type { Logger } from "./logger.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { Keyring } from "./crypto/keyring.ts";
import type { Session, User } from "../db/schema/index.ts";
import type { ChainAccess } from "./chain/clients.ts";
import type { Outbox, OutboxPort } from "./chain/outbox.ts";
import type { IndexerPort, RewardsIndexer } from "./chain/indexer.ts";
import type { ChangeFeed } from "./changes.ts";
import type { Mailer } from "./mail/mailer.ts";
import type { PageCache } from "./site-host/page-cache.ts";
import type { BackgroundWorker, ComputeDispatch, DigestPort, DocumentExtractor, WebhookPort } from "./workers/ports.ts";
import type { StartupRepair } from "./startup.ts";
import type { ChainReconciler } from "./chain/outbox-reconciling.ts";
import type { Operations } from "./ops/index.ts";

/**
 * Everything a request handler may reach, built once at start (api/server.ts,
 * the composition root). A plain record: it imports no service and no worker
 * (workers appear through their ports, workers/ports.ts), and what it does
 * name (the outbox, the indexer) takes narrow dependencies, so any service may
 * take the context, or better a narrow part of it, without an import circle
 * (`npm test`'s layer check keeps it so; docs/where-things-go.md).
 */
export interface AppContext {
  env: Env;
  /** The platform's time for the rules measured in it (the daily funding limits); the system's outside tests. */
  clock: Clock;
  database: DatabaseHandle;
  log: Logger;
  /** Master keys for secrets at rest (wallet keys, GitHub tokens). */
  keyring: Keyring;
  /** Root key for the server's HMACs (decoded APP_SECRET). */
  appSecret: Uint8Array;
  chain: ChainAccess;
  /** Queues chain transactions (its port: the passes run in the composition root). */
  outbox: OutboxPort;
  /** Indexes the rewards contract's events (its port, as the outbox's). */
  indexer: IndexerPort;
  /** Data-changed notifications (page cache invalidation). */
  changes: ChangeFeed;
  mailer: Mailer;
  /** Public API answers kept in memory (see middleware/response-cache.ts). */
  responseCache: PageCache;
  /** Processes stored webhook deliveries. */
  webhooks: WebhookPort;
  /** Fans bounty events out to integrators' webhook endpoints and delivers them (docs/webhooks.md). */
  outbound: BackgroundWorker;
  /** Sends the daily digest of saved searches. */
  digest: DigestPort;
  /** Works AI scoping jobs (docs/ai-scoping.md). */
  scoping: BackgroundWorker;
  /** Reads uploaded documents off the event loop. */
  extractor: DocumentExtractor;
  /** Hands chat prompts to compute nodes that pull them (docs/compute-network.md). */
  compute: ComputeDispatch;
  /** Health probes of optional dependencies (chain, ...), added as areas come online. */
  healthChecks: Record<string, () => Promise<HealthCheckResult>>;
  /** The start-up check against the chain (api/startup.ts): money requests wait for it. */
  startup: StartupRepair;
  /** Metrics and their collection pass (api/ops/index.ts; docs/operations.md). */
  ops: Operations;
}

/**
 * What services declare they need: a `Pick` of the context with exactly the
 * fields they read (or pass on), so a reader sees a service's dependencies
 * in its signature. A full `AppContext` satisfies every one of them. The sets
 * that recur have names:
 */
/** Reads and writes rows, nothing else. */
export type DatabaseDeps = Pick<AppContext, "database">;
/** Talks to GitHub as the app or as a user (tokens sealed by the keyring), through the cache in the database. */
export type GitHubDeps = Pick<AppContext, "env" | "database" | "log" | "keyring">;
/** Reads the chain and queues transactions through the outbox. */
export type ChainSendDeps = Pick<AppContext, "chain" | "outbox">;

/**
 * The composition root's own handle on the context (api/server.ts, and the
 * tests through testing/): the outbox and the indexer as the classes, to
 * start, stop and drive their passes. Handlers and services get `AppContext`.
 */
export interface RootContext extends AppContext {
  outbox: Outbox;
  indexer: RewardsIndexer;
  /** The platform's beliefs checked against the chain (its passes are the schedule's). */
  reconciler: ChainReconciler;
}

export interface HealthCheckResult {
  ok: boolean;
  latencyMs: number;
  detail?: Record<string, unknown>;
}

/** Hono's per-request variables. */
export interface AppVariables {
  requestId: string;
  log: Logger;
  /** Set by loadSession when a browser session is present. */
  session?: Session;
  sessionToken?: string;
  /** The signed-in user (browser session, or an editor token on reads). */
  user?: User;
}

export type AppBindings = { Variables: AppVariables };
