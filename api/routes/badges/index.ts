import { ANONYMOUS, declareRoute, json, noJson, STABLE, z } from "../../openapi/declare.ts";
import { Hono } from "hono";
import { makeBadge } from "badge-maker";
import type { AppBindings, AppContext } from "../../context.ts";
import { bountyText, formatAmount } from "../../../lib/money-format.ts";
import { notFound } from "../../errors.ts";
import { repositoryByFullName } from "../../services/repositories/register.ts";
import { ownerName, repoName } from "../params.ts";
import { movedResponse } from "../moved.ts";
import { and, eq } from "drizzle-orm";
import { advertisedBounties } from "../../services/repositories/public.ts";
import { bountyStates } from "../../services/money/bounty-state.ts";
import { bounties, repositoryPools } from "../../../db/schema/index.ts";
import { fundersOfIssues } from "../../services/funding/funders-read.ts";
import { describeWithin, reliabilityOf, type Reliability } from "../../services/reliability/read.ts";

interface Badge {
  label: string;
  message: string;
  color: string;
}

const BADGE_AGE = 300;

/**
 * Badges for READMEs and issues (beyond the spec):
 * GET /api/badges/{owner}/{repo}.svg                    pool and open bounties
 * GET /api/badges/{owner}/{repo}/issues/{number}.svg    the issue's bounty
 * and the same with .json: shields.io's endpoint format
 * (https://shields.io/badges/endpoint-badge). Private or unknown
 * repositories get a neutral "not registered" badge, never data. A former
 * name of a renamed or transferred repository redirects (301) to its current
 * name (issue 39): badges already in READMEs keep showing.
 */
