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
import { and, asc, desc, eq, gt, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Database } from "../../../db/client.ts";
import { bounties, bountyBoosts, CURRENCIES, type Currency } from "../../../db/schema/index.ts";
import { parseAmount } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { DomainError, ErrorCode, refused } from "../../errors.ts";
import { CONTROL_CHARACTER } from "../../../lib/text-input.ts";
import { repositoryIdNamed } from "../repositories/former-names.ts";

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
export const amountKeyOf = (value: bigint) => value.toString().padStart(40, "0");

interface Order {
  key: SQL | SQLiteColumn;
  direction: "asc" | "desc";
  keyOf(row: { allocatedAt: Date; amount: bigint; expiresAt: Date | null }): number | string;
  /** The row's repository and issue as the order's index holds them (the boost's for "expiring"). */
  repoId: SQLiteColumn;
  issueNumber: SQLiteColumn;
}

const ORDERS: Record<ExploreSort, Order> = {
  newest: { key: bounties.allocatedAt, direction: "desc", keyOf: (r) => r.allocatedAt.getTime(), repoId: bounties.githubRepoId, issueNumber: bounties.issueNumber },
  oldest: { key: bounties.allocatedAt, direction: "asc", keyOf: (r) => r.allocatedAt.getTime(), repoId: bounties.githubRepoId, issueNumber: bounties.issueNumber },
  largest: { key: sql`${bounties.amountKey}`, direction: "desc", keyOf: (r) => amountKeyOf(r.amount), repoId: bounties.githubRepoId, issueNumber: bounties.issueNumber },
  expiring: {
    key: bountyBoosts.expiresAt,
    direction: "asc",
    keyOf: (r) => r.expiresAt?.getTime() ?? 0,
    repoId: bountyBoosts.githubRepoId,
    issueNumber: bountyBoosts.issueNumber,
  },
};

/** The words of a title search (at most 8). */
const wordsOf = (q: string) => q.split(/\s+/).filter(Boolean).slice(0, 8);

/** Words of a title search, each a LIKE pattern with its wildcards escaped. */
function titleWords(q: string): string[] {
  return wordsOf(q).map((w) => `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
}

/**
 * The full-text query (FTS5 over explore_titles, trigram tokenizer, migration 0015) of a title search's words of 3
 * characters or more: for each word its first and last trigram, each a term of its own, all required. A title holding
 * the word holds both, so the matches are a superset of the LIKE tests' (which decide); terms, not the word as a
 * phrase: a phrase checks every trigram's positions, which for three common words together cost 16-23 ms at 100x
 * against 4 ms (docs/performance.md). Undefined when no word is long enough (shorter ones go to shortWordsQuery).
 */
export function titleMatchQuery(q: string | undefined): string | undefined {
  const terms = new Set<string>();
  for (const word of q ? wordsOf(q) : []) {
    const chars = [...word];
    if (chars.length < 3) continue;
    terms.add(chars.slice(0, 3).join(""));
    terms.add(chars.slice(-3).join(""));
  }
  return terms.size ? [...terms].map(quoted).join(" AND ") : undefined;
}

/**
 * The full-text query (FTS5 over explore_title_words, unicode61 tokenizer: whole words, case-folded; migration 0017)
 * of a title search's words of 1 or 2 characters: each must be a whole word of the title (it decides, with the LIKE
 * test too: "ui" finds "UI polish", no longer "build"). A word of punctuation only ("++") is no word: it matches
 * nothing. Undefined when no word is that short.
 */
export function shortWordsQuery(q: string | undefined): string | undefined {
  const short = q ? wordsOf(q).filter((w) => [...w].length < 3) : [];
  return short.length ? short.map(quoted).join(" AND ") : undefined;
}

const quoted = (word: string) => `"${word.replace(/"/g, '""')}"`;

/**
 * How a title search reads by its full-text matches' count (docs/performance.md, "Explore at 100x"):
 * - up to `byKey`: those bounties are read by key and sorted (each match costs its row and probes, ~7 us at 100x);
 * - up to `keyedWalk`: the order's index is walked and each entry tested against the matches' keys before its row is
 *   read (~0.3 us an entry; the keys' set costs ~0.4 us a key), so only matches' rows are read;
 * - more: the order's index is walked with the LIKE tests on each row (a common word matches a row in every few).
 * The search counts matches up to `keyedWalk` + 1. Tests pass small ones to take every path on small data.
 */
