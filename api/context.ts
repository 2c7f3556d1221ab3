import type { Env } from "./env.ts";
import type { Logger } from "./logger.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { Services } from "./services/index.ts";

/** Everything a request handler may reach, built once at start. */
export interface AppContext {
  env: Env;
  database: DatabaseHandle;
  log: Logger;
  services: Services;
  /** Health probes of optional dependencies (chain, ...), added as areas come online. */
  healthChecks: Record<string, () => Promise<HealthCheckResult>>;
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
}

export type AppBindings = { Variables: AppVariables };
