import { ANONYMOUS, declareRoute, json, noJson, orNull, STABLE, z } from "../../openapi/declare.ts";
import { Amount, BountyFunder, IssueSummary, PerCurrency, RepositoryInfo, Timestamp, Token, Wei } from "../../openapi/shapes.ts";
import { RepositoryForUser } from "../github/index.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { notFound } from "../../errors.ts";
import { clientForRepository, repositoryInfo } from "../../github/data.ts";
import { GitHubApiError } from "../../github/client.ts";
import { publicRepository, publicRepositoryBounties, splitXdcRewards, unifiedRepo } from "../../services/repositories/public.ts";
import { labelledPublicIssues, STALE_HEADER } from "../github/index.ts";
import { OwnerRepoParam, OwnerRepoQuery, RepoParam } from "../params.ts";
import { movedResponse } from "../moved.ts";
import { parseAmount } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import type { Currency } from "../../../db/schema/index.ts";

/**
 * Public reads, no sign-in, never a private repository; cached in memory
 * with the spec's ages (public page details 60 s):
 * GET /api/public/repositories/{repoId}          github_info
 * GET /api/public/repositories/{repoId}/bounties { bounties, repositoryId, repositoryName } (the original product's call)
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
    .get("/repositories/:repoId/bounties", validate("param", RepoParam), async (c) => {
      const answer = await publicRepositoryBounties(ctx, c.req.valid("param").repoId);
      c.header("Cache-Control", "public, max-age=60");
      return c.json(answer);
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
      // A former name of a renamed or transferred repository: the same read under its current name (issue 39).
      const moved = await movedResponse(ctx, c.req.url, owner, repo);
      if (moved) return moved;
      const repository = await publicRepository(ctx, { fullName: `${owner}/${repo}` });
      const { details } = await info(repository.githubRepoId);
      const { issues, stale } = await labelledPublicIssues(ctx, repository.fullName);
      if (details.stale || stale) c.header(STALE_HEADER, "true");
      else c.header("X-Page-Cache", `max-age=60; tags=repo:${repository.githubRepoId}`);
      return c.json({ repo: { ...details.data, permissions: { admin: false } }, repoId: repository.githubRepoId, issues, registered: true, stale: details.stale || stale });
    })
    .get("/unified-repo/:owner/:repo", validate("param", OwnerRepoParam), async (c) => {
      const { owner, repo } = c.req.valid("param");
      const moved = await movedResponse(ctx, c.req.url, owner, repo);
      if (moved) return moved;
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
    const parsed = parseAmount(value, DECIMALS[currency]);
    return parsed.ok ? parsed.value.toString() : "0";
  };
  const rewards = splitXdcRewards(unified.repoRewards);
  const issues = unified.blockchain && splitXdcRewards(
    unified.blockchain.issues.map((issue) => ({ ...issue, rewardAmount: units(issue.rewardAmount, issue.currency), rewardDecimal: issue.rewardAmount })),
  );
  return {
    ...unified,
    // The spec's fields are XDC ("amount (XDC)", "rewardAmount ... converted to XDC"): a ROXN or USDC bounty goes beside them.
    repoRewards: rewards.xdc,
    otherRewards: rewards.other,
    blockchain: unified.blockchain && {
      ...unified.blockchain,
      poolRewards: units(unified.blockchain.poolRewards.XDC, "XDC"),
      pools: unified.blockchain.poolRewards,
      issues: issues!.xdc,
      otherIssues: issues!.other,
    },
    repoDetails: unified.repoDetails && unified.blockchain && {
      poolRewards: units(unified.repoDetails.poolRewards, "XDC"),
      pools: unified.blockchain.poolRewards,
    },
  };
}

const Labels = IssueSummary.shape.labels;

/** The answer for a former name of a renamed or transferred public repository (issue 39). */
const MOVED = noJson("A former name of a renamed or transferred repository: `Location` is the same read under its current name");

