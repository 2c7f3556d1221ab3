/**
 * The platform as a separate OS process, for fault tests and the chain
 * benchmark (spawned by testing/process-stack.ts): the same
 * `startServer()` as `api/serve.ts`, with its background workers, but
 * API-only (no built site, so it runs on a fresh clone). Configured only by
 * the environment it is given, so a test can SIGKILL it and start it again
 * on the same database file and the same chain.
 *
 *   bun testing/fault-server.ts   (environment: everything api/env.ts reads)
 */
import { serveFromEnvironment } from "../api/serve.ts";

// In tests (CHECK_API_ANSWERS=1, set by process-stack.ts) every answer is checked against the API document, as the
// in-process test app's are (testing/context.ts); a mismatch is logged, and the harness fails the test when it stops
// this server. Benchmarks leave it out (and do not load the checker).
const checkAnswers = process.env.CHECK_API_ANSWERS === "1" ? (await import("../api/openapi/conformance.ts")).answersCheckedAgainstDocument : undefined;
await serveFromEnvironment({ site: false, checkAnswers });
