import type { Context, MiddlewareHandler } from "hono";
import type { AppBindings, AppContext } from "../context.ts";
import { DomainError, ErrorCode } from "../errors.ts";
import { consumeRateLimit, type RateLimitPolicy } from "../services/auth/rate-limit.ts";
import { clientAddress } from "./client-address.ts";

export function tooManyRequests(retryAfterSeconds: number): DomainError {
  return new DomainError({
    code: ErrorCode.RATE_LIMITED,
    error: "Too Many Requests",
    message: `Too many attempts. Try again in ${retryAfterSeconds} seconds.`,
    details: { retryAfterSeconds },
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}

/**
 * Limits a route per client IP (from the socket, so it holds without proxy
 * headers) and, when signed in, per user. Each is counted separately;
 * exceeding either answers 429 with Retry-After. RATE_LIMIT_PER_IP_FACTOR
 * raises the per-IP limits where many people share one address.
 */
export function rateLimit(ctx: Pick<AppContext, "env" | "database">, policy: RateLimitPolicy): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    await enforceRateLimit(ctx, c, policy);
    return next();
  };
}

export async function enforceRateLimit(ctx: Pick<AppContext, "env" | "database">, c: Context<AppBindings>, policy: RateLimitPolicy): Promise<void> {
  const ip = clientAddress(c, ctx.env.TRUST_PROXY);
  const checks: [number, string][] = [[policy.perIp * ctx.env.RATE_LIMIT_PER_IP_FACTOR, `ip:${ip}`]];
  const user = c.get("user");
  if (user && policy.perUser !== undefined) checks.push([policy.perUser, `user:${user.id}`]);
  for (const [limit, subject] of checks) {
    const result = await consumeRateLimit(ctx.database.db, { name: policy.name, limit, windowMs: policy.windowMs }, subject);
    if (!result.allowed) throw tooManyRequests(result.retryAfterSeconds);
  }
}