export interface TitleCutoffs {
  byKey: number;
  keyedWalk: number;
}
export const TITLE_CUTOFFS: TitleCutoffs = { byKey: 500, keyedWalk: 5_000 };

/** The key explore_titles and explore_title_words keep a bounty under (their rowid; migrations 0015, 0017). */
const TITLE_KEY_SHIFT = 16_777_216;

/**
 * How many open bounties' titles match a full-text query, counted up to `limit` (an FTS5 index read), and their keys
 * (a JSON array of rowids): the search reads those bounties by them, or tests the walk's entries against them,
 * without matching again.
 */
async function countMatches(db: Database, table: "explore_titles" | "explore_title_words", match: string, limit: number): Promise<{ n: number; keys: string }> {
  const rows = await db.all<{ n: number; keys: string }>(
    sql`select count(*) as n, json_group_array(rowid) as keys from (select rowid from ${sql.identifier(table)} where ${sql.identifier(table)} match ${match} limit ${limit})`,
  );
  return { n: Number(rows[0]?.n ?? 0), keys: rows[0]?.keys ?? "[]" };
}

/**
 * How a title search reads: "few" (read the bounties by key from explore_titles' matches), "few-words" (from
 * explore_title_words' matches), "many" (walk the order's index: with `keys`, each entry tested against them; without,
 * each row by the LIKE tests), or "none" (some word matches no title: the answer is empty). Undefined without title
 * words. `counts`: what each index counted (for the plans); `keys`: the matches (a JSON array of rowids).
 */
export async function titleReading(
  db: Database,
  q: string | undefined,
  cutoffs: TitleCutoffs = TITLE_CUTOFFS,
): Promise<{ titles: TitleReading | "none"; counts: { titles?: number; words?: number }; keys?: string } | undefined> {
  const long = titleMatchQuery(q);
  const short = shortWordsQuery(q);
  if (long === undefined && short === undefined) return undefined;
  const limit = Math.max(cutoffs.byKey, cutoffs.keyedWalk) + 1;
  const words = short === undefined ? undefined : await countMatches(db, "explore_title_words", short, limit);
  const titles = long === undefined || words?.n === 0 ? undefined : await countMatches(db, "explore_titles", long, limit);
  const counts = { ...(words ? { words: words.n } : {}), ...(titles ? { titles: titles.n } : {}) };
  if (words?.n === 0 || titles?.n === 0) return { titles: "none", counts };
  const fewest = Math.min(words?.n ?? Infinity, titles?.n ?? Infinity);
  const keys = fewest === titles?.n ? titles.keys : words!.keys;
  if (fewest <= cutoffs.byKey) return fewest === titles?.n ? { titles: "few", counts, keys } : { titles: "few-words", counts, keys };
  return fewest <= cutoffs.keyedWalk ? { titles: "many", counts, keys } : { titles: "many", counts };
}

export type TitleReading = "few" | "few-words" | "many";

/**
 * One page of open bounties matching `search`. `allocatedAfter`: only bounties allocated after that time (what
 * a digest or a feed has not yet told). Reads: the explore indexes of bounties, one repository row per bounty,
 * and a primary-key probe each for claims, decisions awaited and held payouts (docs/performance.md).
 */
export async function searchOpenBounties(
  deps: { database: { db: Database } },
  search: ExploreSearch,
  options: { allocatedAfter?: Date; titleCutoffs?: TitleCutoffs } = {},
): Promise<ExplorePage> {
  const order = ORDERS[search.sort];
  // A title search first counts its full-text matches (index reads): none, and the answer is empty at once; few,
  // and those bounties are read by key; many, and the order's index is walked with the tests (it stops soon).
  const reading = await titleReading(deps.database.db, search.q, options.titleCutoffs);
  const titles = reading?.titles;
  const allocatedAfter = options.allocatedAfter ? { allocatedAfter: options.allocatedAfter } : {};
  const rows =
    titles === "none" ? [] : await exploreQuery(deps.database.db, search, { ...allocatedAfter, ...(titles ? { titles } : {}), ...(reading?.keys ? { titleKeys: reading.keys } : {}) });
  const funders = await fundersTotals(deps.database.db, rows.slice(0, search.limit));
  const page = rows.slice(0, search.limit).map((r) => {
    const { amount: boosted, count } = funders.get(`${r.repoId}:${r.issueNumber}`) ?? { amount: 0n, count: 0 };
    return { ...r, amount: r.amount + boosted, boosted, funders: count, labels: parseLabels(r.labels), contributors: Number(r.contributors) };
  });
  const last = page.at(-1);
  // The order's key is the pool's share (bounties.amount_key), not the total shown.
  const nextCursor =
    rows.length > search.limit && last
      ? encodeCursor({ sort: search.sort, key: order.keyOf({ ...last, amount: last.amount - last.boosted }), repoId: last.repoId, issueNumber: last.issueNumber })
      : null;
  return { bounties: page, nextCursor };
}

