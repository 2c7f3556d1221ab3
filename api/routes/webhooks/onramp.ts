import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";

/** POST /api/webhooks/onramp: the on-ramp provider's signed status updates. */
export function onrampWebhookRoutes(_ctx: AppContext) {
  return new Hono<AppBindings>();
}
