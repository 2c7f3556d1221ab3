import type { Server } from "bun";
import type { Context, Handler } from "hono";
import { constantTimeEqualStrings } from "../../crypto/tokens.ts";
import type { AppBindings, AppContext } from "../../context.ts";
import type { Env } from "../../env.ts";
import type { Logger } from "../../logger.ts";
import type { PlatformMetrics } from "../../ops/metrics.ts";

/**
 * GET /metrics: the platform's figures in Prometheus's text format
 * (api/ops/metrics.ts, docs/operations.md). Who may read them:
 *
 * - METRICS_PORT set: nobody here (404); they are served on that port's own
 *   listener (`serveMetricsApart`), which only what reaches that port can ask.
 * - METRICS_TOKEN set: callers that send `Authorization: Bearer <token>`
 *   (401 otherwise).
 * - Neither: callers on this machine (a loopback socket with no proxy header:
 *   a reverse proxy on the same host forwards other people's requests), so
 *   `curl localhost:3000/metrics` works in the embedded default; never in
 *   production (404), where a token or a port of its own must be configured.
 */
export function metricsRoute(ctx: Pick<AppContext, "env" | "ops">): Handler<AppBindings> {
  const { env } = ctx;
  return async (c) => {
    const allowed = metricsAllowed(env, c);
    if (allowed !== true) return c.text(allowed === "unauthorized" ? "Unauthorized\n" : "Not Found\n", allowed === "unauthorized" ? 401 : 404, allowed === "unauthorized" ? { "WWW-Authenticate": 'Bearer realm="metrics"' } : {});
    return exposition(ctx.ops.metrics);
  };
}

function metricsAllowed(env: Env, c: Context): true | "unauthorized" | "not_found" {
  if (env.METRICS_PORT !== undefined) return "not_found";
  if (env.METRICS_TOKEN) return bearerMatches(c.req.header("authorization"), env.METRICS_TOKEN) ? true : "unauthorized";
  if (env.NODE_ENV === "production") return "not_found";
  if (c.req.header("x-forwarded-for") || c.req.header("forwarded")) return "not_found";
  const server = c.env as Server<unknown> | undefined;
  const address = typeof server?.requestIP === "function" ? server.requestIP(c.req.raw)?.address : undefined;
  // No socket at all: an in-process request (tests), which comes from nowhere but this process.
  return address === undefined || isLoopback(address) ? true : "not_found";
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)$/i.exec(header ?? "")?.[1];
  return given !== undefined && constantTimeEqualStrings(given, token);
}

export function isLoopback(address: string): boolean {
  return address === "::1" || /^(::ffff:)?127\./.test(address);
}

async function exposition(metrics: PlatformMetrics): Promise<Response> {
  return new Response(await metrics.text(), { headers: { "Content-Type": metrics.contentType, "Cache-Control": "no-store" } });
}

/** The listener of METRICS_PORT (METRICS_HOST), when configured: /metrics only, with the token when one is set. */
export function serveMetricsApart(env: Env, metrics: PlatformMetrics, log: Logger): Server<undefined> | undefined {
  if (env.METRICS_PORT === undefined) return undefined;
  const server = Bun.serve({
    hostname: env.METRICS_HOST,
    port: env.METRICS_PORT,
    fetch: (request) => {
      if (new URL(request.url).pathname !== "/metrics" || request.method !== "GET") return new Response("Not Found\n", { status: 404 });
      if (env.METRICS_TOKEN && !bearerMatches(request.headers.get("authorization") ?? undefined, env.METRICS_TOKEN)) {
        return new Response("Unauthorized\n", { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="metrics"' } });
      }
      return exposition(metrics);
    },
  });
  log.info("metrics listening", { url: `http://${env.METRICS_HOST}:${server.port}/metrics` });
  return server;
}