export function badgeRoutes(ctx: AppContext) {
  const send = (c: { body: (data: string, status: number, headers: Record<string, string>) => Response }, badge: Badge, format: string, tag: string) => {
    const headers = { "Cache-Control": `public, max-age=${BADGE_AGE}`, "X-Page-Cache": `max-age=${BADGE_AGE}; tags=${tag}` };
    if (format === "json") {
      return c.body(JSON.stringify({ schemaVersion: 1, ...badge, cacheSeconds: BADGE_AGE }), 200, { ...headers, "Content-Type": "application/json" });
    }
    return c.body(makeBadge({ label: badge.label, message: badge.message, color: badge.color, style: "flat" }), 200, {
      ...headers,
      "Content-Type": "image/svg+xml; charset=utf-8",
    });
  };
  const notRegistered: Badge = { label: "issuepool", message: "not registered", color: "lightgrey" };
  const parseFile = (file: string) => /^(.+)\.(svg|json)$/.exec(file);

  const routes = new Hono<AppBindings>()
    // `:repo` holds the file name here ("name.svg"): one param name per position keeps the RegExpRouter (app.test.ts).
    .get("/:owner/:repo", async (c) => {
      const match = parseFile(c.req.param("repo"));
      const owner = c.req.param("owner");
      if (!match || !ownerName.safeParse(owner).success || !repoName.safeParse(match[1]).success) throw notFound();
      const repository = await repositoryByFullName(ctx, `${owner}/${match[1]}`);
      if (!repository) {
        const moved = await movedResponse(ctx, c.req.url, owner, match[1]!, `.${match[2]}`);
        if (moved) return moved;
      }
      if (!repository || repository.isPrivate) return send(c, notRegistered, match[2]!, "repositories");
      const [xdcPool] = await ctx.database.db
        .select({ balance: repositoryPools.balance })
        .from(repositoryPools)
        .where(and(eq(repositoryPools.githubRepoId, repository.githubRepoId), eq(repositoryPools.currency, "XDC")));
      // Advertised bounties only: one awaiting the pool manager's decision or held for someone is not open to work on.
      const rows = await ctx.database.db
        .select()
        .from(bounties)
        .where(and(eq(bounties.githubRepoId, repository.githubRepoId), eq(bounties.status, "open")));
      const open = (await advertisedBounties(ctx, rows)).advertised.length;
      const pool = xdcPool?.balance ?? 0n;
      const message = `${formatAmount(pool, "XDC", 2)} XDC pool · ${open} open ${open === 1 ? "bounty" : "bounties"}`;
      return send(c, { label: "issuepool", message, color: open > 0 ? "2f7ce0" : "informational" }, match[2]!, `repo:${repository.githubRepoId}`);
    })
    .get("/:owner/:repo/issues/:file", async (c) => {
      const match = parseFile(c.req.param("file"));
      const { owner, repo } = c.req.param();
      if (!match || !/^\d{1,9}$/.test(match[1]!) || !ownerName.safeParse(owner).success || !repoName.safeParse(repo).success) throw notFound();
      const repository = await repositoryByFullName(ctx, `${owner}/${repo}`);
      if (!repository) {
        const moved = await movedResponse(ctx, c.req.url, owner, repo, `/issues/${c.req.param("file")}`);
        if (moved) return moved;
      }
      if (!repository || repository.isPrivate) return send(c, notRegistered, match[2]!, "repositories");
      const [bounty] = await ctx.database.db
        .select()
        .from(bounties)
        .where(and(eq(bounties.githubRepoId, repository.githubRepoId), eq(bounties.issueNumber, Number(match[1]))));
      const info = bounty ? (await bountyStates(ctx, [bounty]))(bounty) : undefined;
      // An open bounty counts its funders' active shares (issue 29), and says how many backed it.
      const funding = bounty?.status === "open" ? (await fundersOfIssues(ctx.database.db, repository.githubRepoId, [bounty.issueNumber])).get(bounty.issueNumber) : undefined;
      const backers = funding?.funders.length ? ` · ${funding.funders.length} ${funding.funders.length === 1 ? "funder" : "funders"}` : "";
      // The same figure as every page (lib/money-format.ts): the whole bounty, never rounded.
      const figure = bounty ? bountyText({ currency: bounty.currency, pool: bounty.amount, funders: funding?.boosted ?? 0n, funderCount: funding?.funders.length ?? 0 }).total : "";
      const badge: Badge =
        !bounty || bounty.status === "cancelled"
          ? { label: "bounty", message: "none", color: "lightgrey" }
          : bounty.status === "paid"
            ? { label: "bounty", message: `${figure} · paid`, color: "success" }
            : info?.state === "held"
              ? { label: "bounty", message: `${figure} · held for @${info.heldFor}`, color: "yellow" }
              : info?.state === "awaiting"
                ? { label: "bounty", message: `${figure} · awaiting decision`, color: "yellow" }
                : { label: "bounty", message: `${figure}${backers}`, color: "2f7ce0" };
      return send(c, badge, match[2]!, `repo:${repository.githubRepoId}`);
    })
    // Static file names: a `:file` param beside `issues/:file` does not fit the RegExpRouter (app.test.ts).
    .get("/:owner/:repo/reliability.svg", (c) => reliabilityBadge(c, { ...c.req.param(), file: "reliability.svg" }))
    .get("/:owner/:repo/reliability.json", (c) => reliabilityBadge(c, { ...c.req.param(), file: "reliability.json" }));

  /** The sponsor's record (issue 30): how many payouts, how fast after the merge, how many automatic, decisions waiting. */
  async function reliabilityBadge(c: Parameters<typeof send>[0] & { req: { url: string } }, { owner, repo, file }: { owner: string; repo: string; file: string }) {
    const match = /^reliability\.(svg|json)$/.exec(file);
    if (!match || !ownerName.safeParse(owner).success || !repoName.safeParse(repo).success) throw notFound();
    const repository = await repositoryByFullName(ctx, `${owner}/${repo}`);
    if (!repository) {
      const moved = await movedResponse(ctx, c.req.url, owner, repo, `/${file}`);
      if (moved) return moved;
    }
    if (!repository || repository.isPrivate) return send(c, notRegistered, match[1]!, "repositories");
    const record = (await reliabilityOf(ctx, [repository.githubRepoId])).get(repository.githubRepoId)!;
    return send(c, reliabilityBadgeOf(record), match[1]!, `repo:${repository.githubRepoId}`);
  }
  return Object.assign(routes, { reliabilityBadge });
}

