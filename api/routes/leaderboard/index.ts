import { ANONYMOUS, declareRoute, json, z } from "../../openapi/declare.ts";
import { Amount } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { contributorLeaderboard, projectLeaderboard } from "../../services/money/leaderboards.ts";

/**
 * The original product's leaderboards, public (CORS like the other public reads), bare arrays:
 * GET /api/leaderboard/contributors   [{ rank, id, username, avatarUrl, roxnEarned, usdcEarned, xdcEarned, rewardsCount }]
 * GET /api/leaderboard/projects       [{ rank, id (the GitHub repository id), name, avatarUrl, bountiesCount (open), paidCount }]
 */
export function leaderboardRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/contributors", async (c) => {
      c.header("Cache-Control", "public, max-age=60");
      return c.json(await contributorLeaderboard(ctx));
    })
    .get("/projects", async (c) => {
      c.header("Cache-Control", "public, max-age=60");
      return c.json(await projectLeaderboard({ database: ctx.database, githubUrl: ctx.env.GITHUB_URL }));
    });
}

export const leaderboardApi = [
  declareRoute({
    method: "get", path: "/api/leaderboard/contributors", operationId: "listContributorLeaderboard", tags: ["public"], security: ANONYMOUS,
    summary: "Contributors by rewards paid to them (XDC, then ROXN, then USDC); the top 50, a bare array",
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
    summary: "Active public repositories by open bounties, then bounties paid; the top 50, a bare array",
    responses: {
      200: json("The projects", z.array(z.object({
        rank: z.number().int(), id: z.number().int().meta({ description: "The GitHub repository id" }), name: z.string(), avatarUrl: z.string(),
        bountiesCount: z.number().int().meta({ description: "Open bounties" }), paidCount: z.number().int(),
      }))),
    },
  }),
];
