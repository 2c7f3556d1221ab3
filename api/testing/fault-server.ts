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
import { serveFromEnvironment } from "../serve.ts";

await serveFromEnvironment({ site: false });
