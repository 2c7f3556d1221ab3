import { Hono } from "hono";
import type { AppBindings } from "../../context.ts";
import { requireUser } from "../../middleware/session.ts";

/** GET /api/user/role: the signed-in user's role (null until registered). */
export function userRoutes() {
  return new Hono<AppBindings>().get("/role", (c) => {
    c.header("Cache-Control", "no-store");
    return c.json({ role: requireUser(c).role });
  });
}
