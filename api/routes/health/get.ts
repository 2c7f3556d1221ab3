import { Hono } from "hono";
import { sql } from "drizzle-orm";
import type { AppBindings, AppContext, HealthCheckResult } from "../../context.ts";

/**
 * GET /api/health: 200 when every dependency answers, 503 otherwise, with
 * each dependency's status and latency. Never cached.
 */
export function healthRoutes(ctx: AppContext) {
  return new Hono<AppBindings>().get("/", async (c) => {
    const checks: Record<string, () => Promise<HealthCheckResult>> = {
      database: () => timed(async () => void (await ctx.database.db.run(sql`select 1`))),
      ...ctx.healthChecks,
    };
    const results: Record<string, HealthCheckResult> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        results[name] = await check().catch(() => ({ ok: false, latencyMs: 0 }));
      }),
    );
    const ok = Object.values(results).every((r) => r.ok);
    c.header("Cache-Control", "no-store");
    return c.json({ status: ok ? "ok" : "degraded", ...results }, ok ? 200 : 503);
  });
}

export async function timed(probe: () => Promise<unknown>): Promise<HealthCheckResult> {
  const started = performance.now();
  try {
    await probe();
    return { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch {
    return { ok: false, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  }
}
