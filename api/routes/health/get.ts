import { ANONYMOUS, declareRoute, json, z } from "../../openapi/declare.ts";
import { Hono } from "hono";
import { sql } from "drizzle-orm";
import type { AppBindings, AppContext, HealthCheckResult } from "../../context.ts";
import { chainProbe } from "../../chain/clients.ts";
import { probeDatabaseWrite } from "../../ops/collector.ts";

/** How long one round of probes answers every health request. */
export const HEALTH_PROBE_REUSE_MS = 1000;
/** A dependency that has not answered in this long is down (a hung node or database must not hang the health check). */
export const HEALTH_CHECK_TIMEOUT_MS = 1000;

/**
 * GET /api/health: 200 when every dependency answers, 503 otherwise, with
 * each dependency's status and latency. Probing is single-flight and a
 * round's result answers requests for the next second, so a load balancer
 * (or an attacker) polling hard cannot turn health checks into database load.
 */
export function healthRoutes(ctx: AppContext) {
  const respond = healthResponder(ctx);
  const ready = readinessResponder(ctx);
  const live = JSON.stringify({ status: "live" });
  return new Hono<AppBindings>()
    .get("/", () => respond())
    // The process answers: nothing is probed (a load balancer restarts an instance that stops answering this).
    .get("/live", () => new Response(live, { headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } }))
    .get("/ready", () => ready());
}

/**
 * GET /api/health/ready: 200 when this instance can serve money requests, 503
 * otherwise, so a load balancer sends them elsewhere: the database takes a
 * write (a probe row, not just a read), the chain answers, the indexer is
 * within READY_MAX_LAG_BLOCKS of the chain's head, and the start-up check
 * against the chain has completed (api/startup.ts). One round of
 * probes answers for a second, as the health check's.
 */
export function readinessResponder(ctx: Pick<AppContext, "env" | "database" | "chain" | "indexer" | "startup">): () => Promise<Response> {
  const head = chainProbe(ctx.chain, HEALTH_CHECK_TIMEOUT_MS);
  let last: { at: number; ok: boolean; json: string } | undefined;
  let inflight: Promise<ReadinessReport> | undefined;
  const probe = async (): Promise<ReadinessReport> => {
    const [database, chain] = await Promise.all([
      withTimeout(timed(() => probeDatabaseWrite(ctx.database))),
      withTimeout(
        (async () => {
          const started = performance.now();
          const block = await head();
          return { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10, headBlock: Number(block) };
        })().catch(() => ({ ok: false, latencyMs: 0 })),
      ),
    ]);
    const cursor = await ctx.indexer.lastIndexedBlock().catch(() => null);
    const headBlock = (chain as { headBlock?: number }).headBlock;
    const indexed = cursor === null ? Number(ctx.chain.config.contracts.deployedBlock) - 1 : Number(cursor);
    const lagBlocks = headBlock === undefined ? null : Math.max(0, headBlock - indexed);
    const indexer = { ok: lagBlocks !== null && lagBlocks <= ctx.env.READY_MAX_LAG_BLOCKS, lagBlocks, maxLagBlocks: ctx.env.READY_MAX_LAG_BLOCKS };
    const repair = ctx.startup;
    const startupRepair = { ok: repair.isDone, state: repair.state, ...(repair.detail ? { detail: repair.detail } : {}) };
    const ok = database.ok && chain.ok && indexer.ok && startupRepair.ok;
    return { status: ok ? "ready" : "not_ready", checkedAt: new Date().toISOString(), checks: { database, chain, indexer, startupRepair } };
  };
  const headers = new Headers({ "Content-Type": "application/json", "Cache-Control": "no-store" });
  return async () => {
    if (!last || Date.now() - last.at >= HEALTH_PROBE_REUSE_MS) {
      inflight ??= probe().finally(() => (inflight = undefined));
      const report = await inflight;
      last = { at: Date.now(), ok: report.status === "ready", json: JSON.stringify(report) };
    }
    return new Response(last.json, { status: last.ok ? 200 : 503, headers });
  };
}

type ReadinessReport = { status: "ready" | "not_ready"; checkedAt: string; checks: Record<string, unknown> };

