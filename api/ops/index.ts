import type { DatabaseHandle } from "../../db/client.ts";
import type { ChainAccess } from "../chain/clients.ts";
import type { Logger } from "../logger.ts";
import { MetricsCollector } from "./collector.ts";
import { PlatformMetrics } from "./metrics.ts";
import { StartupRepair } from "./startup-repair.ts";

/**
 * What running the platform for real needs at hand (issue 41): the metrics,
 * the collection pass that fills them (started by the composition root), and
 * the start-up repair's state that readiness waits on. Part of the context
 * (`ctx.ops`), so /metrics, /api/health/ready and the operator's page read
 * the same figures.
 */
export interface Operations {
  metrics: PlatformMetrics;
  startupRepair: StartupRepair;
  collector: MetricsCollector;
}

export function createOperations(deps: { database: DatabaseHandle; chain: ChainAccess; indexer: { lastIndexedBlock(): Promise<bigint | null> }; log: Logger }, metrics = new PlatformMetrics()): Operations {
  const startupRepair = new StartupRepair();
  return { metrics, startupRepair, collector: new MetricsCollector({ ...deps, metrics, startupRepair }) };
}

export { PlatformMetrics } from "./metrics.ts";
