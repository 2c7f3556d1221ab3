import { lt, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { rateLimits } from "../../../db/schema/index.ts";

export interface RateLimitRule {
  /** e.g. "signin:ip" */
  name: string;
  limit: number;
  windowMs: number;
}

/** A route's limits: per client IP and, when signed in, per user, in one window. */
export interface RateLimitPolicy {
  name: string;
  perIp: number;
  perUser?: number;
  windowMs: number;
}

export interface RateLimitResult {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

let calls = 0;

/**
 * Counts one attempt by `subject` (an IP or a user) against `rule` in a fixed
 * window, atomically in the database (one upsert), so several processes
 * share the count.
 */
export async function consumeRateLimit(db: Database, rule: RateLimitRule, subject: string, now = Date.now()): Promise<RateLimitResult> {
  const window = Math.floor(now / rule.windowMs);
  const resetAt = (window + 1) * rule.windowMs;
  const key = `${rule.name}:${subject}:${window}`;
  const [row] = await db
    .insert(rateLimits)
    .values({ key, count: 1, resetAt: new Date(resetAt) })
    .onConflictDoUpdate({ target: rateLimits.key, set: { count: sql`${rateLimits.count} + 1` } })
    .returning({ count: rateLimits.count });
  if (++calls % 500 === 0) await db.delete(rateLimits).where(lt(rateLimits.resetAt, new Date(now)));
  const count = row!.count;
  return {
    allowed: count <= rule.limit,
    remaining: Math.max(0, rule.limit - count),
    retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
  };
}
