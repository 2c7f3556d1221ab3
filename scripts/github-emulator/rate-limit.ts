/**
 * GitHub's primary rate limit: a budget per caller per hour (5000 for users,
 * installations and the app; 60 per IP address for anonymous callers),
 * separate for REST ("core") and GraphQL, reported on every response in the
 * x-ratelimit-* headers and answered with 403 once spent. The budgets are
 * configurable so tests can run out quickly.
 */
import type { MiddlewareHandler } from "hono";
import type { Caller } from "./access.ts";
import { apiError, type ApiEnv } from "./http.ts";
import type { World } from "./world.ts";

const WINDOW_S = 3600;
const DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api";

function bucketOf(world: World, caller: Caller): { key: string; limit: number; exceeded: string } {
  const { authenticated, anonymous } = world.config.rateLimits;
  switch (caller.kind) {
    case "anonymous":
      return {
        key: `ip:${caller.ip}`,
        limit: anonymous,
        exceeded: `API rate limit exceeded for ${caller.ip}. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)`,
      };
    case "user": {
      const id = world.user(caller.login)!.id;
      return { key: `user:${id}`, limit: authenticated, exceeded: `API rate limit exceeded for user ID ${id}.` };
    }
    case "installation":
      return { key: `installation:${caller.installation.id}`, limit: authenticated, exceeded: `API rate limit exceeded for installation ID ${caller.installation.id}.` };
    case "app":
      return { key: "app", limit: authenticated, exceeded: `API rate limit exceeded for app ID ${world.config.app.id}.` };
  }
}

export function rateLimit(world: World): MiddlewareHandler<ApiEnv> {
  const buckets = new Map<string, { used: number; reset: number }>();
  return async (c, next) => {
    const resource = c.req.path.endsWith("/graphql") ? "graphql" : "core";
    const { key, limit, exceeded } = bucketOf(world, c.get("caller"));
    const nowS = Math.floor(world.now() / 1000);
    let bucket = buckets.get(`${resource}:${key}`);
    if (!bucket || bucket.reset <= nowS) {
      bucket = { used: 0, reset: nowS + WINDOW_S };
      buckets.set(`${resource}:${key}`, bucket);
    }
    // GET /rate_limit reports the budgets and, as on GitHub, does not count against them.
    if (c.req.method === "GET" && c.req.path.endsWith("/rate_limit")) {
      const report = (name: string, used: number, reset: number) => ({ limit, used, remaining: Math.max(0, limit - used), reset, resource: name });
      const other = buckets.get(`${resource === "core" ? "graphql" : "core"}:${key}`);
      const core = resource === "core" ? bucket : other && other.reset > nowS ? other : { used: 0, reset: nowS + WINDOW_S };
      const graphql = resource === "graphql" ? bucket : other && other.reset > nowS ? other : { used: 0, reset: nowS + WINDOW_S };
      const resources = { core: report("core", core.used, core.reset), graphql: report("graphql", graphql.used, graphql.reset) };
      return c.json({ resources, rate: resources.core });
    }
    const over = bucket.used >= limit;
    if (!over) bucket.used += 1;
    c.header("x-ratelimit-limit", String(limit));
    c.header("x-ratelimit-remaining", String(Math.max(0, limit - bucket.used)));
    c.header("x-ratelimit-reset", String(bucket.reset));
    c.header("x-ratelimit-used", String(bucket.used));
    c.header("x-ratelimit-resource", resource);
    if (over) return apiError(c, 403, exceeded, { documentation_url: DOCS });
    await next();
  };
}
