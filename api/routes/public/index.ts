import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { notFound } from "../../errors.ts";
import { clientForRepository, repositoryInfo } from "../../github/data.ts";
import { GitHubApiError } from "../../github/client.ts";
import { publicRepository, unifiedRepo } from "../../services/repositories/public.ts";
import { labelledPublicIssues, STALE_HEADER } from "../github/index.ts";
import { OwnerRepoParam, OwnerRepoQuery, RepoParam } from "../params.ts";
import { parseAmount, TOKEN_DECIMALS } from "../../chain/amounts.ts";
import type { Currency } from "../../../db/schema/index.ts";

/**
 * Public reads, no sign-in, never a private repository; cached in memory
 * with the spec's ages (public page details 60 s):
 * GET /api/public/repositories/{repoId}          github_info
 * GET /api/public/github/issues?owner&repo        open issues, a bare array (X-Data-Stale says whether it is an old copy)
 * GET /api/public/github/repos/{owner}/{repo}     { repo, repoId, issues } as GET /api/github/repos answers
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
      const { issues, stale } = await labelledPublicIssues(ctx, `${owner}/${repo}`);
      // An old copy (GitHub unreachable) is said so and not kept; fresh lists are cached (the header is then absent).
      if (stale) c.header(STALE_HEADER, "true");
      else c.header("X-Page-Cache", "max-age=60; tags=repositories");
      return c.json(issues);
    })
    .get("/github/repos/:owner/:repo", validate("param", OwnerRepoParam), async (c) => {
      const { owner, repo } = c.req.valid("param");
      const repository = await publicRepository(ctx, { fullName: `${owner}/${repo}` });
      const { details } = await info(repository.githubRepoId);
      const { issues, stale } = await labelledPublicIssues(ctx, repository.fullName);
      if (details.stale || stale) c.header(STALE_HEADER, "true");
      else c.header("X-Page-Cache", `max-age=60; tags=repo:${repository.githubRepoId}`);
      return c.json({ repo: { ...details.data, permissions: { admin: false } }, repoId: repository.githubRepoId, issues, registered: true, stale: details.stale || stale });
    })
    .get("/unified-repo/:owner/:repo", validate("param", OwnerRepoParam), async (c) => {
      const { owner, repo } = c.req.valid("param");
      const unified = await unifiedRepo(ctx, owner, repo);
      c.header("X-Page-Cache", `max-age=60; tags=repositories${unified.repoId ? `,repo:${unified.repoId}` : ""}`);
      return c.json(unifiedContract(unified));
    });
}

/**
 * The unified view in the spec's contract (section 3, "Unified repo"): `blockchain.poolRewards` and
 * `repoDetails.poolRewards` are the XDC pool in wei, `blockchain.issues[].rewardAmount` the bounty in its
 * currency's smallest unit ("wei-like"), as the spec's clients read them with formatEther/formatUnits. The
 * per-currency figures as decimals are beside them: `pools`, `rewardDecimal`. (The site renders from the same
 * service on the server and reads the decimals.)
 */
export function unifiedContract(unified: Awaited<ReturnType<typeof unifiedRepo>>) {
  const units = (value: string, currency: Currency) => {
    const parsed = parseAmount(value, TOKEN_DECIMALS[currency]);
    return parsed.ok ? parsed.value.toString() : "0";
  };
  return {
    ...unified,
    blockchain: unified.blockchain && {
      ...unified.blockchain,
      poolRewards: units(unified.blockchain.poolRewards.XDC, "XDC"),
      pools: unified.blockchain.poolRewards,
      issues: unified.blockchain.issues.map((issue) => ({ ...issue, rewardAmount: units(issue.rewardAmount, issue.currency), rewardDecimal: issue.rewardAmount })),
    },
    repoDetails: unified.repoDetails && unified.blockchain && {
      poolRewards: units(unified.repoDetails.poolRewards, "XDC"),
      pools: unified.blockchain.poolRewards,
    },
  };
}
