import { Hono } from "hono";
import { ANONYMOUS, declareRoute, noJson, z } from "../../openapi/declare.ts";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { Token } from "../../openapi/shapes.ts";
import { contributorFeed, exploreFeed, repositoryFeed } from "../../services/alerts/feeds.ts";
import { movedResponse } from "../moved.ts";

/**
 * Atom feeds (RFC 4287), public (docs/api.md, "Feeds"):
 * GET /api/feeds/explore?<explore's parameters>                    open bounties matching an explore search
 * GET /api/feeds/repos/:owner/:repo                                a repository's bounties
 * GET /api/feeds/contributors/:login                               what a contributor was paid
 */
const ATOM = "application/atom+xml; charset=utf-8";
const ExploreQuery = z.object({
  currency: Token.optional(),
  min: z.string().optional(),
  max: z.string().optional(),
  label: z.string().optional(),
  language: z.string().optional(),
  repo: z.string().optional(),
  q: z.string().optional(),
  unclaimed: z.enum(["1", "true", "0", "false"]).optional(),
  sort: z.string().optional(),
});
const RepoParams = z.object({ owner: z.string().min(1).max(100), repo: z.string().min(1).max(100) });
const LoginParam = z.object({ login: z.string().min(1).max(100) });

export function feedRoutes(ctx: AppContext) {
  const atom = (body: string) => new Response(body, { headers: { "Content-Type": ATOM, "Cache-Control": "public, max-age=300" } });
  return new Hono<AppBindings>()
    .get("/explore", async (c) => atom(await exploreFeed(ctx, new URL(c.req.url).search)))
    .get("/repos/:owner/:repo", validate("param", RepoParams), async (c) => {
      const { owner, repo } = c.req.valid("param");
      // A former name of a renamed or transferred repository: its feed is under the new name (issue 39).
      const moved = await movedResponse(ctx, c.req.url, owner, repo);
      if (moved) return moved;
      return atom(await repositoryFeed(ctx, owner, repo));
    })
    .get("/contributors/:login", validate("param", LoginParam), async (c) => atom(await contributorFeed(ctx, c.req.valid("param").login)));
}

const tags = ["alerts"];
export const feedsApi = [
  declareRoute({
    method: "get", path: "/api/feeds/explore", operationId: "exploreFeed", tags, security: ANONYMOUS,
    errors: ["invalid_search", "invalid_search_text"],
    summary: "Atom feed of the open bounties matching an explore search (the newest 50)",
    request: { query: ExploreQuery },
    responses: { 200: noJson("The feed", "application/atom+xml") },
  }),
  declareRoute({
    method: "get", path: "/api/feeds/repos/{owner}/{repo}", operationId: "repositoryFeed", tags, security: ANONYMOUS,
    errors: ["not_found", "validation_failed"],
    summary: "Atom feed of a public repository's bounties: set, paid, returned to the pool (the latest 50)",
    request: { params: RepoParams },
    responses: {
      200: noJson("The feed", "application/atom+xml"),
      301: noJson("A former name of a renamed or transferred repository: `Location` is its feed under the current name"),
    },
  }),
  declareRoute({
    method: "get", path: "/api/feeds/contributors/{login}", operationId: "contributorFeed", tags, security: ANONYMOUS,
    errors: ["not_found", "validation_failed"],
    summary: "Atom feed of the bounties paid to a contributor (public repositories, the latest 50)",
    request: { params: LoginParam },
    responses: { 200: noJson("The feed", "application/atom+xml") },
  }),
];
