import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import { DomainError, ErrorCode } from "../errors.ts";

/**
 * Rejects bodies over `maxBytes` with 413 in the one error shape, before a
 * handler reads them. Paths in `except` set their own limit.
 */
export function limitBody(maxBytes: number, except: string[] = []): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new DomainError({
        code: ErrorCode.PAYLOAD_TOO_LARGE,
        error: "Payload Too Large",
        message: `The request body is larger than the limit of ${formatBytes(maxBytes)}.`,
      });
    },
  });
  // GET and HEAD carry no body; skip the check on the hot path.
  return (c, next) => (c.req.method === "GET" || c.req.method === "HEAD" || except.includes(c.req.path) ? next() : limit(c, next));
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}
