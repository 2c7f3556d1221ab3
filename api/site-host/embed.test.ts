import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import { buildSite } from "../../testing/dev-tools.ts";
import { configuredSiteDistDir } from "../env.ts";
import { createMemoryLogger } from "../logger.ts";
import { startServer, type RunningServer } from "../server.ts";
import { openDatabase, migrateDatabase, type DatabaseHandle } from "../../db/client.ts";
import { bounties, bountyBoosts, bountyShares, repositories, users, wallets } from "../../db/schema/index.ts";
import { insertTestRepositories } from "../../testing/fixtures.ts";
import { testEnv } from "../../testing/context.ts";
import { fixtureRepo } from "../../testing/dev-tools.ts";

/**
 * /embed/{owner}/{repo}, the bounty board for iframes, served by the real
 * server. GitHub is unreachable here: titles and links come from what the
 * platform remembered when the bounties were set.
 */
const ROOT = join(import.meta.dir, "..", "..");
const XDC = 10n ** 18n;
const walletKit = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const privateNotes = fixtureRepo("carol/private-notes")!;
let running: RunningServer;
let database: DatabaseHandle;
let base: string;
const DORA_ADDRESS = "0x00000000000000000000000000000000000000D0";
const ERIN_ADDRESS = "0x00000000000000000000000000000000000000E1";

const bounty = (issueNumber: number, amount: bigint, title: string, currency: "XDC" | "ROXN" = "XDC") => ({
  githubRepoId: walletKit.id,
  issueNumber,
  currency,
  amount,
  status: "open" as const,
  allocatedTx: `0x${issueNumber.toString(16).padStart(64, "0")}`,
  allocatedAt: new Date(),
  issueTitle: title,
  issueUrl: `http://github.test/issuepool-demo/xdc-wallet-kit/issues/${issueNumber}`,
  updatedBlock: 1,
});

beforeAll(async () => {
  await buildSite({ quiet: true });
  const env = await testEnv({ PORT: 0, GITHUB_API_URL: "http://127.0.0.1:9", SITE_DIST_DIR: resolve(ROOT, configuredSiteDistDir()) });
  database = await openDatabase(env.DATABASE_URL);
  await migrateDatabase(database);
  await insertTestRepositories(database.db, { githubUrl: "http://github.test" });
  await database.db.insert(bounties).values([
    bounty(1, 25n * XDC, "Support xdc-prefixed addresses"),
    bounty(4, 150n * XDC, "ROXN <approve> helper", "ROXN"),
  ]);
  // Paid: one to a signed-up user's wallet (shown as their login, linked to /@dora), one to a wallet that is no one's.
  const [dora] = await database.db.insert(users).values({ githubId: 90_401, username: "dora" }).returning();
  await database.db.insert(wallets).values({ id: "w-dora", userId: dora!.id, address: DORA_ADDRESS, privateKeySealed: "sealed", keyContextVersion: 2 });
  await database.db.insert(bounties).values([
    { ...bounty(7, 40n * XDC, "Paid to dora"), status: "paid", recipient: DORA_ADDRESS, paidTx: "0x07", closedAt: new Date(Date.UTC(2026, 10, 3)) },
    { ...bounty(8, 10n * XDC, "Paid to a stranger"), status: "paid", recipient: "0x00000000000000000000000000000000000000E8", paidTx: "0x08", closedAt: new Date(Date.UTC(2026, 10, 2)) },
  ]);
  // A co-authored merge's split payout: the row names its first recipient with the whole; bounty_shares holds each share.
  const [erin] = await database.db.insert(users).values({ githubId: 90_402, username: "erin" }).returning();
  await database.db.insert(wallets).values({ id: "w-erin", userId: erin!.id, address: ERIN_ADDRESS, privateKeySealed: "sealed", keyContextVersion: 2 });
  await database.db.insert(bounties).values({ ...bounty(9, 10n * XDC, "Paid to two co-authors"), status: "paid", recipient: DORA_ADDRESS, paidTx: "0x09", closedAt: new Date(Date.UTC(2026, 10, 4)) });
  await database.db.insert(bountyShares).values([
    { githubRepoId: walletKit.id, issueNumber: 9, currency: "XDC", recipient: ERIN_ADDRESS, amount: 4n * XDC },
    { githubRepoId: walletKit.id, issueNumber: 9, currency: "XDC", recipient: DORA_ADDRESS, amount: 6n * XDC },
  ]);
  await database.db.insert(repositories).values({
    githubRepoId: privateNotes.id,
    fullName: "carol/private-notes",
    fullNameKey: "carol/private-notes",
    owner: "carol",
    name: "private-notes",
    description: privateNotes.description,
    htmlUrl: "http://github.test/carol/private-notes",
    isPrivate: true,
  });
  running = await startServer(env, { log: createMemoryLogger(), database, workers: false });
  base = `http://127.0.0.1:${running.server.port}`;
}, 120_000);
afterAll(() => running?.stop());

