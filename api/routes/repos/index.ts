import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { publicRepository, repositoryRewards } from "../../services/repositories/public.ts";
import { OwnerRepoQuery, RepoParam } from "../params.ts";

/**
 * GET /api/repos/details?owner&repo   repoId, githubRepoId, githubRepoFullName
 * GET /api/repos/{repoId}/rewards      rewards (issueNumber, amount, currency)
 */
export function reposRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/details", validate("query", OwnerRepoQuery), async (c) => {
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
