import type { Database } from "../../../db/client.ts";
import type { Currency } from "../../../db/schema/index.ts";
import { bountyText, formatExact } from "../../../lib/money-format.ts";
import { ErrorCode, refused } from "../../errors.ts";
import { CONTROL_CHARACTER } from "../../../lib/text-input.ts";
import { controlCharacterRefused, EXPLORE_PARAMS, exploreSearchParams, parseExploreSearch, searchOpenBounties, type ExploreSearch } from "../explore/search.ts";

/**
 * An explore search as alerts keep it (saved searches, the digest, the explore feed): the explore page's URL
 * query, parsed and written back by the explore module (api/services/explore/search.ts), so a saved search
 * is exactly the page a person saw and two spellings of one search are one saved search. A saved search
 * refuses parameters explore does not read (a search saved with a typo would match more than meant); the
 * cursor and page size are not part of a search.
 */
export type BountySearch = ExploreSearch;

const SAVED_KEYS = new Set<string>(EXPLORE_PARAMS);

export function parseSearch(query: string, options: { strict?: boolean } = { strict: true }): BountySearch {
  const params = new URLSearchParams(query.startsWith("?") ? query.slice(1) : query);
  if (options.strict) {
    for (const key of new Set(params.keys())) {
      if (CONTROL_CHARACTER.test(key)) throw controlCharacterRefused("query");
      if (!SAVED_KEYS.has(key)) throw refused(ErrorCode.INVALID_SEARCH, `query: ${key} is not an explore filter (${EXPLORE_PARAMS.join(", ")}).`, { error: "Invalid search" });
    }
  }
  params.delete("cursor");
  params.delete("limit");
  return parseExploreSearch(params);
}

/** The canonical query string of a search (explore's order; empty when it matches every open bounty). */
export function canonicalQuery(search: BountySearch): string {
  return exploreSearchParams({ ...search, cursor: undefined, limit: undefined }).toString();
}

/** A short human description of a search ("at least 10 XDC, in owner/repo, "parser""), for the digest and the feed title. */
export function describeSearch(search: BountySearch): string {
  const parts: string[] = [];
  const amount = (v: bigint) => formatExact(v, search.currency!);
  const unit = search.currency ? ` ${search.currency}` : "";
  if (search.min !== undefined && search.max !== undefined) parts.push(`${amount(search.min)}-${amount(search.max)}${unit}`);
  else if (search.min !== undefined) parts.push(`at least ${amount(search.min)}${unit}`);
  else if (search.max !== undefined) parts.push(`at most ${amount(search.max)}${unit}`);
  else if (search.currency) parts.push(search.currency);
  if (search.label) parts.push(`labelled ${search.label}`);
  if (search.language) parts.push(search.language);
  if (search.repo) parts.push(`in ${search.repo}`);
  if (search.q) parts.push(`"${search.q}"`);
  if (search.unclaimed) parts.push("nobody working on it yet");
  return parts.length ? parts.join(", ") : "all open bounties";
}

export interface MatchedBounty {
  repoId: number;
  fullName: string;
  issueNumber: number;
  issueTitle: string | null;
  issueUrl: string | null;
  currency: Currency;
  /** The whole bounty (the pool's share and its funders' active shares). */
  amount: bigint;
  /** The funders' active shares in `amount`, and how many they are. */
  boosted: bigint;
  funders: number;
  allocatedAt: Date;
}

/** A matched bounty's amount in words, as every page shows it: "54.9750 XDC (50.0000 XDC from the pool + 4.9750 XDC from 1 funder)". */
export function matchedAmountText(b: Pick<MatchedBounty, "currency" | "amount" | "boosted" | "funders">): string {
  const { total, breakdown } = bountyText({ currency: b.currency, pool: b.amount - b.boosted, funders: b.boosted, funderCount: b.funders });
  return breakdown ? `${total} (${breakdown})` : total;
}

/**
 * Open bounties matching a search, newest first (explore's query and indexes): allocated after `since` and, when
 * given, up to `until`.
 */
export async function matchingBounties(
  db: Database,
  search: BountySearch,
  options: { since?: Date; until?: Date; limit?: number } = {},
): Promise<MatchedBounty[]> {
  const page = await searchOpenBounties(
    { database: { db } },
    { ...search, sort: "newest", cursor: undefined, limit: options.limit ?? 50 },
    { allocatedAfter: options.since },
  );
  return page.bounties
    .filter((b) => !options.until || b.allocatedAt.getTime() <= options.until.getTime())
    .map((b) => ({
      repoId: b.repoId,
      fullName: b.repository,
      issueNumber: b.issueNumber,
      issueTitle: b.title,
      issueUrl: b.url,
      currency: b.currency,
      amount: b.amount,
      boosted: b.boosted,
      funders: b.funders,
      allocatedAt: b.allocatedAt,
    }));
}
