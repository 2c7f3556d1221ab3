import { ANONYMOUS, declareRoute, json, STABLE, z } from "../../openapi/declare.ts";
import { Amount, Token } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { noApiEndpoint } from "../../errors.ts";
import { publicRepository, repositoryRewards } from "../../services/repositories/public.ts";
import { OwnerRepoQuery, RepoParam } from "../params.ts";

/**
 * GET /api/repos/details?owner&repo   repoId, githubRepoId, githubRepoFullName
 * GET /api/repos/{repoId}/rewards      rewards (issueNumber, amount in XDC); otherRewards (ROXN, USDC) apart
 */
export function reposRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    // "/details" is matched as the same parameter as "/:repoId/rewards": Hono's fastest router (RegExpRouter)
    // refuses a static segment beside a parameter with a deeper route, and the whole app would fall back to a
    // slower router.
    .get("/:repoId", async (c, next) => {
      if (c.req.param("repoId") !== "details") throw noApiEndpoint(c.req.method, c.req.path);
      await next();
    })
    .get("/:repoId", validate("query", OwnerRepoQuery), async (c) => {
      const { owner, repo } = c.req.valid("query");
      const repository = await publicRepository(ctx, { fullName: `${owner}/${repo}` });
      c.header("Cache-Control", "public, max-age=60");
      return c.json({ repoId: repository.githubRepoId, githubRepoId: repository.githubRepoId, githubRepoFullName: repository.fullName });
    })
    .get("/:repoId/rewards", validate("param", RepoParam), async (c) => {
      const { repoId } = c.req.valid("param");
      c.header("X-Page-Cache", `max-age=60; tags=repo:${repoId}`);
      return c.json(await repositoryRewards(ctx, repoId));
    });
}

export const reposApi = [
  declareRoute({
    method: "get", path: "/api/repos/details", operationId: "getRepositoryIds", tags: ["public"], security: ANONYMOUS, ...STABLE,
    errors: ["not_found", "validation_failed"],
    summary: "A registered public repository's ids by name",
    request: { query: OwnerRepoQuery },
    responses: { 200: json("The ids", z.object({ repoId: z.number().int(), githubRepoId: z.number().int(), githubRepoFullName: z.string() })) },
  }),
  declareRoute({
    method: "get", path: "/api/repos/{repoId}/rewards", operationId: "listRepositoryRewards", tags: ["public"], security: ANONYMOUS, ...STABLE,
    errors: ["not_found", "validation_failed"],
    summary: "The open bounties of a repository: XDC in `rewards`, the other currencies in `otherRewards`",
    request: { params: RepoParam },
    responses: {
      200: json("The rewards, by issue number", z.object({
        rewards: z.array(z.object({ issueNumber: z.number().int(), amount: Amount, currency: z.literal("XDC") })).meta({ description: "XDC bounties only: `amount` is XDC, as the spec says" }),
        otherRewards: z.array(z.object({ issueNumber: z.number().int(), amount: Amount, currency: Token })).meta({ description: "ROXN and USDC bounties, each in its currency" }),
      })),
    },
  }),
];
