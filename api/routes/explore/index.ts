import { Hono } from "hono";
import { ANONYMOUS, declareRoute, json, z } from "../../openapi/declare.ts";
import { Amount, Timestamp, Token } from "../../openapi/shapes.ts";
import type { AppBindings, AppContext } from "../../context.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { EXPLORE_MAX_PAGE_SIZE, EXPLORE_SORTS, exploreSearchParams, parseExploreSearch, searchOpenBounties, type ExplorePage } from "../../services/explore/search.ts";

/**
 * GET /api/explore?q&currency&min&max&label&language&repo&unclaimed&sort&cursor&limit
 *   open bounties of the registered public repositories, a page at a time (keyset: `nextCursor`); public, the same
 *   for everyone, cached until a bounty, claim, boost (its expiry, the "expiring" order) or repository changes (or
 *   60 s). Bad parameters: 400 naming the one.
 */
export function exploreRoutes(ctx: Pick<AppContext, "database">) {
  return new Hono<AppBindings>().get("/", async (c) => {
    const search = parseExploreSearch(new URL(c.req.url).searchParams);
    const page = await searchOpenBounties(ctx, search);
    c.header("X-Page-Cache", "max-age=60; tags=repositories,claims,boosts");
    return c.json({ ...exploreAnswer(page), search: exploreSearchParams(search).toString() });
  });
}

/** A page as the API and the site's island read it: amounts as decimals, times as ISO strings. */
export function exploreAnswer(page: ExplorePage) {
  return {
    bounties: page.bounties.map((b) => ({
      repoId: b.repoId,
      repository: b.repository,
      language: b.language,
      issueNumber: b.issueNumber,
      title: b.title,
      url: b.url,
      labels: b.labels,
      currency: b.currency,
      amount: toDecimalString(b.amount, DECIMALS[b.currency]),
      boosted: toDecimalString(b.boosted, DECIMALS[b.currency]),
      funders: b.funders,
      allocatedAt: b.allocatedAt.toISOString(),
      expiresAt: b.expiresAt?.toISOString() ?? null,
      contributors: b.contributors,
    })),
    nextCursor: page.nextCursor,
  };
}

const ExploreQuery = z.object({
  q: z.string().max(100).optional().meta({ description: "Words that must all appear in the issue's title" }),
  currency: Token.optional(),
  min: Amount.optional().meta({ description: "Smallest amount, whole units of `currency` (needs currency)" }),
  max: Amount.optional().meta({ description: "Largest amount, whole units of `currency` (needs currency)" }),
  label: z.string().max(100).optional(),
  language: z.string().max(100).optional().meta({ description: "The repository's primary language on GitHub" }),
  repo: z.string().max(100).optional().meta({ description: "owner/name" }),
  unclaimed: z.enum(["1", "0", "true", "false"]).optional().meta({ description: "1: only bounties nobody works on yet" }),
  sort: z.enum(EXPLORE_SORTS).optional().meta({ description: "newest (default), oldest, largest (needs currency), expiring (soonest boost expiry first; only bounties with an expiring boost)" }),
  cursor: z.string().optional().meta({ description: "The previous page's nextCursor" }),
  limit: z.string().regex(/^\d+$/).optional().meta({ description: `1 to ${EXPLORE_MAX_PAGE_SIZE}, default 24` }),
});

export const ExplorePageShape = z
  .object({
    bounties: z.array(z.object({
      repoId: z.number().int(), repository: z.string(), language: z.string().nullable(),
      issueNumber: z.number().int(), title: z.string().nullable(), url: z.string().nullable(), labels: z.array(z.string()),
      currency: Token,
      amount: Amount.meta({ description: "The whole bounty: the pool's share plus the funders' active shares" }),
      boosted: Amount.optional().meta({ description: "The funders' active shares within amount (issue 29)" }),
      funders: z.number().int().optional().meta({ description: "How many funders' active shares boosted is made of" }),
      allocatedAt: Timestamp,
      expiresAt: Timestamp.nullable().optional().meta({ description: "The earliest expiry of its active boosts (a funder's share goes back then); null when none expires" }),
      contributors: z.number().int().meta({ description: "Contributors who chose to work on it" }),
    })),
    nextCursor: z.string().nullable(),
    search: z.string().meta({ description: "The search's canonical query string (the shareable /explore URL's)" }),
  })
  .openapi("ExplorePage");

export const exploreApi = [
  declareRoute({
    method: "get", path: "/api/explore", operationId: "exploreBounties", tags: ["public"], security: ANONYMOUS,
    errors: ["invalid_search", "invalid_search_text"],
    summary: "Open bounties across the registered public repositories, filtered, a page at a time (keyset)",
    request: { query: ExploreQuery },
    responses: { 200: json("A page of open bounties", ExplorePageShape) },
  }),
];
