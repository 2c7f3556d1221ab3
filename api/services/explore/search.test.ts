/**
 * /explore's title search through the full-text index (migration 0015: FTS5, trigram, over open bounties' titles,
 * kept by triggers): the same matches as the LIKE tests it narrows (substring, case-insensitive, every word), a word
 * nobody has answers empty from the index, and the index follows a title change, a bounty leaving 'open' and
 * coming back, an upsert and a delete. A word of 1 or 2 characters is read from the whole-word index (migration
 * 0017, unicode61) and must be a whole word of the title; the trigram index is asked for each long word's first and
 * last trigram (a superset), LIKE deciding. Rows are written straight into the database (what the indexer mirrors).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import { parseEther } from "viem";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { bounties, repositories } from "../../../db/schema/index.ts";
import { exploreQuery, searchOpenBounties, shortWordsQuery, titleMatchQuery, titleReading, type TitleCutoffs } from "./search.ts";
import { parseExploreSearch } from "./search-params.ts";

let t: TestContext;
const T0 = Date.UTC(2026, 10, 1);

const search = (query: string) => parseExploreSearch(new URLSearchParams(query));
async function found(query: string): Promise<string[]> {
  return (await searchOpenBounties(t.ctx, search(query))).bounties.map((b) => `${b.repoId}#${b.issueNumber}`);
}
/** What the index holds for a bounty (its rowid is github_repo_id * 2^24 + issue_number). */
async function indexed(repoId: number, issueNumber: number): Promise<string[]> {
  const rows = await t.ctx.database.db.all<{ title: string }>(sql`select title from explore_titles where rowid = ${repoId * 16_777_216 + issueNumber}`);
  // The word index (0017) holds the same titles under the same keys.
  const words = await t.ctx.database.db.all<{ title: string }>(sql`select title from explore_title_words where rowid = ${repoId * 16_777_216 + issueNumber}`);
  expect(words.map((r) => r.title)).toEqual(rows.map((r) => r.title));
  return rows.map((r) => r.title);
}
async function bounty(repoId: number, issueNumber: number, title: string | null, status: "open" | "paid" = "open") {
  await t.ctx.database.db.insert(bounties).values({
    githubRepoId: repoId, issueNumber, currency: "XDC", amount: parseEther("5"), status, allocatedTx: `0xa${repoId}${issueNumber}`,
    allocatedAt: new Date(T0 + issueNumber * 1000), issueTitle: title, updatedBlock: 1,
  });
}
const where = (repoId: number, issueNumber: number) => and(eq(bounties.githubRepoId, repoId), eq(bounties.issueNumber, issueNumber));

beforeAll(async () => {
  t = await createTestContext();
  await t.ctx.database.db.insert(repositories).values({ githubRepoId: 7, fullName: "acme/zoo", fullNameKey: "acme/zoo", owner: "acme", name: "zoo", htmlUrl: "https://github.com/acme/zoo" });
  await bounty(7, 1, "Refactor the Zebrafish importer");
  await bounty(7, 2, "Zebrafish docs: fix a typo");
  await bounty(7, 3, "Wombat 100% coverage");
  await bounty(7, 4, "Zebrafish payout", "paid");
  await bounty(7, 5, null);
  await bounty(7, 6, "Build the UI faster");
  await bounty(7, 7, "ui: dark mode");
  await bounty(7, 8, "C# bindings");
  await bounty(7, 9, "Build a guild");
  // Holds "zeb" and "ish", the index terms of "zebrafish", but not the word: the index narrows, LIKE decides.
  await bounty(7, 10, "Zebu and catfish");
});
afterAll(() => t.close());