/**
 * The funders' active shares of each listed bounty (issue 29: the total shown wherever the bounty shows is the pool's
 * share plus these; a bounty the pool left to its funders, after cancelPoolShare, is theirs alone and listed as the
 * community bounty it is: api/services/funding/pool-left.ts). Read by bounty_boosts_issue_idx, one probe per row.
 * Summed here: SQLite's sum() of TEXT amounts is a float.
 */
async function fundersTotals(db: Database, rows: { repoId: number; issueNumber: number }[]): Promise<Map<string, { amount: bigint; count: number }>> {
  const out = new Map<string, { amount: bigint; count: number }>();
  if (!rows.length) return out;
  const shares = await db
    .select({ repoId: bountyBoosts.githubRepoId, issueNumber: bountyBoosts.issueNumber, amount: bountyBoosts.amount })
    .from(bountyBoosts)
    .where(or(...rows.map((r) => and(eq(bountyBoosts.githubRepoId, r.repoId), eq(bountyBoosts.issueNumber, r.issueNumber), eq(bountyBoosts.status, "active")))));
  for (const s of shares) {
    const total = out.get(`${s.repoId}:${s.issueNumber}`) ?? { amount: 0n, count: 0 };
    out.set(`${s.repoId}:${s.issueNumber}`, { amount: total.amount + s.amount, count: total.count + 1 });
  }
  return out;
}

