import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { bountyRoutes } from "./bounties.ts";
import { fundingRoutes } from "./funding.ts";
import { blockchainUserRoutes } from "./users.ts";

export function blockchainRoutes(ctx: AppContext) {
  return new Hono<AppBindings>().route("/", fundingRoutes(ctx)).route("/", bountyRoutes(ctx)).route("/", blockchainUserRoutes(ctx));
}