describe("title search by the full-text index", () => {
  test("every word, as a substring, in any case; a word nobody has is an empty page", async () => {
    expect(await found("q=zebrafish")).toEqual(["7#2", "7#1"]);
    expect(await found("q=ZEBRA")).toEqual(["7#2", "7#1"]);
    expect(await found("q=ebrafi%20IMPORT")).toEqual(["7#1"]);
    expect(await found("q=zebrafish%20wombat")).toEqual([]);
    expect(await found("q=zebu%20catfish")).toEqual(["7#10"]);
    expect(await found("q=okapi")).toEqual([]);
    // A quote in a word is a character of the word, not FTS5 syntax; LIKE wildcards stay characters.
    expect(await found('q=zebra"fish')).toEqual([]);
    expect(await found("q=100%25")).toEqual(["7#3"]);
    expect(await found("q=0%25%20cov")).toEqual([]); // "0%" is short: a whole word "0" is needed (0017), "100%" has none
    expect(await found("q=100%25%20cov")).toEqual(["7#3"]);
    // Words under 3 characters have no trigram: they must be whole words of the title (explore_title_words, 0017).
    expect(await found("q=a%20zebrafish")).toEqual(["7#2"]);
    expect(await found("q=ty%20zebrafish")).toEqual([]);
    expect(await found("q=qx")).toEqual([]);
    expect(titleMatchQuery("ty zebra\"fish importer ish")).toBe('"zeb" AND "ish" AND "imp" AND "ter"');
    expect(titleMatchQuery('a"b')).toBe('"a""b"');
    expect(titleMatchQuery("a bc")).toBeUndefined();
    expect(shortWordsQuery("a zebrafish b\"")).toBe('"a" AND "b"""');
    expect(shortWordsQuery("zebrafish")).toBeUndefined();
  });

  test("a word of 1 or 2 characters: a whole word of the title, in any case, read from the word index", async () => {
    expect(await found("q=ui")).toEqual(["7#7", "7#6"]);
    expect(await found("q=UI%20dark")).toEqual(["7#7"]);
    // Inside a longer word it no longer matches ("ui" in "build"); nobody's word: empty, from the index.
    expect(await found("q=il")).toEqual([]);
    expect(await found("q=zq")).toEqual([]);
    // Punctuation only is no word: nothing; a short word with punctuation needs the word and the characters.
    expect(await found("q=%2B%2B")).toEqual([]);
    expect(await found("q=c%23")).toEqual(["7#8"]);
    expect(await found("q=c")).toEqual(["7#8"]);
    // With a longer word too: every word must hold, whichever index reads.
    expect(await found("q=ui%20build")).toEqual(["7#6"]);
    expect(await found("q=ui%20builder")).toEqual([]);
  });

  test("read by key from the index or by walking the order: the same answer", async () => {
    for (const q of ["q=zebrafish", "q=fish%20docs", "q=wombat", "q=nothing-here", "q=zebrafish&sort=oldest", "q=zebrafish&currency=XDC&sort=largest", "q=zebrafish&limit=1", "q=ui%20build", "q=a%20zebrafish"]) {
      const few = await exploreQuery(t.ctx.database.db, search(q), { titles: "few" });
      const many = await exploreQuery(t.ctx.database.db, search(q), { titles: "many" });
      expect([q, few]).toEqual([q, many]);
    }
    for (const q of ["q=ui", "q=ui%20build", "q=UI&sort=oldest", "q=ui&limit=1", "q=a%20zebrafish", "q=zq"]) {
      const few = await exploreQuery(t.ctx.database.db, search(q), { titles: "few-words" });
      const many = await exploreQuery(t.ctx.database.db, search(q), { titles: "many" });
      expect([q, few]).toEqual([q, many]);
    }
  });

  test("above the cut-offs, every path answers the same: by key, walking with the keys, walking with LIKE (every page)", async () => {
    const db = t.ctx.database.db;
    await db.insert(repositories).values({ githubRepoId: 8, fullName: "acme/den", fullNameKey: "acme/den", owner: "acme", name: "den", htmlUrl: "https://github.com/acme/den" });
    // 30 titles with "quokka", half of them with "tunnel" too; allocation times tie in pairs (the keyset's ties).
    for (let n = 1; n <= 30; n++) {
      await db.insert(bounties).values({
        githubRepoId: 8, issueNumber: n, currency: n % 3 ? "XDC" : "USDC", amount: parseEther(String(n % 7 + 1)), status: "open", allocatedTx: `0xq${n}`,
        allocatedAt: new Date(T0 + Math.floor(n / 2) * 1000), issueTitle: n % 2 ? `Quokka tunnel ${n}` : `quokka den ${n}`, updatedBlock: 1,
      });
    }
    const paths = { byKey: { byKey: 1_000, keyedWalk: 1_000 }, keyedWalk: { byKey: 0, keyedWalk: 1_000 }, walk: { byKey: 0, keyedWalk: 0 } } satisfies Record<string, TitleCutoffs>;
    expect((await titleReading(db, "quokka", paths.byKey))?.titles).toBe("few");
    expect(await titleReading(db, "quokka", paths.keyedWalk)).toMatchObject({ titles: "many", keys: expect.any(String) });
    expect((await titleReading(db, "quokka", paths.walk))?.keys).toBeUndefined();
    const pages = async (query: string, cutoffs: TitleCutoffs) => {
      const seen: unknown[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof searchOpenBounties>> = await searchOpenBounties(t.ctx, search(`${query}${cursor ? `&cursor=${cursor}` : ""}`), { titleCutoffs: cutoffs });
        seen.push(page);
        cursor = page.nextCursor;
      } while (cursor);
      return seen;
    };
    for (const q of ["q=quokka&limit=4", "q=quokka%20TUNNEL&limit=3", "q=quokka&sort=oldest&limit=5", "q=quokka&currency=XDC&sort=largest&limit=4", "q=okka%20den", "q=quokka%20a"]) {
      const walked = await pages(q, paths.walk);
      expect([q, await pages(q, paths.byKey)]).toEqual([q, walked]);
      expect([q, await pages(q, paths.keyedWalk)]).toEqual([q, walked]);
    }
    expect(((await pages("q=quokka&limit=4", paths.walk)) as { bounties: unknown[] }[]).flatMap((p) => p.bounties)).toHaveLength(30);
  });

  test("the index follows the bounty: a title change, leaving 'open' and coming back, an upsert, a delete", async () => {
    const db = t.ctx.database.db;
    await bounty(7, 20, "Teach the okapi to count");
    expect(await found("q=okapi")).toEqual(["7#20"]);
    expect(await found("q=to")).toEqual(["7#20"]);
    await db.update(bounties).set({ issueTitle: "Teach the tapir to count" }).where(where(7, 20));
    expect(await found("q=okapi")).toEqual([]);
    expect(await found("q=to%20tapir")).toEqual(["7#20"]);
    expect(await found("q=tapir")).toEqual(["7#20"]);
    expect(await indexed(7, 20)).toEqual(["Teach the tapir to count"]);
    // Paid: out of the index (explore shows open bounties only).
    await db.update(bounties).set({ status: "paid", paidTx: "0xp" }).where(where(7, 20));
    expect(await indexed(7, 20)).toEqual([]);
    expect(await found("q=tapir")).toEqual([]);
    expect(await found("q=to")).toEqual([]);
    // A new allocation on the same issue (the indexer's upsert): open again, under its new title.
    await db
      .insert(bounties)
      .values({ githubRepoId: 7, issueNumber: 20, currency: "XDC", amount: parseEther("1"), status: "open", allocatedTx: "0xnew", allocatedAt: new Date(T0), issueTitle: "Tapir again", updatedBlock: 2 })
      .onConflictDoUpdate({ target: [bounties.githubRepoId, bounties.issueNumber], set: { status: "open", allocatedTx: "0xnew", issueTitle: "Tapir again", paidTx: null } });
    expect(await indexed(7, 20)).toEqual(["Tapir again"]);
    expect(await found("q=tapir")).toEqual(["7#20"]);
    // An unrelated column written: the index row stays as it is (the trigger runs only on a change that matters).
    await db.update(bounties).set({ updatedBlock: 3 }).where(where(7, 20));
    expect(await indexed(7, 20)).toEqual(["Tapir again"]);
    expect(await found("q=tapir%20ui")).toEqual([]);
    await db.update(bounties).set({ issueTitle: "Tapir UI" }).where(where(7, 20));
    expect(await found("q=tapir%20ui")).toEqual(["7#20"]);
    await db.delete(bounties).where(where(7, 20));
    expect(await indexed(7, 20)).toEqual([]);
    expect(await found("q=tapir%20ui")).toEqual([]);
    expect(await found("q=tapir")).toEqual([]);
    // A paid bounty and one without a title were never in it.
    expect(await indexed(7, 4)).toEqual([]);
    expect(await indexed(7, 5)).toEqual([]);
  });
});