/** The statement of a search, not yet run (its plan is in docs/performance.md: scripts/bench/explore-plans.ts prints it). */
export function exploreQuery(db: Database, search: ExploreSearch, options: { allocatedAfter?: Date; titles?: TitleReading; titleKeys?: string } = {}) {
  const order = ORDERS[search.sort];
  // What the repository must be: listed (public, active), and of the language asked for.
  const repositoryTerms = [sql`r.is_private = 0`, sql`r.is_active = 1`];
  if (search.language) repositoryTerms.push(sql`lower(r.language) = ${search.language.toLowerCase()}`);
  const conditions: (SQL | undefined)[] = [
    eq(bounties.status, "open"),
    // A correlated probe by primary key, not a join: SQLite would build a Bloom filter over every repository for a
    // join (a scan of 100,000 rows per query), and might start from the repositories and sort every open bounty.
    sql`exists (select 1 from repositories r where r.github_repo_id = "bounties"."github_repo_id" and ${sql.join(repositoryTerms, sql` and `)})`,
    // A pool's share of 0 is a bounty its pool manager left to its funders (cancelPoolShare): on offer while a share is on it.
    sql`(${bounties.amount} <> '0' or exists (select 1 from bounty_boosts x where x.github_repo_id = "bounties"."github_repo_id" and x.issue_number = "bounties"."issue_number" and x.status = 'active'))`,
    // Not on offer: awaiting its pool manager's decision (this allocation), or held for a GitHub user who earned it.
    sql`not exists (select 1 from awaiting_decisions a where a.github_repo_id = "bounties"."github_repo_id" and a.issue_number = "bounties"."issue_number" and a.allocated_tx = "bounties"."allocated_tx")`,
    sql`not exists (select 1 from held_payouts h where h.github_repo_id = "bounties"."github_repo_id" and h.issue_number = "bounties"."issue_number" and h.released_at is null)`,
    // Nor a bounty whose fix is merged (issue 38): shared among its people (release window open, or shares being paid),
    // or paid and not yet mirrored as paid (bounty-state.ts: only open and claimed are advertised). Primary-key and
    // partial-index probes (payout_splits, chain_tx_one_payout_idx: its terms are the index's).
    sql`not exists (select 1 from payout_splits s where s.github_repo_id = "bounties"."github_repo_id" and s.issue_number = "bounties"."issue_number" and s.status in ('window', 'releasing'))`,
    sql`not exists (select 1 from chain_transactions p where p.github_repo_id = "bounties"."github_repo_id" and p.issue_number = "bounties"."issue_number" and p.kind = 'pay_bounty' and p.status not in ('failed', 'reverted') and p.old_chain is null)`,
  ];
  if (search.currency) conditions.push(eq(bounties.currency, search.currency));
  // Unary + keeps SQLite from reading an amount range by index and sorting it: a range matches a large share of a
  // currency's bounties, so walking the order's index and filtering stops after a page (docs/performance.md).
  const amountTerm = search.sort === "largest" ? sql`${bounties.amountKey}` : sql`+${bounties.amountKey}`;
  if (search.min !== undefined) conditions.push(sql`${amountTerm} >= ${amountKeyOf(search.min)}`);
  if (search.max !== undefined) conditions.push(sql`${amountTerm} <= ${amountKeyOf(search.max)}`);
  // The label: first a substring test on the row (no subquery: SQLite evaluates it before the correlated probes,
  // and it rejects most rows), then the exact test on the JSON array (a label may hold a quote). With a language too,
  // few rows match both, and each rejected row now costs the substring test only (docs/performance.md).
  if (search.label) {
    conditions.push(sql`instr(${bounties.labels}, json_quote(${search.label})) > 0`);
    conditions.push(sql`exists (select 1 from json_each("bounties"."labels") where value = ${search.label})`);
  }
  // With a repository filter its own bounties are few: read them by (status, repository) (bounties_status_idx). A name
  // the repository had before a rename or transfer still means it (issue 39: saved searches keep working).
  if (search.repo) conditions.push(sql`${bounties.githubRepoId} = ${repositoryIdNamed(search.repo)}`);
  if (search.unclaimed) {
    conditions.push(sql`not exists (select 1 from bounty_claims c where c.github_repo_id = "bounties"."github_repo_id" and c.issue_number = "bounties"."issue_number")`);
  }
  // Title words: LIKE decides (substring, ASCII case-insensitive, as always), and a word of 1 or 2 characters must
  // also be a whole word of the title (explore_title_words decides it). With few full-text matches the bounties are
  // read by key from them instead of walking the order (an absent word costs an index lookup); walking, a short
  // word is tested on each row by a rowid lookup in explore_title_words.
  const match = titleMatchQuery(search.q);
  const short = shortWordsQuery(search.q);
  const key = sql`"bounties"."github_repo_id" * ${sql.raw(String(TITLE_KEY_SHIFT))} + "bounties"."issue_number"`;
  // Read by key: from the keys the count found (titleReading), else by matching again.
  const readByKey = (table: string, query: string) =>
    options.titleKeys !== undefined
      ? sql`(${bounties.githubRepoId}, ${bounties.issueNumber}) in (select value / ${sql.raw(String(TITLE_KEY_SHIFT))}, value % ${sql.raw(String(TITLE_KEY_SHIFT))} from json_each(${options.titleKeys}))`
      : sql`(${bounties.githubRepoId}, ${bounties.issueNumber}) in (select rowid / ${sql.raw(String(TITLE_KEY_SHIFT))}, rowid % ${sql.raw(String(TITLE_KEY_SHIFT))} from ${sql.identifier(table)} where ${sql.identifier(table)} match ${query})`;
  if (match !== undefined && options.titles === "few") conditions.push(readByKey("explore_titles", match));
  // Walking with the matches' keys (more than a few, not too many): each entry of the order's index is tested against
  // them before its row is read (unary +: a filter on the walk, not a read by key), so only the matches' rows are read.
  if (options.titles === "many" && options.titleKeys !== undefined) {
    conditions.push(
      sql`(+${bounties.githubRepoId}, +${bounties.issueNumber}) in (select value / ${sql.raw(String(TITLE_KEY_SHIFT))}, value % ${sql.raw(String(TITLE_KEY_SHIFT))} from json_each(${options.titleKeys}))`,
    );
  }
  if (short !== undefined) {
    conditions.push(
      options.titles === "few-words"
        ? readByKey("explore_title_words", short)
        : sql`exists (select 1 from explore_title_words w where w.explore_title_words match ${short} and w.rowid = ${key})`,
    );
  }
  for (const word of search.q ? titleWords(search.q) : []) conditions.push(sql`${bounties.issueTitle} like ${word} escape '\\'`);
  if (options.allocatedAfter) conditions.push(gt(bounties.allocatedAt, options.allocatedAfter));
  if (search.cursor) {
    const c = search.cursor;
    const key = search.sort === "largest" ? c.key : new Date(c.key as number).getTime();
    conditions.push(
      order.direction === "desc"
        ? sql`(${order.key}, ${order.repoId}, ${order.issueNumber}) < (${key}, ${c.repoId}, ${c.issueNumber})`
        : sql`(${order.key}, ${order.repoId}, ${order.issueNumber}) > (${key}, ${c.repoId}, ${c.issueNumber})`,
    );
  }
  const by = order.direction === "desc" ? desc : asc;
  const expiresAt =
    search.sort === "expiring"
      ? sql<Date | null>`${bountyBoosts.expiresAt}`.mapWith(bountyBoosts.expiresAt)
      : sql<Date | null>`(select min(x.expires_at) from bounty_boosts x where x.github_repo_id = "bounties"."github_repo_id" and x.issue_number = "bounties"."issue_number" and x.status = 'active')`.mapWith(bountyBoosts.expiresAt);
  // "expiring" walks the active boosts by expiry (bounty_boosts_explore_expiry_idx), each bounty once: at its
  // earliest expiring boost (ties by boost id), its bounty read by primary key. The others read bounties alone.
  const earliestBoost = and(
    eq(bountyBoosts.githubRepoId, bounties.githubRepoId),
    eq(bountyBoosts.issueNumber, bounties.issueNumber),
    eq(bountyBoosts.status, "active"),
    sql`${bountyBoosts.expiresAt} is not null`,
    sql`not exists (select 1 from bounty_boosts o where o.github_repo_id = "bounty_boosts"."github_repo_id" and o.issue_number = "bounty_boosts"."issue_number" and o.status = 'active' and o.expires_at is not null and (o.expires_at < "bounty_boosts"."expires_at" or (o.expires_at = "bounty_boosts"."expires_at" and o.id < "bounty_boosts"."id")))`,
  );
  const ordered = [by(order.key), by(order.repoId), by(order.issueNumber)];
  // Read by key (few title matches): every match is read and sorted, so the page is chosen first by its keys alone
  // (the filters and the order's columns), and only the page's rows compute their columns (repository, language,
  // expiry, contributors), read again by primary key: 2,352 matches cost their probes, not their columns too.
  const byKey = options.titles === "few" || options.titles === "few-words";
  if (byKey) {
    const keys = db.select({ repoId: bounties.githubRepoId, issueNumber: bounties.issueNumber }).from(bounties);
    const page = (search.sort === "expiring" ? keys.innerJoin(bountyBoosts, earliestBoost) : keys)
      .where(and(...conditions))
      .orderBy(...ordered)
      .limit(search.limit + 1);
    conditions.length = 0;
    conditions.push(sql`(${bounties.githubRepoId}, ${bounties.issueNumber}) in ${page}`);
  }
  const select = db
    .select({
      repoId: bounties.githubRepoId,
      repository: sql<string>`(select full_name from repositories r where r.github_repo_id = "bounties"."github_repo_id")`,
      language: sql<string | null>`(select language from repositories r where r.github_repo_id = "bounties"."github_repo_id")`,
      issueNumber: bounties.issueNumber,
      title: bounties.issueTitle,
      url: bounties.issueUrl,
      labels: bounties.labels,
      currency: bounties.currency,
      amount: bounties.amount,
      allocatedAt: bounties.allocatedAt,
      expiresAt,
      contributors: sql<number>`(select count(*) from bounty_claims c where c.github_repo_id = "bounties"."github_repo_id" and c.issue_number = "bounties"."issue_number")`,
    })
    .from(bounties);
  const joined = search.sort === "expiring" ? select.innerJoin(bountyBoosts, earliestBoost) : select;
  return joined
    .where(and(...conditions))
    .orderBy(...ordered)
    .limit(search.limit + 1);
}

function parseLabels(text: string | null): string[] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? parsed.filter((l): l is string => typeof l === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Label names as bounties.labels keeps them: lower-cased, unique, a JSON array ("[]" when the issue has none; null
 * when the names are not known: github-events/bounty-metadata.ts asks GitHub for them).
 */
export function labelsColumn(names: readonly string[] | undefined): string | null {
  if (names === undefined) return null;
  return JSON.stringify([...new Set(names.map((n) => n.trim().toLowerCase()).filter(Boolean))]);
}
