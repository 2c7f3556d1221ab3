import type { DatabaseHandle } from "../../db/client.ts";
import type { ChainAccess } from "../chain/clients.ts";
import type { Logger } from "../logger.ts";
import { MetricsCollector } from "./collector.ts";
import { PlatformMetrics } from "./metrics.ts";
import type { StartupRepair } from "../startup.ts";

/**
 * What running the platform for real needs at hand (issue 41): the metrics,
 * the collection pass that fills them (started by the composition root), and
 * readiness reads the start-up check (`ctx.startup`, api/startup.ts). Part of the context
 * (`ctx.ops`), so /metrics, /api/health/ready and the operator's page read
 * the same figures.
 */
export interface Operations {
  metrics: PlatformMetrics;
  collector: MetricsCollector;
}

export function createOperations(
  deps: { database: DatabaseHandle; chain: ChainAccess; indexer: { lastIndexedBlock(): Promise<bigint | null> }; log: Logger; startup: StartupRepair },
  metrics = new PlatformMetrics(),
): Operations {
  return { metrics, collector: new MetricsCollector({ ...deps, metrics }) };
}

export { PlatformMetrics } from "./metrics.ts";
