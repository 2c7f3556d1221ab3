/**
 * The pages of issue 30 rendered by the real server with their data in the HTML: /explore (filters as a GET form,
 * canonical URLs, keyset "More bounties", a bad filter explained with 400), /leaderboard (tabs and periods as
 * links), /@{login} (one segment; unknown or malformed: 404), and the reliability line on the cards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseEther } from "viem";
import { buildSite } from "../../testing/dev-tools.ts";
import { createMemoryLogger } from "../logger.ts";
import { startServer, type RunningServer } from "../server.ts";
import { openDatabase, migrateDatabase } from "../../db/client.ts";
import { testEnv } from "../../testing/context.ts";
import { bounties, repositories, users, wallets } from "../../db/schema/index.ts";
import { rebuildRecords } from "../services/reliability/record.ts";
import { createSession } from "../services/auth/sessions.ts";
import { sessionCookieName } from "../middleware/cookies.ts";

const ROOT = join(import.meta.dir, "..", "..");
let running: RunningServer;
let base: string;
/** Session cookies of frank (the profile's owner) and gina (another signed-in user). */
let frankCookie: string;
let ginaCookie: string;

beforeAll(async () => {
  await buildSite({ quiet: true });
  const env = await testEnv({ PORT: 0, SITE_DIST_DIR: join(ROOT, "dist") });
  const database = await openDatabase(env.DATABASE_URL);
  await migrateDatabase(database);
  const db = database.db;
  await db.insert(repositories).values([
    { githubRepoId: 1, fullName: "acme/rocket", fullNameKey: "acme/rocket", owner: "acme", name: "rocket", htmlUrl: "https://github.com/acme/rocket", language: "TypeScript" },
    { githubRepoId: 2, fullName: "acme/engine", fullNameKey: "acme/engine", owner: "acme", name: "engine", htmlUrl: "https://github.com/acme/engine" },
  ]);
  const [frank] = await db.insert(users).values({ githubId: 501, username: "frank" }).returning();
  const [gina] = await db.insert(users).values({ githubId: 502, username: "gina" }).returning();
  frankCookie = `${sessionCookieName(env)}=${(await createSession(db, frank!.id)).token}`;
  ginaCookie = `${sessionCookieName(env)}=${(await createSession(db, gina!.id)).token}`;
  const address = "0x00000000000000000000000000000000000000F1";
  await db.insert(wallets).values({ id: "w-frank", userId: frank!.id, address, privateKeySealed: "sealed", keyContextVersion: 2 });
  const at = (day: number) => new Date(Date.UTC(2026, 10, day));
  const rows: (typeof bounties.$inferInsert)[] = [];
  for (let i = 1; i <= 30; i++) {
    rows.push({ githubRepoId: 1 + (i % 2), issueNumber: i, currency: i % 3 === 0 ? "USDC" : "XDC", amount: i % 3 === 0 ? BigInt(i) * 1_000_000n : parseEther(String(i)), status: "open", allocatedTx: `0x${i}`, allocatedAt: at(1 + (i % 20)), issueTitle: `Task number ${i}`, updatedBlock: 1 });
  }
  rows.push({ githubRepoId: 1, issueNumber: 99, currency: "XDC", amount: parseEther("4"), status: "paid", recipient: address, allocatedTx: "0x99", paidTx: "0xabc", allocatedAt: at(1), closedAt: at(2), issueTitle: "Done already", updatedBlock: 1, paidAfterMs: 120_000, paidAutomatically: true });
  await db.insert(bounties).values(rows);
  await rebuildRecords(db);
  running = await startServer(env, { log: createMemoryLogger(), database, workers: false });
  base = `http://127.0.0.1:${running.server.port}`;
}, 180_000);
afterAll(() => running?.stop());

