import { ANONYMOUS, declareRoute, json, z } from "../../openapi/declare.ts";
import { Hono } from "hono";
import { sql } from "drizzle-orm";
import type { AppBindings, AppContext, HealthCheckResult } from "../../context.ts";

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
  return new Hono<AppBindings>().get("/", () => respond());
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

export const healthApi = [
  declareRoute({
    method: "get", path: "/api/health", operationId: "getHealth", tags: ["public"], security: ANONYMOUS,
    summary: "Whether every dependency answers (for load balancers)",
    responses: { 200: json("Healthy", HealthReportBody), 503: json("Degraded", HealthReportBody) },
  }),
];
