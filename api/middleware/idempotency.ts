import type { Context } from "hono";
import { ApiError, ErrorCode } from "../errors.ts";

/**
 * Money-moving requests carry an Idempotency-Key (ARCHITECTURE.md, "Money"):
 * the site's client makes one per user action and sends it again on retry,
 * so a retried request returns the first result instead of paying twice.
 */
export function requireIdempotencyKey(c: Context): string {
  const key = c.req.header("idempotency-key")?.trim();
  if (!key || !/^[A-Za-z0-9_.:-]{8,128}$/.test(key)) {
    throw new ApiError({
      code: ErrorCode.BAD_REQUEST,
      error: "Idempotency-Key required",
      message: "This request needs an Idempotency-Key header of 8 to 128 letters, digits, '-', '_', '.' or ':'.",
    });
  }
  return key;
}
