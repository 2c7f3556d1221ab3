/**
 * GET /api/explore: filters, orders, keyset pages, strict parameters (400 naming the parameter, never a 500), the
 * same answer anonymous and signed in, private/inactive repositories and bounties not on offer left out. Rows
 * are written straight into the database (what the indexer would mirror); answers are checked against the API
 * document by the test app.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseEther, parseUnits } from "viem";
import { sql } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { awaitingDecisions, bounties, bountyBoosts, bountyClaims, chainTransactions, payoutSplits, repositories, type BoostStatus, type Currency } from "../../../db/schema/index.ts";
import { matchingBounties, parseSearch } from "../../services/alerts/search.ts";
import { bountyStates } from "../../services/money/bounty-state.ts";
import { settleBoosts } from "../../services/funding/boosts.ts";
import { exploreSearchParams, parseExploreSearch } from "../../services/explore/search.ts";
import { httpStatusOf, type DomainError } from "../../errors.ts";

let t: TestContext;
let visitor: TestSession;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1);

async function repo(id: number, fullName: string, extra: Partial<typeof repositories.$inferInsert> = {}) {
  const [owner, name] = fullName.split("/") as [string, string];
  await t.ctx.database.db.insert(repositories).values({
    githubRepoId: id, fullName, fullNameKey: fullName.toLowerCase(), owner, name, htmlUrl: `https://github.com/${fullName}`, ...extra,
  });
}
async function bounty(repoId: number, issueNumber: number, currency: Currency, amount: bigint, day: number, extra: Partial<typeof bounties.$inferInsert> = {}) {
  await t.ctx.database.db.insert(bounties).values({
    githubRepoId: repoId, issueNumber, currency, amount, status: "open", allocatedTx: `0xa${repoId}${issueNumber}`,
    allocatedAt: new Date(T0 + day * DAY), issueTitle: `Issue ${issueNumber}`, issueUrl: `https://github.com/x/y/issues/${issueNumber}`,
    updatedBlock: 1, ...extra,
  });
}

let boostKeys = 0;
/** A funder's boost on an issue (issue 29), expiring `day` days after T0 (null: never). */
async function boost(repoId: number, issueNumber: number, day: number | null, status: BoostStatus = "active") {
  await t.ctx.database.db.insert(bountyBoosts).values({
    githubRepoId: repoId, issueNumber, userId: visitor.user.id, funderAddress: "0x00000000000000000000000000000000000000B0",
    currency: "XDC", amount: parseEther("1"), fee: 0n, status, expiresAt: day === null ? null : new Date(T0 + day * DAY),
    idempotencyKey: `boost-${++boostKeys}`,
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the answers are read as a client reads JSON
async function explore(query: string, as?: TestSession): Promise<{ status: number; body: any }> {
  const res = await call(t, `/api/explore${query ? `?${query}` : ""}`, { as });
  return { status: res.status, body: await res.json() };
}
const keys = (body: { bounties: { repoId: number; issueNumber: number }[] }) => body.bounties.map((b) => `${b.repoId}#${b.issueNumber}`);

beforeAll(async () => {
  t = await createTestContext();
  visitor = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  await repo(1, "acme/rocket", { language: "TypeScript" });
  await repo(2, "acme/engine", { language: "Rust" });
  await repo(3, "secret/vault", { isPrivate: true });
  await repo(4, "acme/retired", { isActive: false });
  await bounty(1, 10, "XDC", parseEther("5"), 1, { issueTitle: "Fix the login button", labels: JSON.stringify(["bug", "good first issue"]) });
  await bounty(1, 11, "XDC", parseEther("50"), 2, { issueTitle: "Add dark mode" });
  await bounty(1, 12, "USDC", parseUnits("20", 6), 3, { issueTitle: "Speed up 100% of builds" });
  await bounty(2, 20, "XDC", parseEther("12.5"), 4, { issueTitle: "Login with passkeys", labels: JSON.stringify(["feature"]) });
  await bounty(2, 21, "ROXN", parseEther("100"), 5);
  await bounty(2, 22, "XDC", parseEther("7"), 6, { status: "paid", paidTx: "0xp" });
  await bounty(2, 23, "XDC", parseEther("9"), 7); // awaiting its pool manager's decision: not on offer
  await t.ctx.database.db.insert(awaitingDecisions).values({ githubRepoId: 2, issueNumber: 23, allocatedTx: "0xa223", reason: "closed_completed" });
  await bounty(3, 30, "XDC", parseEther("99"), 8); // private repository
  await bounty(4, 40, "XDC", parseEther("99"), 9); // inactive repository
  await t.ctx.database.db.insert(bountyClaims).values({ githubRepoId: 1, issueNumber: 11, userId: visitor.user.id });
  // Expiries for "expiring": a bounty's is its earliest active boost's.
  await boost(1, 10, 30);
  await boost(1, 10, 20); // 1#10 expires on day 20 (its earlier boost), listed once
  await boost(1, 11, 25);
  await boost(2, 20, 20); // the same day as 1#10: then by repository, issue
  await boost(2, 21, null); // never expires: not in this order
  await boost(1, 12, 5, "refunded"); // gone back already: no expiry
  await boost(2, 23, 1); // awaiting a decision: not on offer
  await boost(3, 30, 2); // private repository
});
afterAll(() => t.close());

describe("GET /api/explore", () => {
  test("every open bounty on offer, newest first; the same anonymous and signed in", async () => {
    const anonymous = await explore("");
    expect(anonymous.status).toBe(200);
    expect(keys(anonymous.body)).toEqual(["2#21", "2#20", "1#12", "1#11", "1#10"]);
    // The whole bounty (issue 29): the pool's 50 XDC and a funder's active 1 XDC.
    expect(anonymous.body.bounties[3]).toMatchObject({ repository: "acme/rocket", language: "TypeScript", currency: "XDC", amount: "51", boosted: "1", contributors: 1 });
    // Two active boosts count twice; a refunded one not at all.
    expect(anonymous.body.bounties[4]).toMatchObject({ issueNumber: 10, amount: "7", boosted: "2" });
    expect(anonymous.body.bounties[2]).toMatchObject({ issueNumber: 12, amount: "20", boosted: "0" });
    expect(anonymous.body.bounties[4].labels).toEqual(["bug", "good first issue"]);
    // Each bounty with its own repository and its own contributors (a subquery not tied to its row would not).
    expect(anonymous.body.bounties[0]).toMatchObject({ repository: "acme/engine", language: "Rust", contributors: 0 });
    expect(anonymous.body.nextCursor).toBeNull();
    expect((await explore("", visitor)).body).toEqual(anonymous.body);
  });

  test("filters: currency and amount range, label, language, repository, nobody working on it, title words", async () => {
    expect(keys((await explore("currency=XDC&min=6&max=50")).body)).toEqual(["2#20", "1#11"]);
    expect(keys((await explore("currency=xdc&min=12.5")).body)).toEqual(["2#20", "1#11"]);
    expect(keys((await explore("currency=USDC&max=20")).body)).toEqual(["1#12"]);
    expect(keys((await explore("label=Good%20First%20Issue")).body)).toEqual(["1#10"]);
    expect(keys((await explore("language=rust")).body)).toEqual(["2#21", "2#20"]);
    expect(keys((await explore("repo=ACME/rocket")).body)).toEqual(["1#12", "1#11", "1#10"]);
    expect(keys((await explore("unclaimed=1&repo=acme/rocket")).body)).toEqual(["1#12", "1#10"]);
    expect(keys((await explore("q=login")).body)).toEqual(["2#20", "1#10"]);
    expect(keys((await explore("q=login%20button")).body)).toEqual(["1#10"]);
    // A LIKE wildcard typed by a visitor is a character, not a wildcard.
    expect(keys((await explore("q=100%25")).body)).toEqual(["1#12"]);
    expect(keys((await explore("q=%25%25%25")).body)).toEqual([]);
  });

  test("label: exact names, quotes and accents included (the substring pre-test never decides alone)", async () => {
    await bounty(1, 14, "XDC", parseEther("1"), 0, { labels: JSON.stringify(['say "hi"', "ünïcode", "x\\\"bug"]) });
    try {
      t.ctx.changes.publish(["repositories"]);
      expect(keys((await explore(`label=${encodeURIComponent('Say "hi"')}`)).body)).toEqual(["1#14"]);
      expect(keys((await explore(`label=${encodeURIComponent("ünïcode")}&language=typescript`)).body)).toEqual(["1#14"]);
      // The substring '"bug"' is inside this row's JSON (x\\"bug), but no label is "bug" there.
      expect(keys((await explore("label=bug")).body)).toEqual(["1#10"]);
      expect(keys((await explore("label=say")).body)).toEqual([]);
    } finally {
      await t.ctx.database.db.delete(bounties).where(sql`${bounties.githubRepoId} = 1 and ${bounties.issueNumber} = 14`);
      t.ctx.changes.publish(["repositories"]);
    }
  });

  test("orders: oldest, largest within a currency", async () => {
    expect(keys((await explore("sort=oldest")).body)).toEqual(["1#10", "1#11", "1#12", "2#20", "2#21"]);
    expect(keys((await explore("sort=largest&currency=XDC")).body)).toEqual(["1#11", "2#20", "1#10"]);
  });

  test("expiring soon: by each bounty's earliest active boost expiry; never-expiring bounties left out; filters apply", async () => {
    for (const [query, expected] of [
      ["sort=expiring", ["1#10", "2#20", "1#11"]],
      ["sort=expiring&repo=acme/engine", ["2#20"]],
      ["sort=expiring&currency=XDC&min=10", ["2#20", "1#11"]],
      ["sort=expiring&unclaimed=1", ["1#10", "2#20"]],
      ["sort=expiring&label=bug", ["1#10"]],
      ["sort=expiring&currency=USDC", []],
    ] as const) {
      const { status, body } = await explore(query);
      expect({ query, status }).toEqual({ query, status: 200 });
      expect(keys(body), query).toEqual([...expected]);
    }
    const page = (await explore("sort=expiring")).body;
    expect(page.bounties[0].expiresAt).toBe(new Date(T0 + 20 * DAY).toISOString());
    expect(page.bounties[2].expiresAt).toBe(new Date(T0 + 25 * DAY).toISOString());
    // Other orders carry the expiry too (null when nothing expires).
    const newest = (await explore("")).body.bounties as { issueNumber: number; expiresAt: string | null }[];
    expect(newest.find((b) => b.issueNumber === 10)?.expiresAt).toBe(new Date(T0 + 20 * DAY).toISOString());
    expect(newest.find((b) => b.issueNumber === 21)?.expiresAt).toBeNull();
    expect(newest.find((b) => b.issueNumber === 12)?.expiresAt).toBeNull();
  });

  test("keyset pages: each page follows the last, in every order, and the cursor is bound to its order", async () => {
    // Page sizes 1 and 2: a page boundary falls between rows with the same sort key (1#10 and 2#20 expire together).
    for (const query of ["", "sort=oldest", "sort=largest&currency=XDC", "sort=expiring"]) {
      for (const limit of [1, 2]) {
        const all = keys((await explore(query)).body);
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await explore(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
          expect(page.status).toBe(200);
          expect(page.body.bounties.length).toBeLessThanOrEqual(limit);
          seen.push(...keys(page.body));
          cursor = page.body.nextCursor;
        } while (cursor);
        expect(seen, `${query} limit=${limit}`).toEqual(all);
      }
    }
    const first = await explore("limit=2");
    const other = await explore(`sort=oldest&cursor=${first.body.nextCursor}`);
    expect(other.status).toBe(400);
    expect(other.body.message).toContain("cursor");
    const expiring = await explore(`sort=expiring&cursor=${first.body.nextCursor}`);
    expect(expiring.status).toBe(400);
    expect(expiring.body.message).toContain("cursor");
  });

  test("bad parameters: 400 naming the parameter, never a 500", async () => {
    for (const [query, names] of [
      ["currency=BTC", "currency"],
      ["min=5", "min"],
      ["currency=XDC&min=abc", "min"],
      ["currency=XDC&min=-1", "min"],
      ["currency=USDC&min=0.0000001", "min"],
      ["currency=XDC&min=10&max=5", "min"],
      ["sort=random", "sort"],
      ["sort=largest", "sort"],
      ["sort=expiring-soon", "sort"],
      ["sort=EXPIRING", "sort"],
      ["unclaimed=yes", "unclaimed"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=1e3", "limit"],
      ["cursor=garbage", "cursor"],
      ["cursor=WyJuZXdlc3QiLCJ4IiwxLDFd", "cursor"],
      ["currency=XDC&currency=USDC", "currency"],
      ["repo=not-a-repo", "repo"],
      [`q=${"x".repeat(101)}`, "q"],
    ] as const) {
      const { status, body } = await explore(query);
      expect({ query, status }).toEqual({ query, status: 400 });
      expect(body.message, query).toStartWith(`${names}:`);
    }
  });

  test("control characters in any parameter: 400 invalid_search_text before the full-text index, never a 500 (issue 36)", async () => {
    const hostile = ["\u0000", "a\u0000b", "\u0001", "\u001f", "x\ny", "\t", "\r", "\u007f", "\u0080", "\u009f", "fix\u0000 login"];
    for (const name of ["q", "label", "language", "repo", "currency", "min", "sort", "unclaimed", "cursor", "limit"]) {
      for (const text of hostile) {
        const query = new URLSearchParams({ [name]: text }).toString();
        const { status, body } = await explore(query);
        expect({ query, status, code: body.code }).toEqual({ query, status: 400, code: "invalid_search_text" });
        expect(body.message, query).toStartWith(`${name}:`);
      }
    }
    // Beside good parameters too, and in the words of a title search the index would read.
    expect((await explore("currency=XDC&q=login%00")).status).toBe(400);
    // Text without control characters (accents, emoji, punctuation) is still a search.
    expect((await explore(`q=${encodeURIComponent("café ✓ \"quoted\" 100%")}`)).status).toBe(200);
  });

  test("cached for everyone until the data changes", async () => {
    const first = await call(t, "/api/explore?currency=XDC&utm_source=x");
    expect(first.headers.get("cache-control")).toContain("public");
    await bounty(1, 13, "XDC", parseEther("1"), 10);
    try {
      const cached = (await explore("currency=XDC")).body;
      expect(keys(cached)).not.toContain("1#13");
      t.ctx.changes.publish(["repositories"]);
      expect(keys((await explore("currency=XDC")).body)[0]).toBe("1#13");
    } finally {
      // The other tests of this file count the open bounties, in any order (bun test --randomize).
      await t.ctx.database.db.delete(bounties).where(sql`${bounties.githubRepoId} = 1 and ${bounties.issueNumber} = 13`);
      t.ctx.changes.publish(["repositories"]);
    }
  });
});

describe("GET /api/explore: boosts", () => {
  test("a boost becoming active or going back changes a cached answer at once (expiry, the expiring order)", async () => {
    const db = t.ctx.database.db;
    const query = "sort=expiring&repo=acme/rocket";
    expect(keys((await explore(query)).body)).toEqual(["1#10", "1#11"]);
    // A funder's boost on 1#12, expiring on day 3, its funding transaction confirmed: the mirror makes it active.
    await db.insert(chainTransactions).values({
      id: "fund-1-12", idempotencyKey: "fund-1-12", requestHash: "h", kind: "boost", githubRepoId: 1, issueNumber: 12, userId: visitor.user.id,
      intent: "{}", fromAddress: "0x1", chainId: 31337, toAddress: "0x2", data: "0x", value: 0n, txHash: "0xfund112", status: "confirmed",
    });
    await boost(1, 12, 3, "pending");
    try {
      await db.update(bountyBoosts).set({ fundTxId: "fund-1-12" }).where(sql`${bountyBoosts.idempotencyKey} = ${`boost-${boostKeys}`}`);
      expect(await settleBoosts(t.ctx)).toBeGreaterThan(0);
      const answer = (await explore(query)).body;
      expect(keys(answer)).toEqual(["1#12", "1#10", "1#11"]);
      expect(answer.bounties[0].expiresAt).toBe(new Date(T0 + 3 * DAY).toISOString());
    } finally {
      // The other tests of this file read the expiring order, in any order (bun test --randomize).
      await db.delete(bountyBoosts).where(sql`${bountyBoosts.idempotencyKey} = ${`boost-${boostKeys}`}`);
      await db.delete(chainTransactions).where(sql`${chainTransactions.id} = 'fund-1-12'`);
      t.ctx.changes.publish(["boosts"]);
    }
    expect(keys((await explore(query)).body)).toEqual(["1#10", "1#11"]);
  });
});

describe("the search module", () => {
  test("canonical parameters: parse -> write -> parse is the same search; defaults left out", () => {
    const search = parseExploreSearch(new URLSearchParams("currency=usdc&min=1.50&max=20&label=Bug&sort=largest&unclaimed=true&x=1"));
    expect(search).toMatchObject({ currency: "USDC", min: 1_500_000n, max: 20_000_000n, label: "bug", sort: "largest", unclaimed: true, limit: 24 });
    const params = exploreSearchParams(search);
    expect(params.toString()).toBe("currency=USDC&min=1.5&max=20&label=bug&unclaimed=1&sort=largest");
    expect(parseExploreSearch(params)).toEqual(search);
    expect(exploreSearchParams(parseExploreSearch(new URLSearchParams(""))).toString()).toBe("");
  });

  test("a bad value is the API's one error type with status 400", () => {
    try {
      parseExploreSearch(new URLSearchParams("currency=EUR"));
      throw new Error("not refused");
    } catch (err) {
      expect(httpStatusOf(err as DomainError)).toBe(400);
    }
  });
});

describe("GET /api/explore: only bounties someone can still work on (issue 38)", () => {
  test("a bounty whose fix is merged (shared in its release window, its shares or its payout on the way) is out of explore, its feed and saved-search alerts", async () => {
    const db = t.ctx.database.db;
    await repo(6, "acme/merged", { language: "TypeScript" });
    for (const issue of [1, 2, 3, 4, 5]) await bounty(6, issue, "XDC", parseEther("3"), 10 + issue);
    // #2: merged with co-authors, its release window open; #3: its shares being paid.
    await db.insert(payoutSplits).values([
      { githubRepoId: 6, issueNumber: 2, allocatedTx: "0xa62", pullNumber: 9, authorGithubId: 1, authorLogin: "bob", currency: "XDC", amount: parseEther("3"), releaseAt: new Date(Date.now() + DAY) },
      { githubRepoId: 6, issueNumber: 3, allocatedTx: "0xa63", pullNumber: 10, authorGithubId: 1, authorLogin: "bob", currency: "XDC", amount: parseEther("3"), releaseAt: new Date(), status: "releasing" },
    ]);
    // #4: merged, its payout sent (the mirror says paid once the indexer reads it); #5: a payout that failed is no payout.
    const payout = (issueNumber: number, status: "sent" | "failed") => ({
      id: `pay-6-${issueNumber}`, idempotencyKey: `pay-6-${issueNumber}`, requestHash: "h", kind: "pay_bounty" as const, githubRepoId: 6, issueNumber, userId: null,
      intent: "{}", fromAddress: "0x1", chainId: 31337, toAddress: "0x2", data: "0x", value: 0n, txHash: `0xpay6${issueNumber}`, status,
    });
    await db.insert(chainTransactions).values([payout(4, "sent"), payout(5, "failed")]);
    try {
      t.ctx.changes.publish(["repositories"]);
      expect(keys((await explore("repo=acme/merged")).body)).toEqual(["6#5", "6#1"]);
      expect(keys((await explore("repo=acme/merged&unclaimed=1")).body)).toEqual(["6#5", "6#1"]);
      const feed = await (await call(t, "/api/feeds/explore?repo=acme/merged")).text();
      expect(feed).toContain("acme/merged#1 ");
      expect(feed).toContain("acme/merged#5 ");
      for (const issue of [2, 3, 4]) expect(feed).not.toContain(`acme/merged#${issue} `);
      const alerted = await matchingBounties(db, parseSearch("repo=acme/merged"));
      expect(alerted.map((b) => b.issueNumber)).toEqual([5, 1]);
      // The repository's own pages say the same: releasing and paying are not advertised.
      const rows = await db.select().from(bounties).where(sql`${bounties.githubRepoId} = 6`);
      const stateOf = await bountyStates(t.ctx, rows);
      expect(rows.map((b) => `${b.issueNumber}:${stateOf(b).state}`).sort()).toEqual(["1:open", "2:releasing", "3:releasing", "4:paying", "5:open"]);
    } finally {
      await db.delete(chainTransactions).where(sql`${chainTransactions.githubRepoId} = 6`);
      await db.delete(payoutSplits).where(sql`${payoutSplits.githubRepoId} = 6`);
      await db.delete(bounties).where(sql`${bounties.githubRepoId} = 6`);
      await db.delete(repositories).where(sql`${repositories.githubRepoId} = 6`);
      t.ctx.changes.publish(["repositories"]);
    }
  });
});
