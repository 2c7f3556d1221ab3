import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { bountyRoutes } from "./bounties.ts";
import { fundingRoutes } from "./funding.ts";
import { blockchainUserRoutes } from "./users.ts";
import { requireSession } from "../../middleware/session.ts";

/**
 * /api/blockchain. Every write needs a signed-in user, checked first: an
 * anonymous caller is told that (401), not what is wrong with its body, and
 * uses up no rate-limit allowance.
 */
export function blockchainRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .use(async (c, next) => {
      if (c.req.method !== "GET" && c.req.method !== "HEAD") requireSession(c);
      await next();
    })
    .route("/", fundingRoutes(ctx))
    .route("/", bountyRoutes(ctx))
    .route("/", blockchainUserRoutes(ctx));
}