const page = async (path: string, cookie?: string) => {
  const res = await fetch(`${base}${path}`, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
  return { status: res.status, location: res.headers.get("location"), html: await res.text() };
};
const shown = (html: string) => [...html.matchAll(/data-bounty="([^"]+)"/g)].map((m) => m[1]);

describe("/explore", () => {
  test("the bounties are in the HTML, with the sponsor's record; the header's Explore goes here", async () => {
    const { status, html } = await page("/explore");
    expect(status).toBe(200);
    expect(shown(html)).toHaveLength(24);
    expect(html).toContain("Task number");
    expect(html).toContain("1 paid · median within 5 minutes of merge · 100% automatic");
    expect(html).toMatch(/href="\/explore"[^>]*>[^<]*<[^>]*>[^<]*Explore|Explore/);
    expect(html).toContain('rel="next"');
    expect(html).toMatch(/<option value="expiring"[^>]*>Expiring soon<\/option>/);
  });

  test("sort=expiring is an order of the page (no bounty here has an expiring boost: none listed)", async () => {
    const { status, html } = await page("/explore?sort=expiring");
    expect(status).toBe(200);
    expect(html).toMatch(/<option value="expiring" selected[^>]*>Expiring soon<\/option>/);
    expect(shown(html)).toHaveLength(0);
  });

  test("a form submission lands on the canonical URL; the same URL gives the same bounties; More follows on", async () => {
    const submitted = await page("/explore?q=&currency=XDC&sort=newest&min=10&max=&label=&language=&repo=");
    expect(submitted.status).toBe(302);
    expect(submitted.location).toBe("/explore?currency=XDC&min=10");
    const first = await page(submitted.location!);
    const again = await page(submitted.location!);
    expect(shown(first.html)).toEqual(shown(again.html));
    expect(shown(first.html).length).toBeGreaterThan(0);
    const all = await page("/explore?currency=XDC&min=10&limit=100");
    expect(shown(all.html).length).toBe(14);
  });

  test("a bad filter: 400 with the sentence that says which", async () => {
    const { status, html } = await page("/explore?currency=XDC&min=lots");
    expect(status).toBe(400);
    expect(html).toContain("min: a number of XDC");
  });

  test("a control character in any filter: a 400 page that says which, never a 500 (issue 36)", async () => {
    for (const query of ["q=%00", "q=fix%00login", "label=a%0Ab", "language=%7F", "repo=acme/rocket%C2%85", "sort=%01", "cursor=%00"]) {
      const { status, html } = await page(`/explore?${query}`);
      expect({ query, status }).toEqual({ query, status: 400 });
      expect(html).toContain("control characters (such as NUL or a line break) are not allowed in a search.");
      expect(html).not.toContain("\u0000");
    }
  });
});

describe("/leaderboard and /@{login}", () => {
  test("the contributors board links the profile; the projects tab and the 30 days period are links", async () => {
    const board = await page("/leaderboard");
    expect(board.status).toBe(200);
    expect(board.html).toContain('href="/@frank"');
    expect(board.html).toContain("4.00 XDC");
    const projects = await page("/leaderboard?tab=projects&period=30d");
    expect(projects.html).toContain('data-board="projects"');
  });

  test("a profile: earned, with the transaction; unknown or malformed logins are 404", async () => {
    const profile = await page("/@frank");
    expect(profile.status).toBe(200);
    expect(profile.html).toContain("Done already");
    expect(profile.html).not.toContain("data-wallet>");
    expect((await page("/@nobody-here")).status).toBe(404);
    expect((await page("/@bad..login")).status).toBe(404);
    // A public repository page is two segments and unaffected.
    expect((await page("/acme/rocket")).status).not.toBe(404);
  });

  test("the Tip button: for a signed-in viewer on someone else's profile only; the anonymous page (cached) ships no island", async () => {
    const anonymous = await page("/@frank");
    expect(anonymous.html).not.toContain("data-tip-slot");
    expect(anonymous.html).not.toContain("astro-island");
    // The anonymous copy is cached; a viewer with a session gets their own render, never cached.
    const res = await fetch(`${base}/@frank`, { headers: { Cookie: ginaCookie } });
    expect(res.headers.get("cache-control")).toContain("no-store");
    const other = await res.text();
    expect(other).toContain('data-tip-slot="frank"');
    expect(other).toContain("astro-island");
    expect(other).toContain(`data-tip-button="frank"`);
    const own = await page("/@frank", frankCookie);
    expect(own.status).toBe(200);
    expect(own.html).not.toContain("data-tip-slot");
    // And anonymous visitors still get the anonymous page after the viewers' visits.
    const again = await page("/@frank");
    expect(again.html).not.toContain("data-tip-slot");
    expect(again.html).not.toContain("astro-island");
  });
});
