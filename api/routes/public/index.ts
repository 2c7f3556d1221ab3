import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { notFound } from "../../errors.ts";
import { clientForRepository, repositoryInfo } from "../../github/data.ts";
import { GitHubApiError } from "../../github/client.ts";
import { publicRepository, unifiedRepo } from "../../services/repositories/public.ts";
import { labelledPublicIssues } from "../github/index.ts";
import { OwnerRepoParam, OwnerRepoQuery, RepoParam } from "../params.ts";

/**
 * Public reads, no sign-in, never a private repository; cached in memory
 * with the spec's ages (public page details 60 s):
 * GET /api/public/repositories/{repoId}          github_info
 * GET /api/public/github/issues?owner&repo        open issues
 * GET /api/public/github/repos/{owner}/{repo}     repository details and repoId
 * GET /api/public/unified-repo/{owner}/{repo}     everything the public page shows
 */
export function publicRoutes(ctx: AppContext) {
  const info = async (repoId: number) => {
    const repository = await publicRepository(ctx, { repoId });
    const client = await clientForRepository(ctx, repository, null);
    const details = await repositoryInfo(ctx, repository.fullName, repository.githubRepoId, client).catch((err) => {
      if (err instanceof GitHubApiError && err.status === 404) throw notFound("Repository not found.");
      throw err;
    });
    return { repository, details };
  };
  return new Hono<AppBindings>()
    .get("/repositories/:repoId", validate("param", RepoParam), async (c) => {
      const { repository, details } = await info(c.req.valid("param").repoId);
      c.header("X-Page-Cache", `max-age=60; tags=repo:${repository.githubRepoId}`);
      return c.json({ id: repository.githubRepoId, githubRepoFullName: repository.fullName, github_info: details.data, stale: details.stale });
    })
    .get("/github/issues", validate("query", OwnerRepoQuery), async (c) => {
      const { owner, repo } = c.req.valid("query");
      const result = await labelledPublicIssues(ctx, `${owner}/${repo}`);
      c.header("X-Page-Cache", "max-age=60; tags=repositories");
      return c.json(result);
    })
    .get("/github/repos/:owner/:repo", validate("param", OwnerRepoParam), async (c) => {
      const { owner, repo } = c.req.valid("param");
      const repository = await publicRepository(ctx, { fullName: `${owner}/${repo}` });
      const { details } = await info(repository.githubRepoId);
      c.header("X-Page-Cache", `max-age=60; tags=repo:${repository.githubRepoId}`);
      return c.json({ repoId: repository.githubRepoId, ...details.data, stale: details.stale });
    })
    .get("/unified-repo/:owner/:repo", validate("param", OwnerRepoParam), async (c) => {
      const { owner, repo } = c.req.valid("param");
      const unified = await unifiedRepo(ctx, owner, repo);
      c.header("X-Page-Cache", `max-age=60; tags=repositories${unified.repoId ? `,repo:${unified.repoId}` : ""}`);
      return c.json(unified);
    });
}
