/**
 * The embedded default: everything Issuepool needs, on this machine, with
 * demo data and no configuration. `npm start` runs this.
 *
 * Order: build the site if needed, open and migrate the database, seed demo
 * data (idempotent), start the platform. Ctrl-C (or SIGTERM) stops every
 * part cleanly; running it again continues on the same data in DATA_DIR.
 */
import { buildSite } from "./build-site.ts";
import { ConfigError, configuredDataDir, loadEnv, type Env } from "../api/env.ts";
import { createLogger, type Logger } from "../api/logger.ts";
import { startServer, stopOnSignals, type RunningServer } from "../api/server.ts";
import { migrateDatabase, openDatabase } from "../db/client.ts";
import { seedDemoData } from "../db/seed.ts";
import { loadOrCreateDevSecrets } from "./lib/dev-secrets.ts";

export interface DevStack {
  env: Env;
  url: string;
  server: RunningServer;
  stop(): Promise<void>;
}

export interface DevStackOptions {
  /** Values that win over the environment (tests pass PORT, DATA_DIR, ...). */
  overrides?: Record<string, string | number | undefined>;
  log?: Logger;
  /** Skip the site build check (the caller built it). */
  skipBuild?: boolean;
}

export async function startDevStack(options: DevStackOptions = {}): Promise<DevStack> {
  const dataDir = String(options.overrides?.DATA_DIR ?? configuredDataDir());
  const { GITHUB_APP_PUBLIC_KEY: _publicKey, ...secrets } = await loadOrCreateDevSecrets(dataDir);
  const env = loadEnv(options.overrides, process.env, { LOG_FORMAT: "pretty", ...secrets });
  const log = options.log ?? createLogger(env.LOG_LEVEL, undefined, {}, env.LOG_FORMAT);
  const stops: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    if (!options.skipBuild) await buildSite();
    const database = await openDatabase(env.DATABASE_URL, {
      authToken: env.DATABASE_AUTH_TOKEN,
      busyTimeoutMs: env.DATABASE_BUSY_TIMEOUT_MS,
    });
    stops.push(() => database.close());
    await migrateDatabase(database);
    await seedDemoData(database.db, { githubUrl: env.GITHUB_URL });

    const server = await startServer(env, { log, database });
    stops.pop(); // the server closes the database when it stops
    stops.push(server.stop);
    return { env, url: env.PUBLIC_URL, server, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

function banner(stack: DevStack): string {
  return [
    "",
    "  Issuepool is running (embedded default: demo data, local services)",
    "",
    `  Open            ${stack.url}`,
    `  Data            ${stack.env.DATA_DIR}/ (delete it to start from scratch)`,
    "",
    "  Press Ctrl-C to stop.",
    "",
  ].join("\n");
}

if (import.meta.main) {
  try {
    const stack = await startDevStack();
    console.log(banner(stack));
    stopOnSignals(stack.stop, createLogger("info", undefined, {}, "pretty"));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  }
}
