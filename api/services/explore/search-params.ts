/**
 * An /explore search as its URL's parameters say it (search.ts runs it): parsed strictly (a bad value is a 400 that
 * says which), written back to canonical parameters (the shareable URL: defaults left out, a fixed order), and the
 * opaque keyset cursor of a page.
 */
/**
 * /explore: every open bounty across the registered public repositories, filtered and ordered, a page at a
 * time. One module for the page, the API (GET /api/explore) and whoever keeps searches (saved searches,
 * digests, feeds): a search is parsed from the URL's parameters (strictly: a bad value is a 400 that says
 * which), written back to canonical parameters (the shareable URL), and run.
 *
 *   parseExploreSearch(URLSearchParams) -> ExploreSearch        (throws DomainError 400)
 *   exploreSearchParams(ExploreSearch)  -> URLSearchParams      (canonical: defaults left out, fixed order)
 *   searchOpenBounties(deps, search, { allocatedAfter? }) -> { bounties, nextCursor }
 *
 * Pages go by keyset (the last row's sort key, repository id and issue number in an opaque cursor), never by
 * OFFSET: page 1,000 costs what page 1 does, and a bounty allocated meanwhile does not shift a page.
 * Amounts are compared only within one currency: an amount range and the "largest" order need `currency`,
 * because the platform invents no exchange rate.
 */
import { bounties, CURRENCIES, type Currency } from "../../../db/schema/index.ts";
import { parseAmount } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { DomainError, ErrorCode, refused } from "../../errors.ts";
import { CONTROL_CHARACTER } from "../../../lib/text-input.ts";

/**
 * The orders offered. "expiring": soonest expiry first, where a bounty's expiry is the earliest `expires_at` of its
 * active boosts (issue 29: past it, that funder's share goes back); bounties without an expiring boost are left out
 * of this order (they never expire). Read by walking bounty_boosts_explore_expiry_idx.
 */
export const EXPLORE_SORTS = ["newest", "oldest", "largest", "expiring"] as const;
export type ExploreSort = (typeof EXPLORE_SORTS)[number];

export const EXPLORE_PAGE_SIZE = 24;
export const EXPLORE_MAX_PAGE_SIZE = 100;
const MAX_TEXT = 100;

/** The parameters a search reads from a URL; any other parameter is left alone (utm_*, the page's own). */
export const EXPLORE_PARAMS = ["q", "currency", "min", "max", "label", "language", "repo", "unclaimed", "sort", "cursor", "limit"] as const;

export interface ExploreSearch {
  /** Words that must all appear in the issue's title (case-insensitive). */
  q?: string;
  currency?: Currency;
  /** Inclusive bounds in the smallest unit of `currency` (set only with a currency). */
  min?: bigint;
  max?: bigint;
  /** A label name, lower-cased. */
  label?: string;
  /** GitHub's primary language of the repository, matched case-insensitively. */
  language?: string;
  /** `owner/name`, lower-cased. */
  repo?: string;
  /** Only bounties nobody has chosen to work on yet. */
  unclaimed: boolean;
  sort: ExploreSort;
  cursor?: ExploreCursor;
  limit: number;
}

/** Where the previous page stopped: its last row's sort key, repository and issue, for the order it was read in. */
export interface ExploreCursor {
  sort: ExploreSort;
  key: number | string;
  repoId: number;
  issueNumber: number;
}

export interface ExploreBounty {
  repoId: number;
  repository: string;
  language: string | null;
  issueNumber: number;
  title: string | null;
  url: string | null;
  labels: string[];
  currency: Currency;
  /** The whole bounty: the pool's share plus the funders' active shares. Smallest unit; formatted at the edge. */
  amount: bigint;
  /** The funders' active shares in `amount` (all of it for a bounty the pool left to its funders). */
  boosted: bigint;
  /** How many funders' active shares `boosted` is made of. */
  funders: number;
  allocatedAt: Date;
  /** The earliest expiry of its active boosts (when a funder's share goes back); null when none expires. */
  expiresAt: Date | null;
  /** Contributors who chose to work on it. */
  contributors: number;
}

export interface ExplorePage {
  bounties: ExploreBounty[];
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

const invalid = (message: string) => refused(ErrorCode.INVALID_SEARCH, message, { error: "Invalid search" });

/**
 * A parameter with a control character (C0 with NUL, DEL, C1): refused before anything reads it. A NUL reached
 * SQLite's full-text index (an FTS5 MATCH string cut at the NUL) and answered 500 (issue 36); none belongs in a search.
 */
export const controlCharacterRefused = (name: string) =>
  new DomainError({ code: ErrorCode.INVALID_SEARCH_TEXT, error: "Invalid search", message: `${name}: control characters (such as NUL or a line break) are not allowed in a search.` });

function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw invalid(`${name}: give it once (it was given ${values.length} times).`);
  const value = values[0];
  if (value === undefined || value === "") return undefined;
  if (CONTROL_CHARACTER.test(value)) throw controlCharacterRefused(name);
  if (value.length > MAX_TEXT) throw invalid(`${name}: at most ${MAX_TEXT} characters.`);
  return value;
}

function amountBound(name: "min" | "max", text: string | undefined, currency: Currency | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  if (!currency) throw invalid(`${name}: an amount range needs a currency (currency=XDC, ROXN or USDC); amounts in different currencies are not compared.`);
  const parsed = parseAmount(text, DECIMALS[currency]);
  if (!parsed.ok) {
    throw invalid(
      parsed.reason === "decimals"
        ? `${name}: ${currency} has at most ${DECIMALS[currency]} decimals.`
        : `${name}: a number of ${currency} such as 10 or 2.5 (got "${text}").`,
    );
  }
  return parsed.value;
}

