import type { Context } from "hono";
import type { Server } from "bun";

/**
 * The client's IP address. From the socket (Bun's `server.requestIP`) unless
 * the platform runs behind a proxy we trust, in which case the proxy's
 * X-Forwarded-For wins. Without a socket (in-process tests) it is "local".
 */
export function clientAddress(c: Context, trustProxy = false): string {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  const server = c.env as Server<unknown> | undefined;
  const info = typeof server?.requestIP === "function" ? server.requestIP(c.req.raw) : null;
  return info?.address ?? "local";
}
