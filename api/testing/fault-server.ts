/**
 * The platform as a separate OS process, for fault tests and the chain
 * benchmark (spawned by api/testing/process-stack.ts): the same
 * `startServer()` as `api/serve.ts`, with its background workers, but
 * API-only (no built site, so it runs on a fresh clone). Configured only by
 * the environment it is given, so a test can SIGKILL it and start it again
 * on the same database file and the same chain.
 *
 *   bun api/testing/fault-server.ts   (environment: everything api/env.ts reads)
 */
import { ConfigError, loadEnv } from "../env.ts";
import { createLogger } from "../logger.ts";
import { startServer, stopOnSignals } from "../server.ts";

try {
  const env = loadEnv();
  const log = createLogger(env.LOG_LEVEL, undefined, {}, env.LOG_FORMAT);
  const running = await startServer(env, { log, site: false });
  stopOnSignals(running.stop, log);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(78);
  }
  throw err;
}
