import { loadEnv, type Env } from "../api/env.ts";
import { makeTempDir } from "./temp-dirs.ts";
import { createMemoryLogger } from "../api/logger.ts";
import { logRedaction } from "../api/logger-config.ts";
import { createContext } from "../api/server.ts";
import { createApp, type CreateAppOptions } from "../api/app.ts";
import type { RootContext } from "../api/context.ts";
import { openDatabase } from "../db/client.ts";
import { sharedTestSecrets } from "../scripts/lib/dev-secrets.ts";
import { checkedFetch } from "../api/openapi/conformance.ts";

export interface TestContextOptions {
  /** Environment values for this test (defaults: NODE_ENV=test, in-memory database). */
  env?: Record<string, string | number | undefined>;
  /**
   * A file database in a fresh temp directory instead of `:memory:`: needed
   * when requests run concurrently with transactions (an in-memory libSQL
   * database has a single connection).
   */
  fileDatabase?: boolean;
}

export interface TestContext {
  ctx: RootContext;
  env: Env;
  log: ReturnType<typeof createMemoryLogger>;
  app: ReturnType<typeof createApp>;
  close(): void;
}

/** A migrated database, a memory logger and the real app, for in-process tests. */
export async function createTestContext(options: TestContextOptions = {}, appOptions: CreateAppOptions = {}): Promise<TestContext> {
  const dir = options.fileDatabase ? await makeTempDir() : undefined;
  // Test sessions come from their own addresses through a trusted proxy header (see testing/auth.ts).
  const env = await testEnv({ LOG_LEVEL: "debug", TRUST_PROXY: "true", DATABASE_URL: dir ? `file:${dir}/app.db` : ":memory:", DATA_DIR: dir ?? "data", ...options.env });
  // The logger as the server configures it (the secrets' values redacted: api/logger-config.ts), remembering lines.
  const log = createMemoryLogger("debug", { redaction: logRedaction(env) });
  const database = await openDatabase(env.DATABASE_URL);
  const ctx = await createContext(env, { log, database });
  if (!options.env?.CHAIN_RPC_URL) delete ctx.healthChecks.chain;
  const app = createApp(ctx, appOptions);
  // Every JSON answer a test receives is checked against the API document (api/openapi/conformance.ts); app.request
  // goes through app.fetch, and so does the HTTP listener of testing/stack.ts.
  app.fetch = checkedFetch(app.fetch);
  return { ctx, env, log, app, close: () => {
      void ctx.compute.stop();
      ctx.extractor.close();
      database.close();
    } };
}

/**
 * Configuration for tests: NODE_ENV=test, generated secrets, an in-memory
 * database and, unless a test brings its own chain (testing/chain.ts), chain
 * settings that point nowhere; then `overrides`.
 */
export async function testEnv(overrides: Record<string, string | number | undefined> = {}): Promise<Env> {
  const { GITHUB_APP_PUBLIC_KEY: _public, ONRAMP_APP_ID: _id, ONRAMP_APP_SECRET: _secret, ...secrets } = await sharedTestSecrets();
  return loadEnv({ NODE_ENV: "test", DATABASE_URL: ":memory:", ...NO_CHAIN, ...NO_EXTERNALS, ...secrets, ...overrides }, {});
}

/** Mail and on-ramp settings for tests that do not send mail or buy XDC (nothing listens there). */
export const NO_EXTERNALS = {
  SMTP_URL: "smtp://127.0.0.1:9",
  ONRAMP_APP_ID: "test-app",
  ONRAMP_APP_SECRET: "test-onramp-secret-0123456789",
  ONRAMP_URL: "http://127.0.0.1:9",
};

/** A chain that is never reached: API tests that do not move money. */
export const NO_CHAIN = {
  CHAIN_RPC_URL: "http://127.0.0.1:9",
  REWARDS_CONTRACT_ADDRESS: "0x000000000000000000000000000000000000dEaD",
  ROXN_TOKEN_ADDRESS: "0x000000000000000000000000000000000000bEEF",
  USDC_TOKEN_ADDRESS: "0x000000000000000000000000000000000000cAFE",
  // anvil's well-known account #1; only ever used against a local test chain
  OPERATOR_PRIVATE_KEY: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
};

export { makeTempDir };
