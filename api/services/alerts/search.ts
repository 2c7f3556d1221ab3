import { and, desc, eq, gt, lte, notExists, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { bounties, bountyClaims, CURRENCIES, repositories, type Currency } from "../../../db/schema/index.ts";
import { decimalToUnits } from "../../../lib/money-format.ts";
import { badRequest } from "../../errors.ts";

/**
 * An explore search as alerts keep it (saved searches, the digest, the explore feed): the explore page's URL
 * query in a canonical form (known keys only, sorted, normalised), so two spellings of one search are one
 * saved search. Keys: `currency` (XDC|ROXN|USDC), `min`/`max` (whole units, of that currency or of each),
 * `repo` (owner/name), `q` (words of the title), `unclaimed` (1: nobody working on it yet), `sort` (kept for the
 * page; alerts always take the newest). When the explore page's own filter module lands (branch `explore`),
 * this parser gives way to it: the stored strings stay valid because they are the same URL query.
 */
export interface BountySearch {
  currency?: Currency;
  min?: string;
  max?: string;
  repo?: string;
  q?: string;
  unclaimed?: boolean;
  sort?: "newest" | "largest" | "oldest" | "expiring";
}

const SORTS = ["newest", "largest", "oldest", "expiring"] as const;
const DECIMAL = /^\d{1,30}(\.\d{1,18})?$/;

export function parseSearch(query: string): BountySearch {
  const params = new URLSearchParams(query.startsWith("?") ? query.slice(1) : query);
  const search: BountySearch = {};
  for (const [key, raw] of params) {
    const value = raw.trim();
    if (!value) continue;
    switch (key) {
      case "currency": {
        const upper = value.toUpperCase();
        if (!(CURRENCIES as readonly string[]).includes(upper)) throw badRequest("query: currency must be XDC, ROXN or USDC.");
        search.currency = upper as Currency;
        break;
      }
      case "min":
      case "max":
        if (!DECIMAL.test(value)) throw badRequest(`query: ${key} must be a decimal amount.`);
        search[key] = value.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
        break;
      case "repo":
        if (!/^[\w.-]{1,100}\/[\w.-]{1,100}$/.test(value)) throw badRequest("query: repo must be owner/name.");
        search.repo = value.toLowerCase();
        break;
      case "q":
        search.q = value.replace(/\s+/g, " ").slice(0, 100);
        break;
      case "unclaimed":
        if (value === "1" || value === "true") search.unclaimed = true;
        break;
      case "sort":
        if ((SORTS as readonly string[]).includes(value)) search.sort = value as BountySearch["sort"];
        break;
      default:
        throw badRequest(`query: ${key} is not a filter alerts know (currency, min, max, repo, q, unclaimed, sort).`);
    }
  }
  return search;
}

/** The canonical query string of a search (keys sorted; empty when it matches every open bounty). */
export function canonicalQuery(search: BountySearch): string {
  const entries: [string, string][] = [];
  if (search.currency) entries.push(["currency", search.currency]);
  if (search.max) entries.push(["max", search.max]);
  if (search.min) entries.push(["min", search.min]);
  if (search.q) entries.push(["q", search.q]);
  if (search.repo) entries.push(["repo", search.repo]);
  if (search.sort) entries.push(["sort", search.sort]);
  if (search.unclaimed) entries.push(["unclaimed", "1"]);
  return new URLSearchParams(entries).toString();
}

/** A short human description of a search ("XDC ≥ 10, in owner/repo, 'parser'"), for the digest and the feed title. */
export function describeSearch(search: BountySearch): string {
  const parts: string[] = [];
  const unit = search.currency ? ` ${search.currency}` : "";
  if (search.min && search.max) parts.push(`${search.min}-${search.max}${unit}`);
  else if (search.min) parts.push(`at least ${search.min}${unit}`);
  else if (search.max) parts.push(`at most ${search.max}${unit}`);
  else if (search.currency) parts.push(search.currency);
  if (search.repo) parts.push(`in ${search.repo}`);
  if (search.q) parts.push(`"${search.q}"`);
  if (search.unclaimed) parts.push("nobody working on it yet");
  return parts.length ? parts.join(", ") : "all open bounties";
}

function amountBound(search: BountySearch, bound: "min" | "max"): SQL | undefined {
  const value = search[bound];
  if (!value) return undefined;
  const compare = (currency: Currency) => {
    const units = decimalToUnits(value, currency);
    if (units === undefined) return sql`0`;
    // Amounts are decimal TEXT: compare as integers (SQLite's integer range covers 9.2e18; larger sorts by length first).
    const column = sql`${bounties.amount}`;
    return bound === "min"
      ? sql`(length(${column}) > ${units.toString().length} or (length(${column}) = ${units.toString().length} and ${column} >= ${units.toString()}))`
      : sql`(length(${column}) < ${units.toString().length} or (length(${column}) = ${units.toString().length} and ${column} <= ${units.toString()}))`;
  };
  const currencies = search.currency ? [search.currency] : [...CURRENCIES];
  return or(...currencies.map((c) => and(eq(bounties.currency, c), compare(c))));
}

export interface MatchedBounty {
  repoId: number;
  fullName: string;
  issueNumber: number;
  issueTitle: string | null;
  issueUrl: string | null;
  currency: Currency;
  amount: bigint;
  allocatedAt: Date;
  allocatedTx: string;
}

/** Open bounties of public, active repositories that match, newest first; `since`/`until` bound the allocation time. */
export async function matchingBounties(
  db: Database,
  search: BountySearch,
  options: { since?: Date; until?: Date; limit?: number } = {},
): Promise<MatchedBounty[]> {
  const like = search.q ? `%${search.q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%` : undefined;
  return db
    .select({
      repoId: bounties.githubRepoId,
      fullName: repositories.fullName,
      issueNumber: bounties.issueNumber,
      issueTitle: bounties.issueTitle,
      issueUrl: bounties.issueUrl,
      currency: bounties.currency,
      amount: bounties.amount,
      allocatedAt: bounties.allocatedAt,
      allocatedTx: bounties.allocatedTx,
    })
    .from(bounties)
    .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
    .where(
      and(
        eq(bounties.status, "open"),
        eq(repositories.isPrivate, false),
        eq(repositories.isActive, true),
        options.since ? gt(bounties.allocatedAt, options.since) : undefined,
        options.until ? lte(bounties.allocatedAt, options.until) : undefined,
        search.repo ? eq(repositories.fullNameKey, search.repo) : undefined,
        like ? sql`${bounties.issueTitle} like ${like} escape '\\'` : undefined,
        amountBound(search, "min"),
        amountBound(search, "max"),
        search.unclaimed
          ? notExists(
              db
                .select({ one: sql`1` })
                .from(bountyClaims)
                .where(and(eq(bountyClaims.githubRepoId, bounties.githubRepoId), eq(bountyClaims.issueNumber, bounties.issueNumber))),
            )
          : undefined,
      ),
    )
    .orderBy(desc(bounties.allocatedAt))
    .limit(options.limit ?? 50);
}