describe("the embeddable board", () => {
  test("is server-rendered with the pool and the open bounties, without a script", async () => {
    const res = await fetch(`${base}/embed/issuepool-demo/xdc-wallet-kit`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("issuepool-demo/xdc-wallet-kit");
    expect(html).toContain("1,250.00 XDC");
    expect(html).toContain("5,000.00 ROXN");
    expect(html).toContain("2 open bounties");
    expect(html).toContain("Support xdc-prefixed addresses");
    // A bounty reads as on every page (lib/money-format.ts, issue 38).
    expect(html).toContain("25.0000 XDC");
    expect(html).toContain("150.00 ROXN");
    expect(html).toContain("ROXN &lt;approve&gt; helper");
    expect(html).toContain("Powered by Issuepool");
    expect(html).not.toContain("<script");
    // no site header or footer
    expect(html).not.toContain("Skip to content");
    expect(html).not.toContain("Account menu");
  });

  test("every link opens in a new tab: the issues, the repository's page, Issuepool", async () => {
    const html = await (await fetch(`${base}/embed/issuepool-demo/xdc-wallet-kit`)).text();
    const anchors = html.match(/<a\b[^>]*>/g) ?? [];
    expect(anchors.length).toBeGreaterThanOrEqual(5);
    for (const a of anchors) {
      expect(a).toContain('target="_blank"');
      expect(a).toContain('rel="noopener"');
    }
    const hrefs = anchors.map((a) => /href="([^"]+)"/.exec(a)?.[1]);
    expect(hrefs).toContain("http://github.test/issuepool-demo/xdc-wallet-kit/issues/1");
    expect(hrefs).toContain("/issuepool-demo/xdc-wallet-kit");
    expect(hrefs).toContain("/repos");
  });

  test("the latest payouts link their recipients' profiles (in a new tab), never an address", async () => {
    const html = await (await fetch(`${base}/embed/issuepool-demo/xdc-wallet-kit`)).text();
    expect(html).toContain("Recently paid");
    expect(html).toMatch(/<a href="\/@dora" target="_blank" rel="noopener"[^>]*>@dora<\/a>/);
    expect(html).toContain("a contributor");
    expect(html).not.toContain(DORA_ADDRESS);
    expect(html).not.toContain("<script");
  });

  test("a split payout names each recipient with their own share: the embed, the page's data (issue 29)", async () => {
    const html = await (await fetch(`${base}/embed/issuepool-demo/xdc-wallet-kit?probe=split`)).text();
    const item = /<li[^>]*data-issue="9"[^>]*>([\s\S]*?)<\/li>/.exec(html)?.[1] ?? "";
    const text = item.replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim();
    expect(text).toContain("10.0000 XDC");
    expect(text).toContain("shared: @dora 6.0000 XDC, @erin 4.0000 XDC");
    expect(item).toMatch(/<a href="\/@erin" target="_blank" rel="noopener"[^>]*>@erin<\/a>/);
    expect(html).not.toContain(ERIN_ADDRESS);
    // A payout to one recipient is unchanged: the whole amount, to them.
    const single = /<li[^>]*data-issue="7"[^>]*>([\s\S]*?)<\/li>/.exec(html)?.[1]?.replace(/<[^>]+>/g, "").replace(/\s+/g, " ") ?? "";
    expect(single).toContain("to @dora");
    const data = (await (await fetch(`${base}/api/public/unified-repo/issuepool-demo/xdc-wallet-kit`)).json()) as { recentPayouts: { issueNumber: number; amount: string; login: string | null; recipients: unknown }[] };
    const split = data.recentPayouts.find((p) => p.issueNumber === 9);
    expect(split).toMatchObject({ amount: "10", login: "dora", recipients: [{ login: "dora", amount: "6" }, { login: "erin", amount: "4" }] });
    expect(data.recentPayouts.find((p) => p.issueNumber === 7)?.recipients).toEqual([{ login: "dora", amount: "40" }]);
    expect(data.recentPayouts.find((p) => p.issueNumber === 8)?.recipients).toEqual([{ login: null, amount: "10" }]);
  });

  test("the public repository page links the recipients' profiles, rendered on the server", async () => {
    // The page shows bounties (and payouts) for a managed repository: the GitHub App installed on it.
    await database.db.update(repositories).set({ installationId: 77 }).where(eq(repositories.githubRepoId, walletKit.id));
    running.ctx.changes.publish([`repo:${walletKit.id}`]);
    try {
      const html = await (await fetch(`${base}/issuepool-demo/xdc-wallet-kit?probe=payouts`)).text();
      expect(html).toContain('data-state="managed"');
      expect(html).toContain("Recently paid");
      expect(html).toMatch(/<a href="\/@dora"[^>]*data-profile-link[^>]*>@dora<\/a>/);
      expect(html).not.toMatch(/<a href="\/@dora"[^>]*target=/);
      expect(html).toContain("Paid to a stranger");
      expect(html).not.toContain(DORA_ADDRESS);
    } finally {
      await database.db.update(repositories).set({ installationId: null }).where(eq(repositories.githubRepoId, walletKit.id));
      running.ctx.changes.publish([`repo:${walletKit.id}`]);
    }
  });

  test("may be framed; every other document refuses framing", async () => {
    const embed = await fetch(`${base}/embed/issuepool-demo/xdc-wallet-kit`);
    expect(embed.headers.get("x-frame-options")).toBeNull();
    expect(embed.headers.get("content-security-policy") ?? "").not.toContain("frame-ancestors");
    expect(embed.headers.get("x-content-type-options")).toBe("nosniff");
    const missing = await fetch(`${base}/embed/nobody-here/nothing`);
    expect(missing.headers.get("x-frame-options")).toBeNull();
    for (const path of ["/issuepool-demo/xdc-wallet-kit", "/repos", "/faq", "/definitely/not/a/page"]) {
      const res = await fetch(`${base}${path}`);
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
  });

  test("is cached like the public page and re-rendered when the repository's data changes", async () => {
    const url = `${base}/embed/issuepool-demo/xdc-wallet-kit?probe=cache`;
    const first = await fetch(url);
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    expect(first.headers.get("x-page-cache")).toBeNull();
    const etag = first.headers.get("etag")!;
    expect(etag).toBeTruthy();
    expect((await fetch(url, { headers: { "if-none-match": etag } })).status).toBe(304);

    await database.db.insert(bounties).values(bounty(2, 50n * XDC, "Checksum xdc addresses"));
    try {
      // Until the change is announced, the cached copy is served.
      expect(await (await fetch(url)).text()).not.toContain("Checksum xdc addresses");
      running.ctx.changes.publish([`repo:${walletKit.id}`]);
      const fresh = await (await fetch(url)).text();
      expect(fresh).toContain("Checksum xdc addresses");
      expect(fresh).toContain("3 open bounties");
    } finally {
      // The other tests see the board as beforeAll made it.
      await database.db.delete(bounties).where(and(eq(bounties.githubRepoId, walletKit.id), eq(bounties.issueNumber, 2)));
      running.ctx.changes.publish([`repo:${walletKit.id}`]);
    }
  });

  test("a boosted bounty shows its total with the boosts and its funders, anonymous ones unnamed (issue 29)", async () => {
    const url = `${base}/embed/issuepool-demo/xdc-wallet-kit?probe=funders`;
    const [bob, carol] = await database.db
      .insert(users)
      .values([
        { githubId: 1002, username: "bob" },
        { githubId: 1003, username: "carol" },
      ])
      .returning();
    const boost = (userId: number, amount: bigint, anonymous: boolean) => ({
      githubRepoId: walletKit.id, issueNumber: 1, userId, funderAddress: `0x${String(userId).padStart(40, "0")}`, currency: "XDC" as const,
      amount, fee: amount / 199n, anonymous, status: "active" as const, idempotencyKey: `embed-${userId}`,
    });
    // 1.99 XDC from bob, 2.985 XDC from carol, anonymously; and a refunded boost that no longer counts.
    await database.db.insert(bountyBoosts).values([boost(bob!.id, 1_990_000_000_000_000_000n, false), boost(carol!.id, 2_985_000_000_000_000_000n, true), { ...boost(bob!.id, XDC, false), status: "refunded" as const, idempotencyKey: "embed-gone" }]);
    try {
      running.ctx.changes.publish([`repo:${walletKit.id}`]);
      const html = await (await fetch(url)).text();
      const row = html.slice(html.indexOf('data-issue="1"'), html.indexOf("</li>", html.indexOf('data-issue="1"')));
      // The total and the one breakdown every page shows (issue 38).
      expect(row).toMatch(/data-reward[^>]*>29\.9750 XDC</);
      expect(row).toMatch(/data-funders[^>]*>25\.0000 XDC from the pool \+ 4\.9750 XDC from 2 funders</);
      expect(row).toContain("@bob: 1.9900 XDC");
      expect(row).toContain("anonymous: 2.9850 XDC");
      expect(html).not.toContain("carol");
      // A bounty nobody boosted shows its amount alone.
      const other = html.slice(html.indexOf('data-issue="4"'));
      expect(other.slice(0, other.indexOf("</li>"))).not.toContain("data-funders");
    } finally {
      await database.db.delete(bountyBoosts).where(eq(bountyBoosts.githubRepoId, walletKit.id));
      await database.db.delete(users).where(inArray(users.id, [bob!.id, carol!.id]));
      running.ctx.changes.publish([`repo:${walletKit.id}`]);
    }
  });

  test("follows ?theme=light|dark, else the system setting without a script", async () => {
    const dark = await (await fetch(`${base}/embed/issuepool-demo/xdc-wallet-kit?theme=dark`)).text();
    expect(dark).toMatch(/<html[^>]*class="dark"/);
    expect(dark).not.toContain("prefers-color-scheme");
    const light = await (await fetch(`${base}/embed/issuepool-demo/xdc-wallet-kit?theme=light`)).text();
    expect(light).toMatch(/<html[^>]*class="light"/);
    expect(light).not.toContain("prefers-color-scheme");
    for (const query of ["", "?theme=sepia"]) {
      const system = await (await fetch(`${base}/embed/issuepool-demo/xdc-wallet-kit${query}`)).text();
      expect(system).not.toMatch(/<html[^>]*class=/);
      expect(system).toMatch(/@media \(prefers-color-scheme: dark\)\{:root:not\(\.light\)\{[^}]*--background:/);
    }
  });

  test("a registered repository without bounties shows the empty state", async () => {
    const res = await fetch(`${base}/embed/issuepool-demo/roxn-sdk`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("No open bounties right now");
    expect(html).toContain("0 open bounties");
    expect(html).toContain("0.00 XDC");
  });

  test("unregistered, private and malformed repositories are 'not on Issuepool' with 404", async () => {
    for (const path of ["/embed/nobody-here/nothing", "/embed/carol/private-notes", "/embed/-bad-/name"]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("cache-control")).toBe("public, max-age=60");
      const html = await res.text();
      expect(html).toContain("is not on Issuepool");
      expect(html).toContain("Powered by Issuepool");
      expect(html).not.toContain("Never public");
      expect(html).not.toContain("Page Not Found");
    }
  });

  test("HEAD answers without a body", async () => {
    const res = await fetch(`${base}/embed/issuepool-demo/xdc-wallet-kit`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });
});
