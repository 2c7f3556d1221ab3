/**
 * Saved searches, their daily digest and the Atom feeds (issue 30): searches stored canonical and private to
 * their owner (404 for anybody else, security cases on every write); the digest lists only bounties new since
 * the last one, sends nothing when there are none, never twice a day (also when a run was claimed and then
 * crashed), and carries RFC 8058's one-click unsubscribe, whose POST works without a session or anti-forgery
 * token while a GET only asks; feeds are Atom with every text escaped.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { securityCases } from "../../../testing/security.ts";
import { startMailSink, type MailSink } from "../../../testing/dev-tools.ts";
import { bounties, bountyClaims, digestRuns, repositories, savedSearches, wallets } from "../../../db/schema/index.ts";
import { DigestWorker, dayOf } from "../../workers/digest.ts";
import { unsubscribeToken } from "../../services/alerts/saved-searches.ts";

let t: TestContext;
let sink: MailSink;
let carol: TestSession;
let dave: TestSession;
let carolSearch: string;
const XDC = 10n ** 18n;
const REPO = { id: 880_001, fullName: "acme/parsers" };
const OTHER = { id: 880_002, fullName: "acme/secret" };
let tx = 0;

beforeAll(async () => {
  sink = await startMailSink();
  t = await createTestContext({ env: { SMTP_URL: sink.smtpUrl, PUBLIC_URL: "https://issuepool.example" } });
  carol = await signInAs(t, await createTestUser(t, { role: "contributor", username: "carol", email: "carol@example.com" }));
  dave = await signInAs(t, await createTestUser(t, { role: "contributor", username: "dave", email: "dave@example.com" }));
  const repo = (r: typeof REPO, isPrivate: boolean) => ({
    githubRepoId: r.id, fullName: r.fullName, fullNameKey: r.fullName, owner: "acme", name: r.fullName.split("/")[1]!, htmlUrl: `https://github.com/${r.fullName}`, isPrivate,
  });
  await t.ctx.database.db.insert(repositories).values([repo(REPO, false), repo(OTHER, true)]);
  const res = await call(t, "/api/alerts/searches", { as: carol, body: { query: "?min=10&currency=xdc&q=parser", name: "Big parser bounties" } });
  carolSearch = ((await res.json()) as { search: { id: string } }).search.id;
  // The bounties every test reads (bun test --randomize runs a file's tests in any order: none may set up another's).
  const [search] = await t.ctx.database.db.select().from(savedSearches).where(eq(savedSearches.id, carolSearch));
  const saved = search!.notifiedUntil.getTime();
  const after = new Date(saved + 1_000);
  await bounty({ issue: 1, title: "Faster parser", xdc: 25n, at: after });
  await bounty({ issue: 2, title: "Parser <b>docs</b> & \"quotes\"", xdc: 10n, at: after });
  await bounty({ issue: 3, title: "Small parser fix", xdc: 5n, at: after }); // below min
  await bounty({ issue: 4, title: "Unrelated widget", xdc: 50n, at: after }); // no "parser"
  await bounty({ issue: 5, title: "Old parser bounty", xdc: 50n, at: new Date(saved - 60_000) }); // before the search
  await bounty({ issue: 6, title: "Paid parser bounty", xdc: 50n, at: after, status: "paid" });
  await bounty({ repo: OTHER, issue: 7, title: "Private parser bounty", xdc: 50n, at: after }); // a private repository
  // Paid to dave (his feed).
  const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, dave.user.id));
  await t.ctx.database.db.update(bounties).set({ recipient: wallet!.address, closedAt: new Date() }).where(and(eq(bounties.githubRepoId, REPO.id), eq(bounties.issueNumber, 6)));
});
// carol's digest is on at the start of every test (the unsubscribe tests turn it off).
beforeEach(async () => {
  await t.ctx.database.db.update(savedSearches).set({ digest: true }).where(eq(savedSearches.id, carolSearch));
});
afterAll(async () => {
  t?.close();
  await sink?.stop();
});

async function bounty(input: { repo?: typeof REPO; issue: number; title: string; xdc: bigint; at: Date; status?: "open" | "paid" }) {
  await t.ctx.database.db.insert(bounties).values({
    githubRepoId: (input.repo ?? REPO).id,
    issueNumber: input.issue,
    currency: "XDC",
    amount: input.xdc * XDC,
    status: input.status ?? "open",
    allocatedTx: `0x${(tx++).toString(16).padStart(64, "0")}`,
    allocatedAt: input.at,
    issueTitle: input.title,
    updatedBlock: 1,
  });
}

describe("saved searches", () => {
  test("are stored canonical (keys sorted, currency upper-case) and listed for their owner only", async () => {
    const mine = (await (await call(t, "/api/alerts/searches", { as: carol })).json()) as { searches: { id: string; query: string; name: string; digest: boolean }[] };
    expect(mine.searches).toEqual([expect.objectContaining({ id: carolSearch, query: "q=parser&currency=XDC&min=10", name: "Big parser bounties", digest: true })]);
    const theirs = (await (await call(t, "/api/alerts/searches", { as: dave })).json()) as { searches: unknown[] };
    expect(theirs.searches).toEqual([]);
    expect((await call(t, "/api/alerts/searches")).status).toBe(401);
  });

  test("the same search twice, or a filter alerts do not know, is refused", async () => {
    expect((await call(t, "/api/alerts/searches", { as: carol, body: { query: "q=parser&currency=XDC&min=10.0" } })).status).toBe(400);
    const unknown = await call(t, "/api/alerts/searches", { as: carol, body: { query: "color=blue" } });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toContain("color");
    expect((await call(t, "/api/alerts/searches", { as: carol, body: { query: "currency=BTC" } })).status).toBe(400);
  });

  test("someone else's saved search is 404, and stays as it was", async () => {
    expect((await call(t, `/api/alerts/searches/${carolSearch}`, { as: dave, method: "PATCH", body: { digest: false } })).status).toBe(404);
    expect((await call(t, `/api/alerts/searches/${carolSearch}`, { as: dave, method: "DELETE" })).status).toBe(404);
    const [row] = await t.ctx.database.db.select().from(savedSearches).where(eq(savedSearches.id, carolSearch));
    expect(row!.digest).toBe(true);
  });

  test("control characters in a saved search's query or name are refused with 400 invalid_search_text, and nothing is saved (issue 36)", async () => {
    const before = await t.ctx.database.db.select().from(savedSearches);
    for (const body of [
      { query: "q=%00" },
      { query: "q=parser%00" },
      { query: "label=a%0Ab" },
      { query: "language=Rust%7F" },
      { query: "repo=acme/parsers%C2%85" },
      { query: "q=a\u0000b" },
      { query: "%00=1" },
      { query: "currency=ROXN", name: "mine\u0000" },
      { query: "currency=ROXN", name: "line\nbreak" },
    ]) {
      const res = await call(t, "/api/alerts/searches", { as: carol, body });
      const answer = (await res.json()) as { code: string };
      expect({ body, status: res.status, code: answer.code }).toEqual({ body, status: 400, code: "invalid_search_text" });
    }
    expect(await t.ctx.database.db.select().from(savedSearches)).toEqual(before);
    const renamed = await call(t, `/api/alerts/searches/${carolSearch}`, { as: carol, method: "PATCH", body: { name: "bad\u0000name" } });
    expect(renamed.status).toBe(400);
    expect(((await renamed.json()) as { code: string }).code).toBe("invalid_search_text");
    const [row] = await t.ctx.database.db.select().from(savedSearches).where(eq(savedSearches.id, carolSearch));
    expect(row!.name).toBe("Big parser bounties");
  });

  securityCases({ method: "POST", path: "/api/alerts/searches", body: { query: "currency=ROXN" } }, { t: () => t, owner: () => carol, stranger: () => dave });
  securityCases(() => ({ method: "PATCH", path: `/api/alerts/searches/${carolSearch}`, body: { name: "renamed" } }), { t: () => t, owner: () => carol, stranger: () => dave, ownedResource: true });
  securityCases(() => ({ method: "DELETE", path: `/api/alerts/searches/${carolSearch}` }), { t: () => t, owner: () => carol, stranger: () => dave, ownedResource: true });
});

describe("the daily digest", () => {
  const digest = (clock: { now: number }) =>
    new DigestWorker({ db: t.ctx.database.db, log: t.log, mailer: t.ctx.mailer, appSecret: t.ctx.appSecret, publicUrl: t.env.PUBLIC_URL, hourUtc: 7, now: () => clock.now });
  const carolsMail = () => sink.messages({ to: "carol@example.com" });

  test("lists only new matching bounties, with one-click unsubscribe headers; nothing twice; no mail when nothing is new", async () => {
    const [search] = await t.ctx.database.db.select().from(savedSearches).where(eq(savedSearches.id, carolSearch));
    const saved = search!.notifiedUntil.getTime();
    const day1 = new Date(Math.ceil((saved + 1) / 86_400_000) * 86_400_000 + 8 * 3_600_000); // 08:00 UTC after it was saved
    // Before the hour: nothing.
    const clock = { now: day1.getTime() - 2 * 3_600_000 };
    expect(await digest(clock).runOnce()).toBe(0);
    clock.now = day1.getTime();
    await digest(clock).runOnce();
    const mail = await sink.waitFor((m) => m.to.includes("carol@example.com"));
    expect(mail.subject).toBe("2 new bounties match your saved searches");
    expect(mail.text).toContain("Faster parser");
    expect(mail.text).toContain('Parser <b>docs</b> & "quotes"');
    expect(mail.html).toContain("Parser &#60;b&#62;docs&#60;/b&#62; &#38; &#34;quotes&#34;");
    for (const absent of ["Small parser fix", "Unrelated widget", "Old parser bounty", "Paid parser bounty", "Private parser bounty"]) expect(mail.text).not.toContain(absent);
    const token = await unsubscribeToken(t.ctx.appSecret, carol.user.id);
    expect(mail.headers["list-unsubscribe"]).toBe(`<https://issuepool.example/api/alerts/unsubscribe?token=${encodeURIComponent(token)}>`);
    expect(mail.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
    // Dave has no saved search: no mail.
    expect(sink.messages({ to: "dave@example.com" })).toHaveLength(0);
    // The same day again (another pass, another process): nothing more.
    await digest(clock).runOnce();
    expect(carolsMail()).toHaveLength(1);
    // The next day with nothing new: no mail, recorded as empty.
    clock.now += 86_400_000;
    await digest(clock).runOnce();
    expect(carolsMail()).toHaveLength(1);
    const [run] = await t.ctx.database.db.select().from(digestRuns).where(and(eq(digestRuns.userId, carol.user.id), eq(digestRuns.day, dayOf(clock.now))));
    expect(run).toMatchObject({ status: "empty", bounties: 0 });
    // A bounty allocated since: the day after lists it alone.
    await bounty({ issue: 8, title: "Parser for YAML", xdc: 30n, at: new Date(clock.now + 1_000) });
    clock.now += 86_400_000;
    await digest(clock).runOnce();
    const third = await sink.waitFor((m) => m.to.includes("carol@example.com") && m.text.includes("Parser for YAML"));
    expect(third.subject).toBe("1 new bounty matches your saved searches");
    expect(third.text).not.toContain("Faster parser");
  });

  test("a run claimed and then crashed is never sent again that day; its bounties come the next day", async () => {
    const erin = await createTestUser(t, { role: "contributor", username: "erin", email: "erin@example.com" });
    const erinSession = await signInAs(t, erin);
    expect((await call(t, "/api/alerts/searches", { as: erinSession, body: { query: "repo=acme/parsers&unclaimed=1" } })).status).toBe(201);
    const [search] = await t.ctx.database.db.select().from(savedSearches).where(eq(savedSearches.userId, erin.id));
    const at = new Date(search!.notifiedUntil.getTime() + 1_000);
    await bounty({ issue: 20, title: "Unclaimed work", xdc: 3n, at });
    await bounty({ issue: 21, title: "Claimed work", xdc: 3n, at });
    await t.ctx.database.db.insert(bountyClaims).values({ githubRepoId: REPO.id, issueNumber: 21, userId: carol.user.id });
    const clock = { now: Math.ceil(at.getTime() / 86_400_000) * 86_400_000 + 9 * 3_600_000 };
    // The crash: the claim row written, the process gone before the mailer was called.
    await t.ctx.database.db.insert(digestRuns).values({ userId: erin.id, day: dayOf(clock.now), status: "sending", createdAt: new Date(clock.now) });
    await digest(clock).runOnce();
    expect(sink.messages({ to: "erin@example.com" })).toHaveLength(0);
    clock.now += 86_400_000;
    await digest(clock).runOnce();
    const mail = await sink.waitFor((m) => m.to.includes("erin@example.com"));
    expect(mail.text).toContain("Unclaimed work");
    expect(mail.text).not.toContain("Claimed work");
  });

  test("one bad saved search already stored is skipped and told to its owner; their other searches and other users' digests go out (issue 36)", async () => {
    const frank = await createTestUser(t, { role: "contributor", username: "frank", email: "frank@example.com" });
    const gina = await createTestUser(t, { role: "contributor", username: "gina", email: "gina@example.com" });
    const frankSession = await signInAs(t, frank);
    const ginaSession = await signInAs(t, gina);
    expect((await call(t, "/api/alerts/searches", { as: frankSession, body: { query: "q=lexer", name: "Lexer work" } })).status).toBe(201);
    expect((await call(t, "/api/alerts/searches", { as: ginaSession, body: { query: "q=lexer" } })).status).toBe(201);
    const [good] = await t.ctx.database.db.select().from(savedSearches).where(eq(savedSearches.userId, frank.id));
    // Stored before the API refused control characters: a NUL in the title words (what the full-text index choked on).
    await t.ctx.database.db.insert(savedSearches).values({ id: "ss_nul_frank", userId: frank.id, name: "Broken search", query: "q=lex%00er", digest: true, notifiedUntil: good!.notifiedUntil, createdAt: new Date(good!.createdAt.getTime() + 1) });
    const at = new Date(good!.notifiedUntil.getTime() + 1_000);
    await bounty({ issue: 40, title: "Lexer for TOML", xdc: 4n, at });
    const clock = { now: Math.ceil(at.getTime() / 86_400_000) * 86_400_000 + 10 * 3_600_000 };
    await digest(clock).runOnce();

    const mail = await sink.waitFor((m) => m.to.includes("frank@example.com"));
    expect(mail.subject).toBe("1 new bounty matches your saved searches");
    expect(mail.text).toContain("Lexer for TOML");
    expect(mail.text).toContain("Broken search: q: control characters (such as NUL or a line break) are not allowed in a search.");
    expect(mail.html).toContain("<strong>Broken search</strong>");
    expect(t.log.lines.some((l) => l.includes("digest: saved search skipped") && l.includes("ss_nul_frank"))).toBe(true);
    // gina's digest is unaffected.
    expect((await sink.waitFor((m) => m.to.includes("gina@example.com"))).text).toContain("Lexer for TOML");
    // Told once: the bad search's digest is off; frank's good search moved on, the bad one did not.
    const rows = await t.ctx.database.db.select().from(savedSearches).where(eq(savedSearches.userId, frank.id));
    expect(rows.find((r) => r.id === "ss_nul_frank")).toMatchObject({ digest: false, notifiedUntil: good!.notifiedUntil });
    expect(rows.find((r) => r.id === good!.id)!.notifiedUntil.getTime()).toBeGreaterThan(good!.notifiedUntil.getTime());
    const [run] = await t.ctx.database.db.select().from(digestRuns).where(and(eq(digestRuns.userId, frank.id), eq(digestRuns.day, dayOf(clock.now))));
    expect(run).toMatchObject({ status: "sent", bounties: 1 });
  });
});

describe("one-click unsubscribe (RFC 8058)", () => {
  const path = async () => `/api/alerts/unsubscribe?token=${encodeURIComponent(await unsubscribeToken(t.ctx.appSecret, carol.user.id))}`;
  const carolsDigests = async () => (await t.ctx.database.db.select().from(savedSearches).where(eq(savedSearches.userId, carol.user.id))).map((s) => s.digest);

  test("a GET shows a confirm page and unsubscribes nothing", async () => {
    const res = await t.app.request(await path());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain('<form method="post"');
    expect(await carolsDigests()).toEqual([true]);
  });

  test("a forged or another user's token is refused", async () => {
    const other = await unsubscribeToken(t.ctx.appSecret, dave.user.id);
    const forged = other.replace(/^\d+\./, `${carol.user.id}.`);
    for (const token of [forged, "1.abc", "garbage"]) {
      const res = await t.app.request(`/api/alerts/unsubscribe?token=${encodeURIComponent(token)}`, { method: "POST", body: "List-Unsubscribe=One-Click", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
      expect(res.status).toBe(404);
    }
    expect(await carolsDigests()).toEqual([true]);
  });

  test("the mail client's POST (no cookie, no anti-forgery token, another origin) unsubscribes", async () => {
    const res = await t.app.request(await path(), {
      method: "POST",
      body: "List-Unsubscribe=One-Click",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://mail.example" },
    });
    expect(res.status).toBe(200);
    expect(await carolsDigests()).toEqual([false]);
  });

  test("the confirm page's button works with a session cookie and no anti-forgery token too", async () => {
    await t.ctx.database.db.update(savedSearches).set({ digest: true }).where(eq(savedSearches.userId, carol.user.id));
    const res = await t.app.request(await path(), {
      method: "POST",
      body: "List-Unsubscribe=One-Click",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: carol.cookie, Origin: "https://issuepool.example" },
    });
    expect(res.status).toBe(200);
    expect(await carolsDigests()).toEqual([false]);
  });
});

describe("Atom feeds", () => {
  test("an explore search's feed: open matching bounties, every text escaped", async () => {
    const res = await t.app.request("/api/feeds/explore?q=parser&currency=XDC&min=10");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    const xml = await res.text();
    expect(xml).toStartWith('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">');
    expect(xml).toContain("<title>Issuepool bounties: at least 10 XDC, &quot;parser&quot;</title>");
    expect(xml).toContain("Parser &lt;b&gt;docs&lt;/b&gt; &amp; &quot;quotes&quot;");
    expect(xml).not.toContain("<b>");
    expect(xml).toContain("Faster parser");
    expect(xml).not.toContain("Private parser bounty");
    expect(xml).not.toContain("Small parser fix");
    const entries = xml.match(/<entry>/g) ?? [];
    expect(entries.length).toBe((xml.match(/<\/entry>/g) ?? []).length);
    for (const tag of ["id", "title", "updated"]) expect((xml.match(new RegExp(`<${tag}>`, "g")) ?? []).length).toBe(entries.length + 1);
    expect((await t.app.request("/api/feeds/explore?currency=BTC")).status).toBe(400);
    expect((await t.app.request("/api/feeds/explore?min=10")).status).toBe(400); // an amount needs its currency
    // A control character is refused before the full-text index (issue 36: it answered 500).
    for (const query of ["q=%00", "q=parser%00", "label=%01", "language=%7F", "repo=a/b%C2%80", "q=a%0Ab"]) {
      const refused = await t.app.request(`/api/feeds/explore?${query}`);
      expect({ query, status: refused.status }).toEqual({ query, status: 400 });
      expect(((await refused.json()) as { code: string }).code).toBe("invalid_search_text");
    }
  });

  test("a repository's feed; a private or unknown repository is 404", async () => {
    const xml = await (await t.app.request("/api/feeds/repos/acme/parsers")).text();
    expect(xml).toContain("<title>Issuepool bounties of acme/parsers</title>");
    expect(xml).toContain("Paid 50.0000 XDC: #6 Paid parser bounty");
    expect((await t.app.request("/api/feeds/repos/acme/secret")).status).toBe(404);
    expect((await t.app.request("/api/feeds/repos/acme/nothing")).status).toBe(404);
  });

  test("a contributor's feed lists what they were paid", async () => {
    const xml = await (await t.app.request("/api/feeds/contributors/dave")).text();
    expect(xml).toContain("<title>Bounties earned by dave on Issuepool</title>");
    expect(xml).toContain("50.0000 XDC for acme/parsers#6 Paid parser bounty");
    expect((await t.app.request("/api/feeds/contributors/nobody-here")).status).toBe(404);
  });

  test("a contributor's feed answers to the login in any case, as GitHub and /@login do", async () => {
    const res = await t.app.request("/api/feeds/contributors/DaVe");
    expect(res.status).toBe(200);
    const xml = await res.text();
    expect(xml).toContain("<title>Bounties earned by dave on Issuepool</title>");
    expect(xml).toContain("50.0000 XDC for acme/parsers#6 Paid parser bounty");
  });
});
