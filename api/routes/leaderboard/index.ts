import { ANONYMOUS, declareRoute, json, z } from "../../openapi/declare.ts";
import { Amount } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { contributorLeaderboard, LEADERBOARD_PERIODS, projectLeaderboard } from "../../services/money/leaderboards.ts";
import { validate } from "../../validate.ts";

/**
 * The original product's leaderboards, public (CORS like the other public reads), bare arrays:
 * GET /api/leaderboard/contributors?period=all|30d   [{ rank, id, username, avatarUrl, roxnEarned, usdcEarned, xdcEarned, rewardsCount }]
 * GET /api/leaderboard/projects?period=all|30d       [{ rank, id (the GitHub repository id), name, avatarUrl, bountiesCount (open), paidCount,
 *                                                       paidAmounts, openFunds }]
 */
export function leaderboardRoutes(ctx: Pick<AppContext, "database" | "env">) {
  // Kept in the response cache (the same for everyone) until a payout or a repository changes, or 60 s.
  const cached = "max-age=60; tags=repositories";
  return new Hono<AppBindings>()
    .get("/contributors", validate("query", PeriodQuery), async (c) => {
      c.header("X-Page-Cache", cached);
      return c.json(await contributorLeaderboard(ctx, c.req.valid("query").period));
    })
    .get("/projects", validate("query", PeriodQuery), async (c) => {
      c.header("X-Page-Cache", cached);
      return c.json(await projectLeaderboard({ database: ctx.database, githubUrl: ctx.env.GITHUB_URL }, c.req.valid("query").period));
    });
}

const PeriodQuery = z.object({
  period: z.enum(LEADERBOARD_PERIODS).default("all").meta({ description: "all (default): all time; 30d: the last 30 days" }),
});
const PerCurrencyDecimals = z.object({ XDC: Amount, ROXN: Amount, USDC: Amount });

export const leaderboardApi = [
  declareRoute({
    method: "get", path: "/api/leaderboard/contributors", operationId: "listContributorLeaderboard", tags: ["public"], security: ANONYMOUS,
    errors: ["validation_failed"],
    summary: "Contributors by rewards paid to them (XDC, then ROXN, then USDC); the top 50, a bare array",
    request: { query: PeriodQuery },
    responses: {
      200: json("The contributors", z.array(z.object({
        rank: z.number().int(), id: z.number().int(), username: z.string(), avatarUrl: z.string().nullable(),
        roxnEarned: Amount.meta({ description: "2 decimals" }), usdcEarned: Amount.meta({ description: "2 decimals" }),
        xdcEarned: Amount.meta({ description: "2 decimals" }), rewardsCount: z.number().int(),
      }))),
    },
  }),
  declareRoute({
    method: "get", path: "/api/leaderboard/projects", operationId: "listProjectLeaderboard", tags: ["public"], security: ANONYMOUS,
    errors: ["validation_failed"],
    summary: "Active public repositories: all time by open bounties, then bounties paid; 30 days by bounties paid in the period; the top 50, a bare array",
    request: { query: PeriodQuery },
    responses: {
      200: json("The projects", z.array(z.object({
        rank: z.number().int(), id: z.number().int().meta({ description: "The GitHub repository id" }), name: z.string(), avatarUrl: z.string(),
        bountiesCount: z.number().int().meta({ description: "Open bounties" }), paidCount: z.number().int(),
        paidAmounts: PerCurrencyDecimals.meta({ description: "Paid in the period, whole units per currency" }),
        openFunds: PerCurrencyDecimals.meta({ description: "In open bounties now, whole units per currency" }),
      }))),
    },
  }),
];
