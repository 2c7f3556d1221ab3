import { loadEnv, type Env } from "../env.ts";
import { createMemoryLogger } from "../logger.ts";
import { createContext } from "../server.ts";
import { createApp, type CreateAppOptions } from "../app.ts";
import type { AppContext } from "../context.ts";
import { openDatabase } from "../../db/client.ts";
import { sharedTestSecrets } from "../../scripts/lib/dev-secrets.ts";

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
  ctx: AppContext;
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
  const log = createMemoryLogger();
  const database = await openDatabase(env.DATABASE_URL);
  const ctx = await createContext(env, { log, database });
  const app = createApp(ctx, appOptions);
  return { ctx, env, log, app, close: () => database.close() };
}

/** Configuration for tests: NODE_ENV=test, generated secrets, in-memory database, then `overrides`. */
export async function testEnv(overrides: Record<string, string | number | undefined> = {}): Promise<Env> {
  const { GITHUB_APP_PUBLIC_KEY: _public, ...secrets } = await sharedTestSecrets();
  return loadEnv({ NODE_ENV: "test", DATABASE_URL: ":memory:", ...secrets, ...overrides }, {});
}

export async function makeTempDir(prefix = "issuepool-test-"): Promise<string> {
  const { mkdtemp } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  return mkdtemp(join(tmpdir(), prefix));
}