/** The reliability badge's words and colour. */
export function reliabilityBadgeOf(record: Reliability): Badge {
  const parts: string[] = [];
  if (record.paidCount === 0) parts.push("no payouts yet");
  else {
    parts.push(`${record.paidCount} paid`);
    const median = describeWithin(record.medianPaidWithinMs);
    if (median) parts.push(`median ${median} of merge`);
    if (record.automaticShare !== null) parts.push(`${Math.round(record.automaticShare * 100)}% automatic`);
  }
  if (record.decisionsWaiting) parts.push(`${record.decisionsWaiting} ${record.decisionsWaiting === 1 ? "decision" : "decisions"} waiting`);
  const slowDecision = record.oldestDecisionSince !== null && Date.now() - record.oldestDecisionSince.getTime() > 7 * 86_400_000;
  const color = slowDecision ? "yellow" : record.paidCount > 0 ? "success" : "informational";
  return { label: "pays", message: parts.join(" · "), color };
}

/** shields.io's endpoint format (the .json files). */
const BadgeData = z.object({ schemaVersion: z.literal(1), label: z.string(), message: z.string(), color: z.string(), cacheSeconds: z.number().int() }).openapi("BadgeData");
const badgeResponses = {
  200: {
    description: "The badge: SVG for `.svg`, shields.io endpoint data for `.json`",
    content: { "image/svg+xml": { schema: z.string() }, "application/json": { schema: BadgeData } },
  },
  301: noJson("A former name of a renamed or transferred repository: `Location` is the same badge under its current name"),
};

export const badgesApi = [
  declareRoute({
    method: "get", path: "/api/badges/{owner}/{repo}", operationId: "getRepositoryBadge", tags: ["public"], security: ANONYMOUS, ...STABLE,
    errors: ["not_found"],
    summary: "A repository's badge: its pool and open bounties (`{owner}/{name}.svg` or `{owner}/{name}.json`)",
    request: { params: z.object({ owner: ownerName, repo: z.string().regex(/^.+\.(svg|json)$/).meta({ description: "The repository's name and the format", example: "xdc-wallet-kit.json" }) }) },
    responses: badgeResponses,
  }),
  declareRoute({
    method: "get", path: "/api/badges/{owner}/{repo}/issues/{file}", operationId: "getIssueBadge", tags: ["public"], security: ANONYMOUS, ...STABLE,
    errors: ["not_found"],
    summary: "An issue's bounty badge (`{number}.svg` or `{number}.json`)",
    request: { params: z.object({ owner: ownerName, repo: repoName, file: z.string().regex(/^\d{1,9}\.(svg|json)$/).meta({ example: "12.json" }) }) },
    responses: badgeResponses,
  }),
  declareRoute({
    method: "get", path: "/api/badges/{owner}/{repo}/reliability.svg", operationId: "getReliabilityBadgeSVG", tags: ["public"], security: ANONYMOUS,
    errors: ["not_found"],
    summary: "A sponsor's reliability badge (also at /badge/{owner}/{repo}/reliability.svg): payouts, median time from merge to paid, share paid automatically, decisions waiting",
    request: { params: z.object({ owner: ownerName, repo: repoName }) },
    responses: badgeResponses,
  }),
  declareRoute({
    method: "get", path: "/api/badges/{owner}/{repo}/reliability.json", operationId: "getReliabilityBadgeJSON", tags: ["public"], security: ANONYMOUS,
    errors: ["not_found"],
    summary: "A sponsor's reliability badge (as JSON): payouts, median time from merge to paid, share paid automatically, decisions waiting",
    request: { params: z.object({ owner: ownerName, repo: repoName }) },
    responses: badgeResponses,
  }),
];
