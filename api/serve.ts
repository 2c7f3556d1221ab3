/**
 * Production entry: `bun api/serve.ts`. Reads configuration, migrates, serves
 * the API and the built site on one port, and shuts down gracefully.
 */
import { ConfigError, loadEnv } from "./env.ts";
import { loggerFromEnv } from "./logger-config.ts";
import { startServer, stopOnSignals, type StartOptions } from "./server.ts";

/** Serves from the environment until SIGTERM/SIGINT; bad configuration exits 78 with the variable named. */
export async function serveFromEnvironment(options: Pick<StartOptions, "site" | "checkAnswers"> = {}): Promise<void> {
  try {
    const env = loadEnv();
    const log = loggerFromEnv(env);
    const running = await startServer(env, { ...options, log });
    stopOnSignals(running.stop, log);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }
}

if (import.meta.main) await serveFromEnvironment();