/** A probe that has not answered within the health check's limit has failed (a hung database or node). */
function withTimeout<T extends { ok: boolean; latencyMs: number }>(check: Promise<T>): Promise<T | HealthCheckResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<HealthCheckResult>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, latencyMs: HEALTH_CHECK_TIMEOUT_MS }), HEALTH_CHECK_TIMEOUT_MS);
  });
  return Promise.race([check, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The health answer, for the Hono route above and for the server's native
 * route (api/server.ts), which answers the same without going through Hono.
 */
export function healthResponder(ctx: Pick<AppContext, "database" | "healthChecks">): () => Promise<Response> {
  let last: { at: number; ok: boolean; json: string } | undefined;
  let inflight: Promise<HealthReport> | undefined;

  const probe = async (): Promise<HealthReport> => {
    const checks: Record<string, () => Promise<HealthCheckResult>> = {
      database: () => timed(async () => void (await ctx.database.db.run(sql`select 1`))),
      ...ctx.healthChecks,
    };
    const results: Record<string, HealthCheckResult> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<HealthCheckResult>((resolve) => {
          timer = setTimeout(() => resolve({ ok: false, latencyMs: HEALTH_CHECK_TIMEOUT_MS }), HEALTH_CHECK_TIMEOUT_MS);
        });
        results[name] = await Promise.race([check().catch(() => ({ ok: false, latencyMs: 0 })), timeout]);
        clearTimeout(timer);
      }),
    );
    const ok = Object.values(results).every((r) => r.ok);
    return { status: ok ? "ok" : "degraded", checkedAt: new Date().toISOString(), ...results };
  };

  // One Headers object for every answer: the Response copies it (cheaper than building one from a plain object).
  const headers = new Headers({ "Content-Type": "application/json", "Cache-Control": "no-store" });
  return async () => {
    if (!last || Date.now() - last.at >= HEALTH_PROBE_REUSE_MS) {
      inflight ??= probe().finally(() => (inflight = undefined));
      const report = await inflight;
      last = { at: Date.now(), ok: report.status === "ok", json: JSON.stringify(report) };
    }
    return new Response(last.json, { status: last.ok ? 200 : 503, headers });
  };
}

type HealthReport = { status: "ok" | "degraded"; checkedAt: string } & Record<string, unknown>;

export async function timed(probe: () => Promise<unknown>): Promise<HealthCheckResult> {
  const started = performance.now();
  try {
    await probe();
    return { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch {
    return { ok: false, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  }
}

const HealthReportBody = z
  .object({ status: z.enum(["ok", "degraded"]), checkedAt: z.string() })
  .catchall(z.object({ ok: z.boolean(), latencyMs: z.number() }))
  .meta({ description: "One entry per dependency (database, chain): { ok, latencyMs }" });

const Probe = z.object({ ok: z.boolean(), latencyMs: z.number() });
const ReadinessBody = z
  .object({
    status: z.enum(["ready", "not_ready"]),
    checkedAt: z.string(),
    checks: z.object({
      database: Probe,
      chain: Probe.extend({ headBlock: z.number().int().optional() }),
      indexer: z.object({ ok: z.boolean(), lagBlocks: z.number().int().nullable(), maxLagBlocks: z.number().int() }),
      startupRepair: z.object({ ok: z.boolean(), state: z.enum(["pending", "done", "failed"]), detail: z.string().optional() }),
    }),
  })
  .meta({ description: "Each condition of readiness, and whether it holds" });

export const healthApi = [
  declareRoute({
    method: "get", path: "/api/health", operationId: "getHealth", tags: ["public"], security: ANONYMOUS,
    summary: "Whether every dependency answers (for load balancers)",
    responses: { 200: json("Healthy", HealthReportBody), 503: json("Degraded", HealthReportBody) },
  }),
  declareRoute({
    method: "get", path: "/api/health/live", operationId: "getLiveness", tags: ["public"], security: ANONYMOUS,
    summary: "Whether the process answers (for a supervisor's liveness check)",
    responses: { 200: json("The process answers", z.object({ status: z.literal("live") })) },
  }),
  declareRoute({
    method: "get", path: "/api/health/ready", operationId: "getReadiness", tags: ["public"], security: ANONYMOUS,
    summary: "Whether this instance can serve money requests: database writable, chain reachable and caught up, start-up repair done",
    responses: { 200: json("Ready", ReadinessBody), 503: json("Not ready", ReadinessBody) },
  }),
];