/** A search from a URL's parameters; a bad value is a 400 that names the parameter and what it takes. */
export function parseExploreSearch(params: URLSearchParams): ExploreSearch {
  const currencyText = single(params, "currency");
  const currency = currencyText === undefined ? undefined : CURRENCIES.find((c) => c === currencyText.toUpperCase());
  if (currencyText !== undefined && !currency) throw invalid(`currency: one of ${CURRENCIES.join(", ")} (got "${currencyText}").`);
  const min = amountBound("min", single(params, "min"), currency);
  const max = amountBound("max", single(params, "max"), currency);
  if (min !== undefined && max !== undefined && min > max) throw invalid("min: the smallest amount is above max.");

  const sortText = single(params, "sort") ?? "newest";
  const sort = EXPLORE_SORTS.find((s) => s === sortText);
  if (!sort) throw invalid(`sort: one of ${EXPLORE_SORTS.join(", ")} (got "${sortText}").`);
  if (sort === "largest" && !currency) throw invalid("sort: largest needs a currency (currency=XDC, ROXN or USDC); amounts in different currencies are not compared.");

  const unclaimedText = single(params, "unclaimed");
  if (unclaimedText !== undefined && !["1", "true", "0", "false"].includes(unclaimedText)) throw invalid(`unclaimed: 1 or 0 (got "${unclaimedText}").`);

  const limitText = single(params, "limit");
  let limit = EXPLORE_PAGE_SIZE;
  if (limitText !== undefined) {
    if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > EXPLORE_MAX_PAGE_SIZE) {
      throw invalid(`limit: a whole number from 1 to ${EXPLORE_MAX_PAGE_SIZE} (got "${limitText}").`);
    }
    limit = Number(limitText);
  }

  const repo = single(params, "repo");
  if (repo !== undefined && !/^[\w.-]+\/[\w.-]+$/.test(repo)) throw invalid(`repo: owner/name (got "${repo}").`);

  const cursorText = single(params, "cursor");
  const cursor = cursorText === undefined ? undefined : decodeCursor(cursorText, sort);
  const q = single(params, "q")?.trim();
  const label = single(params, "label")?.trim().toLowerCase();
  const language = single(params, "language")?.trim();
  return {
    ...(q ? { q } : {}),
    ...(currency ? { currency } : {}),
    ...(min !== undefined ? { min } : {}),
    ...(max !== undefined ? { max } : {}),
    ...(label ? { label } : {}),
    ...(language ? { language } : {}),
    ...(repo ? { repo: repo.toLowerCase() } : {}),
    unclaimed: unclaimedText === "1" || unclaimedText === "true",
    sort,
    ...(cursor ? { cursor } : {}),
    limit,
  };
}

/** The canonical parameters of a search (defaults and the cursor left out unless `withCursor`): the shareable URL. */
export function exploreSearchParams(search: Partial<ExploreSearch>, options: { withCursor?: boolean } = {}): URLSearchParams {
  const params = new URLSearchParams();
  if (search.q) params.set("q", search.q);
  if (search.currency) params.set("currency", search.currency);
  if (search.currency && search.min !== undefined) params.set("min", formatBound(search.min, search.currency));
  if (search.currency && search.max !== undefined) params.set("max", formatBound(search.max, search.currency));
  if (search.label) params.set("label", search.label);
  if (search.language) params.set("language", search.language);
  if (search.repo) params.set("repo", search.repo);
  if (search.unclaimed) params.set("unclaimed", "1");
  if (search.sort && search.sort !== "newest") params.set("sort", search.sort);
  if (search.limit && search.limit !== EXPLORE_PAGE_SIZE) params.set("limit", String(search.limit));
  if (options.withCursor && search.cursor) params.set("cursor", encodeCursor(search.cursor));
  return params;
}

function formatBound(value: bigint, currency: Currency): string {
  const decimals = BigInt(DECIMALS[currency]);
  const unit = 10n ** decimals;
  const fraction = (value % unit).toString().padStart(Number(decimals), "0").replace(/0+$/, "");
  return `${value / unit}${fraction ? `.${fraction}` : ""}`;
}

export function encodeCursor(cursor: ExploreCursor): string {
  return Buffer.from(JSON.stringify([cursor.sort, cursor.key, cursor.repoId, cursor.issueNumber])).toString("base64url");
}

function decodeCursor(text: string, sort: ExploreSort): ExploreCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const bad = () => invalid("cursor: not a cursor this search gave (start again from the first page).");
  if (!Array.isArray(parsed) || parsed.length !== 4) throw bad();
  const [s, key, repoId, issueNumber] = parsed as unknown[];
  if (s !== sort) throw invalid("cursor: it belongs to another order (start again from the first page).");
  const keyOk = sort === "largest" ? typeof key === "string" && /^\d{40}$/.test(key) : Number.isSafeInteger(key);
  if (!keyOk || !Number.isSafeInteger(repoId) || !Number.isSafeInteger(issueNumber)) throw bad();
  return { sort, key: key as number | string, repoId: repoId as number, issueNumber: issueNumber as number };
}

/** An amount as bounties.amount_key holds it (40 digits, zero-padded). */
