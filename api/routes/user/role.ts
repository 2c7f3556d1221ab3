import { declareRoute, json, USER, z } from "../../openapi/declare.ts";
import { Role } from "../../openapi/shapes.ts";
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

export const userApi = [
  declareRoute({
    method: "get",
    path: "/api/user/role",
    operationId: "getUserRole",
    tags: ["auth"],
    summary: "The signed-in user's role (null until registered)",
    security: USER,
    responses: { 200: json("The role", z.object({ role: Role.nullable() })) },
  }),
];
