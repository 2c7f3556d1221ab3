import { declareRoute, json, USER, z } from "../../openapi/declare.ts";
import { Amount, Timestamp, Token } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireUser } from "../../middleware/session.ts";
import { userActivity } from "../../services/users/activity.ts";

const Limit = z.object({ limit: z.coerce.number().int().min(1).max(50).default(10) });

/** GET /api/user/activity?limit=10: the dashboard's recent activity of the original product (rewards, contributions). */
export function userActivityRoutes(ctx: AppContext) {
  return new Hono<AppBindings>().get("/activity", validate("query", Limit), async (c) => {
    const user = requireUser(c);
    c.header("Cache-Control", "private, max-age=60");
    const activities = await userActivity({ database: ctx.database, chainId: ctx.chain.config.chain.id }, user, c.req.valid("query").limit);
    return c.json({ activities });
  });
}

export const userActivityApi = [
  declareRoute({
    method: "get", path: "/api/user/activity", operationId: "listUserActivity", tags: ["auth"], security: USER,
    errors: ["validation_failed"],
    summary: "The user's recent activity: rewards received, contributions in progress (newest first)",
    request: { query: Limit },
    responses: {
      200: json("The activities", z.object({
        activities: z.array(z.object({
          id: z.string(), type: z.enum(["reward", "contribution"]), title: z.string(), description: z.string(), timestamp: Timestamp,
          metadata: z.object({
            amount: Amount.nullable(), currency: Token.nullable(), txHash: z.string().nullable(), repoName: z.string().nullable(), issueNumber: z.number().int().nullable(),
          }),
        })),
      })),
    },
  }),
];