/** The unified repository view (spec section 3, "Unified repo"). */
export const UnifiedRepository = z.object({
  registered: z.boolean(),
  managed: z.boolean(),
  repoId: z.number().int().nullable(),
  githubRepoFullName: z.string(),
  createdAt: z.string().nullable(),
  github: orNull(RepositoryInfo),
  issues: z.array(IssueSummary),
  bounties: z.array(z.object({
    issueNumber: z.number().int(), title: z.string(), html_url: z.string().nullable(), labels: Labels,
    currency: Token, amount: Amount.meta({ description: "The pool's share" }), claimants: z.number().int(),
    total: Amount.meta({ description: "The whole bounty: the pool's share plus the funders' active shares (the figure every page shows)" }),
    boosted: Amount.meta({ description: "The funders' active shares on top of the pool's share (issue 29)" }), funders: z.array(BountyFunder),
  })),
  blockchain: z.object({
    network: z.string(),
    contractAddress: z.string().meta({ description: "0x… form" }),
    poolRewards: Wei.meta({ description: "The XDC pool in wei" }),
    pools: PerCurrency,
    allocated: PerCurrency.meta({ description: "In advertised (open or claimed) bounties, their funders' shares included" }),
    awaiting: PerCurrency.meta({ description: "In bounties awaiting the pool manager's decision: not advertised" }),
    held: PerCurrency.meta({ description: "In bounties held for a GitHub user without a wallet: not advertised" }),
    issues: z.array(z.object({
      issueId: z.number().int(), currency: z.literal("XDC"),
      rewardAmount: Wei.meta({ description: "In wei" }), rewardDecimal: Amount,
    })).meta({ description: "XDC bounties only (the spec's field)" }),
    otherIssues: z.array(z.object({
      issueId: z.number().int(), currency: Token,
      rewardAmount: Wei.meta({ description: "In the currency's smallest unit" }), rewardDecimal: Amount,
    })).meta({ description: "ROXN and USDC bounties" }),
  }).nullable(),
  repoDetails: z.object({ poolRewards: Wei, pools: PerCurrency }).nullable(),
  repoRewards: z.array(z.object({ issueNumber: z.number().int(), amount: Amount, currency: z.literal("XDC") })).meta({ description: "XDC bounties only (the spec's field)" }),
  otherRewards: z.array(z.object({ issueNumber: z.number().int(), amount: Amount, currency: Token })).meta({ description: "ROXN and USDC bounties" }),
  recentPayouts: z.array(z.object({
    issueNumber: z.number().int(), title: z.string(), currency: Token, amount: Amount,
    login: z.string().nullable().meta({ description: "The recipient's GitHub login (profile /@{login}) when the paid wallet is a user's; null otherwise (a split payout: its first recipient's)" }),
    recipients: z.array(z.object({ login: z.string().nullable(), amount: Amount })).meta({ description: "Each recipient with their own share: one with the whole amount, or a co-authored merge's split (summing to amount)" }),
    paidAt: Timestamp.nullable(),
  })).optional().meta({ description: "The latest paid bounties, newest first (at most 5), with their recipients' logins" }),
  stats: z.object({
    claims: z.number().int(), rewardsPaid: z.number().int(), paidTotals: PerCurrency,
    contributors: z.number().int().nullable(), lastCommitAt: z.string().nullable(),
  }),
  price: z.object({ xdcUsd: z.string().nullable(), source: z.string().nullable() }),
  stale: z.boolean(),
  updatedAt: Timestamp,
}).openapi("UnifiedRepository");

export const publicApi = [
  declareRoute({
    method: "get", path: "/api/public/repositories/{repoId}", operationId: "getPublicRepository", tags: ["public"], security: ANONYMOUS, ...STABLE,
    errors: ["github_unavailable", "invalid_repository", "not_found", "validation_failed"],
    summary: "A registered public repository's GitHub details",
    request: { params: RepoParam },
    responses: {
      200: json("The repository", z.object({ id: z.number().int(), githubRepoFullName: z.string(), github_info: RepositoryInfo, stale: z.boolean() })),
    },
  }),
  declareRoute({
    method: "get", path: "/api/public/repositories/{repoId}/bounties", operationId: "listPublicRepositoryBounties", tags: ["public"], security: ANONYMOUS,
    errors: ["not_found", "validation_failed"],
    summary: "The bounties of a registered public repository, open and paid (the original product's shape)",
    request: { params: RepoParam },
    responses: {
      200: json("The bounties, by issue number", z.object({
        bounties: z.array(z.object({
          issueId: z.string().meta({ description: "The issue number" }), status: z.enum(["Created", "Distributed"]),
          xdcAmount: Amount, roxnAmount: Amount, isRoxn: z.boolean(), currency: Token, amount: Amount,
        })),
        repositoryId: z.number().int(), repositoryName: z.string(),
      })),
    },
  }),
  declareRoute({
    method: "get", path: "/api/public/github/issues", operationId: "listPublicIssues", tags: ["public"], security: ANONYMOUS, ...STABLE,
    errors: ["github_unavailable", "invalid_repository", "not_found", "validation_failed"],
    summary: "Open issues of a registered public repository (a bare array; X-Data-Stale on an old copy)",
    request: { query: OwnerRepoQuery },
    responses: { 200: json("The issues", z.array(IssueSummary)) },
  }),
  declareRoute({
    method: "get", path: "/api/public/github/repos/{owner}/{repo}", operationId: "getPublicRepositoryWithIssues", tags: ["public"], security: ANONYMOUS, ...STABLE,
    errors: ["github_unavailable", "invalid_repository", "not_found", "validation_failed"],
    summary: "A registered public repository and its open issues",
    request: { params: OwnerRepoParam },
    responses: { 200: json("The repository and its issues", RepositoryForUser.extend({ repoId: z.number().int(), repo: RepositoryInfo.extend({ permissions: z.object({ admin: z.literal(false) }) }) })), 301: MOVED },
  }),
  declareRoute({
    method: "get", path: "/api/public/unified-repo/{owner}/{repo}", operationId: "getUnifiedRepository", tags: ["public"], security: ANONYMOUS, ...STABLE,
    errors: ["github_unavailable", "validation_failed"],
    summary: "Everything the public repository page shows (real figures only)",
    request: { params: OwnerRepoParam },
    responses: { 200: json("The unified view", UnifiedRepository), 301: MOVED },
  }),
];
