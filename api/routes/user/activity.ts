import { declareRoute, json, USER, z } from "../../openapi/declare.ts";
import { Amount, Timestamp, Token } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireUser } from "../../middleware/session.ts";
import { userActivity } from "../../services/users/activity.ts";
import { isNewAccount } from "../../services/users/onboarding.ts";

const Limit = z.object({ limit: z.coerce.number().int().min(1).max(50).default(10) });

/**
 * GET /api/user/activity?limit=10: the dashboard's recent activity of the original product (rewards, contributions).
 * GET /api/user/onboarding: { newAccount } whether the onboarding dialogs open by themselves (services/users/onboarding.ts).
 */
export function userActivityRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/activity", validate("query", Limit), async (c) => {
      const user = requireUser(c);
      c.header("Cache-Control", "private, max-age=60");
      const activities = await userActivity({ database: ctx.database, chainId: ctx.chain.config.chain.id }, user, c.req.valid("query").limit);
      return c.json({ activities });
    })
    .get("/onboarding", async (c) => {
      const user = requireUser(c);
      c.header("Cache-Control", "private, no-store");
      return c.json({ newAccount: await isNewAccount(ctx, user) });
    });
}

export const userActivityApi = [
  declareRoute({
    method: "get", path: "/api/user/onboarding", operationId: "getUserOnboarding", tags: ["auth"], security: USER,
    summary: "Whether the onboarding dialogs open by themselves for this account: a new one (a pool manager without a registered repository, a contributor not yet registered for an issue, no role yet)",
    responses: { 200: json("For the onboarding dialogs", z.object({ newAccount: z.boolean() })) },
  }),
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
