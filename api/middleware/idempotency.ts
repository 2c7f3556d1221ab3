import type { Context } from "hono";
import type { AppBindings, AppContext } from "../context.ts";
import { DomainError, ErrorCode } from "../errors.ts";
import { hashToken } from "../crypto/tokens.ts";
import { stableJson } from "../chain/outbox.ts";

/**
 * Money-moving requests carry an Idempotency-Key (ARCHITECTURE.md, "Money"):
 * the site's client makes one per user action and sends it again on retry,
 * so a retried request returns the first result instead of paying twice.
 * A malformed key is refused.
 */
export function requireIdempotencyKey(c: Context): string {
  const key = c.req.header("idempotency-key")?.trim();
  if (!key || !/^[A-Za-z0-9_.:-]{8,128}$/.test(key)) {
    throw new DomainError({
      code: ErrorCode.IDEMPOTENCY_KEY_REQUIRED,
      error: "Idempotency-Key required",
      message: "This request needs an Idempotency-Key header of 8 to 128 letters, digits, '-', '_', '.' or ':'.",
    });
  }
  return key;
}

/** Identical requests without a key this close together are one request (docs/api.md, "Idempotency-Key"). */
export const DERIVED_KEY_WINDOW_MS = 60_000;

/**
 * The key of a money request: the client's Idempotency-Key when it sends one
 * (recommended); without one (the spec's clients send none), a key derived
 * from the user, the method, the path and the body, so an identical request
 * within DERIVED_KEY_WINDOW_MS of the first (a double click, a retry after a
 * timeout) returns the first result instead of paying twice. The window
 * slides: the key of the previous window is used while its request is less
 * than a window old.
 */
export async function idempotencyKeyFor(ctx: Pick<AppContext, "outbox">, c: Context<AppBindings>, userId: number, now = Date.now()): Promise<string> {
  if (c.req.header("idempotency-key") !== undefined) return requireIdempotencyKey(c);
  const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
  const { _csrf: _token, ...fields } = body && typeof body === "object" ? body : {};
  const digest = hashToken(stableJson({ method: c.req.method, path: c.req.path, fields })).slice(0, 40);
  const window = Math.floor(now / DERIVED_KEY_WINDOW_MS);
  const previous = `auto:${digest}:${window - 1}`;
  const earlier = await ctx.outbox.findByKey(userId, previous);
  if (earlier && now - earlier.createdAt.getTime() < DERIVED_KEY_WINDOW_MS) return previous;
  return `auto:${digest}:${window}`;
}
