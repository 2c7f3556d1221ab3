/**
 * Explore, boards and profiles at 100x (issue 30, item 6; not a test):
 *   `bun scripts/bench/explore.ts [seconds] [repositories]`
 *
 * Seeds a libSQL file with 100,000 registered repositories and 1,000,000 issues' bounties (200,000 open, 600,000
 * paid, 200,000 cancelled), 20,000 contributors with wallets and 50,000 claims, by multi-row INSERTs in one write
 * transaction; builds the sponsors' records and the boards' totals from them (what a migrated database gets at
 * start); then
 *   1. uncached: each query in this process against the file (the service functions the routes call), p50/p99
 *      over distinct searches: /explore with filters and pages, both boards in both periods, profiles, the
 *      whole public list kept in memory (first build, then a catch-up), /api/repositories/public?limit= pages;
 *   2. cached: the real server (API only, its own process) under closed-loop load on fixed URLs, as a ratio to a
 *      bare Bun.serve measured in the same run (target >= 0.3).
 * The machine is shared: figures are as measured under whatever else runs.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { loadEnv } from "../../api/env.ts";
import { createLogger } from "../../api/logger.ts";
import { startServer, stopOnSignals } from "../../api/server.ts";
import { migrateDatabase, openDatabase } from "../../db/client.ts";
import { generateDevSecrets } from "../lib/dev-secrets.ts";
import { makeTempDir, NO_CHAIN, NO_EXTERNALS } from "../../testing/context.ts";
import { load, loadGenerator, percentile, startBaseline, startServerProcess, table, type ChildServer } from "./lib.ts";
import { parseExploreSearch, searchOpenBounties } from "../../api/services/explore/search.ts";
import { contributorStandings, projectStandings } from "../../api/services/money/leaderboards.ts";
import { publicProfile } from "../../api/services/users/public-profile.ts";
import { advanceRecentTotals, rebuildRecords } from "../../api/services/reliability/record.ts";
import { PublicRepositoryListCache } from "../../api/services/repositories/public-list-cache.ts";
import { listedRepositoriesPage } from "../../api/services/repositories/list-public.ts";
import { reliabilityOf } from "../../api/services/reliability/read.ts";
import { unitOf } from "../../lib/money.ts";

const TARGET_RATIO = 0.3;
const CONTRIBUTORS = 20_000;
const LANGUAGES = ["TypeScript", "Rust", "Go", "Python", "Solidity", "JavaScript", "C", "Java", null];
const LABELS = ["bug", "enhancement", "good first issue", "documentation", "help wanted", "security"];
const WORDS = "address parser wallet signing checksum gas estimate token allowance transfer batch ledger docs guide error typed rpc retry cache index explorer contract event log block nonce fee pool bounty payout webhook".split(" ");

async function serve(): Promise<void> {
  const env = loadEnv();
  const log = createLogger(env.LOG_LEVEL, undefined, {}, env.LOG_FORMAT);
  const running = await startServer(env, { log, workers: false, site: false });
  stopOnSignals(running.stop, log);
}

function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const q = (v: string | number | null) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `'${v.replace(/'/g, "''")}'`);
const address = (i: number) => `0x${(0xb0000000 + i).toString(16).padStart(40, "0")}`;

async function seed(url: string, repositoryCount: number): Promise<{ seconds: number; records: number }> {
  const started = performance.now();
  const database = await openDatabase(url);
  await migrateDatabase(database);
  const random = prng(42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const now = Date.now();
  const day = 86_400_000;
  const tx = await database.client.transaction("write");
  const statements: string[] = [];
  const flush = async (force = false) => {
    if (!force && statements.length < 50) return;
    for (const s of statements.splice(0)) await tx.execute(s);
  };
  const rows = async (head: string, values: string[], per = 500) => {
    for (let i = 0; i < values.length; i += per) {
      statements.push(`${head} VALUES ${values.slice(i, i + per).join(",")}`);
      await flush();
    }
  };
  await rows(
    "INSERT INTO users (id, github_id, username, role, is_profile_complete)",
    Array.from({ length: CONTRIBUTORS }, (_, i) => `(${i + 1}, ${5_000_000 + i}, 'dev-${i}', 'contributor', 1)`),
  );
  await rows(
    "INSERT INTO wallets (id, user_id, address, private_key_sealed, key_context_version)",
    Array.from({ length: CONTRIBUTORS }, (_, i) => `('w${i}', ${i + 1}, '${address(i)}', 'bench', 2)`),
  );
  const repoValues: string[] = [];
  const poolValues: string[] = [];
  const bountyValues: string[] = [];
  const claimValues: string[] = [];
  const bountiesPerRepository = Math.round(1_000_000 / repositoryCount);
  for (let r = 0; r < repositoryCount; r++) {
    const id = 20_000_000 + r;
    const owner = `org-${r % 5000}`;
    const fullName = `${owner}/project-${r}`;
    const registeredAt = now - Math.floor(random() * 730 * day);
    repoValues.push(`(${id}, ${q(fullName)}, ${q(fullName.toLowerCase())}, ${q(owner)}, ${q(`project-${r}`)}, ${q(`A ${pick(WORDS)} library`)}, ${q(`https://github.com/${fullName}`)}, ${q(pick(LANGUAGES))}, ${registeredAt}, ${registeredAt})`);
    let openXdc = 0n;
    for (let n = 1; n <= bountiesPerRepository; n++) {
      const roll = random();
      const status = roll < 0.2 ? "open" : roll < 0.8 ? "paid" : "cancelled";
      const currency = random() < 0.8 ? "XDC" : random() < 0.5 ? "ROXN" : "USDC";
      const amount = BigInt(1 + Math.floor(random() * 500)) * unitOf(currency);
      if (status === "open" && currency === "XDC") openXdc += amount;
      const allocatedAt = registeredAt + Math.floor(random() * Math.max(1, now - registeredAt));
      const closedAt = status === "open" ? null : Math.min(now, allocatedAt + Math.floor(random() * 20 * day));
      const recipient = status === "paid" ? address(Math.floor(random() ** 2 * CONTRIBUTORS)) : null;
      const labels = random() < 0.7 ? JSON.stringify([pick(LABELS), ...(random() < 0.3 ? [pick(LABELS)] : [])]) : null;
      const title = `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}`;
      bountyValues.push(
        `(${id}, ${n}, '${currency}', '${amount}', '${status}', ${q(recipient)}, '0xa${id}${n}', ${status === "paid" ? `'0xp${id}${n}'` : "NULL"}, ${allocatedAt}, ${closedAt ?? "NULL"}, ${q(title)}, ${q(`https://github.com/${fullName}/issues/${n}`)}, ${q(labels)}, ${status === "paid" ? Math.floor(random() ** 3 * 3 * day) : "NULL"}, ${status === "paid" ? (random() < 0.85 ? 1 : 0) : "NULL"}, 1)`,
      );
      if (status === "open" && random() < 0.25) claimValues.push(`(${id}, ${n}, ${1 + Math.floor(random() * CONTRIBUTORS)})`);
    }
    poolValues.push(`(${id}, 'XDC', '${BigInt(Math.floor(random() * 2000)) * unitOf("XDC")}', '${openXdc}')`);
    if (repoValues.length >= 2000) {
      await rows("INSERT INTO repositories (github_repo_id, full_name, full_name_key, owner, name, description, html_url, language, registered_at, updated_at)", repoValues.splice(0));
      await rows("INSERT INTO repository_pools (github_repo_id, currency, balance, allocated)", poolValues.splice(0));
      await rows(
        "INSERT INTO bounties (github_repo_id, issue_number, currency, amount, status, recipient, allocated_tx, paid_tx, allocated_at, closed_at, issue_title, issue_url, labels, paid_after_ms, paid_automatically, updated_block)",
        bountyValues.splice(0),
        250,
      );
      await rows("INSERT OR IGNORE INTO bounty_claims (github_repo_id, issue_number, user_id)", claimValues.splice(0));
    }
  }
  await rows("INSERT INTO repositories (github_repo_id, full_name, full_name_key, owner, name, description, html_url, language, registered_at, updated_at)", repoValues.splice(0));
  await rows("INSERT INTO repository_pools (github_repo_id, currency, balance, allocated)", poolValues.splice(0));
  await rows(
    "INSERT INTO bounties (github_repo_id, issue_number, currency, amount, status, recipient, allocated_tx, paid_tx, allocated_at, closed_at, issue_title, issue_url, labels, paid_after_ms, paid_automatically, updated_block)",
    bountyValues.splice(0),
    250,
  );
  await rows("INSERT OR IGNORE INTO bounty_claims (github_repo_id, issue_number, user_id)", claimValues.splice(0));
  await flush(true);
  await tx.commit();
  const seeded = (performance.now() - started) / 1000;
  const t0 = performance.now();
  await rebuildRecords(database.db);
  const records = (performance.now() - t0) / 1000;
  await database.db.run(sql`ANALYZE`);
  database.close();
  return { seconds: seeded, records };
}

/** A kept file (BENCH_DB) brought to this version: migrations applied, the records and boards' totals rebuilt. */
async function refresh(url: string): Promise<{ seconds: number; records: number }> {
  const database = await openDatabase(url);
  await migrateDatabase(database);
  const t0 = performance.now();
  await rebuildRecords(database.db);
  const records = (performance.now() - t0) / 1000;
  await database.db.run(sql`ANALYZE`);
  database.close();
  return { seconds: 0, records };
}

async function timed(label: string, runs: (() => Promise<unknown>)[]): Promise<(string | number)[]> {
  const times: number[] = [];
  for (const run of runs) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  return [label, runs.length, p50.toFixed(2), percentile(times, 99).toFixed(2), p50 < 10 ? "met" : "MISSED"];
}

async function main(seconds: number, repositoryCount: number): Promise<void> {
  const dir = await makeTempDir("issuepool-bench-explore-");
  const children: ChildServer[] = [];
  try {
    // BENCH_DB=<file>: seed it once and keep it, or reuse it when it exists (query plans, repeated runs).
    const kept = process.env.BENCH_DB;
    const url = `file:${kept ?? join(dir, "app.db")}`;
    const seeded = kept && (await Bun.file(kept).exists()) ? await refresh(url) : await seed(url, repositoryCount);
    console.log(`Seeded ${repositoryCount.toLocaleString()} repositories, ${(Math.round(1_000_000 / repositoryCount) * repositoryCount).toLocaleString()} bounties in ${seeded.seconds.toFixed(1)} s; records built in ${seeded.records.toFixed(1)} s.`);
    if (process.argv.includes("--seed-only")) return;

    // 1. Uncached: the queries themselves, in this process, against the file.
    const database = await openDatabase(url);
    const deps = { database };
    const random = prng(9);
    const explore = (query: string) => () => searchOpenBounties(deps, parseExploreSearch(new URLSearchParams(query)));
    const many = (n: number, make: (i: number) => () => Promise<unknown>) => Array.from({ length: n }, (_, i) => make(i));
    const cursors: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 40; i++) {
      const page: { nextCursor: string | null } = await searchOpenBounties(deps, parseExploreSearch(new URLSearchParams(cursor ? `cursor=${cursor}` : "")));
      cursor = page.nextCursor;
      if (!cursor) break;
      cursors.push(cursor);
    }
    const listCache = new PublicRepositoryListCache(database.db);
    const t0 = performance.now();
    const whole = await listCache.list();
    const firstBuild = performance.now() - t0;
    const rows: (string | number)[][] = [["uncached (in process)", "runs", "p50 ms", "p99 ms", "p50 < 10 ms"]];
    rows.push(await timed("explore: newest", many(20, () => explore(""))));
    rows.push(await timed("explore: pages 2..40 (keyset)", cursors.map((c) => explore(`cursor=${c}`))));
    rows.push(await timed("explore: currency + amount range", many(50, (i) => explore(`currency=XDC&min=${10 + i}&max=${200 + i * 3}`))));
    rows.push(await timed("explore: largest within a currency", many(20, (i) => explore(`currency=${["XDC", "USDC", "ROXN"][i % 3]}&sort=largest`))));
    rows.push(await timed("explore: label + language", many(30, (i) => explore(`label=${encodeURIComponent(LABELS[i % LABELS.length]!)}&language=${LANGUAGES[i % 8]}`))));
    rows.push(await timed("explore: repository", many(50, () => explore(`repo=org-${Math.floor(random() * 5000)}/project-${Math.floor(random() * repositoryCount)}`))));
    rows.push(await timed("explore: nobody working on it", many(20, () => explore("unclaimed=1"))));
    rows.push(await timed("explore: title words (common)", many(30, (i) => explore(`q=${WORDS[i % WORDS.length]}`))));
    rows.push(await timed("explore: a title word no bounty has (full-text index)", many(30, (i) => explore(`q=zzzz-nothing-${i}`))));
    rows.push(await timed("explore: three common title words together", many(30, (i) => explore(`q=${WORDS[i % WORDS.length]}%20${WORDS[(i + 7) % WORDS.length]}%20${WORDS[(i + 13) % WORDS.length]}`))));
    rows.push(await timed("explore: two common title words together (walks)", many(30, (i) => explore(`q=${WORDS[i % WORDS.length]}%20${WORDS[(i + 7) % WORDS.length]}`))));
    rows.push(await timed("explore: a 2-letter word no bounty has (whole-word index)", many(30, (i) => explore(`q=q${"xyzjkv"[i % 6]}`))));
    rows.push(await timed("explore: a 2-letter word and a common word", many(30, (i) => explore(`q=${"xyz"[i % 3]}q%20${WORDS[i % WORDS.length]}`))));
    rows.push(await timed("explore: reliability of a page's 24 repositories", many(50, () => () => reliabilityOf(deps, Array.from({ length: 24 }, () => 20_000_000 + Math.floor(random() * repositoryCount))))));
    rows.push(await timed("leaderboard: contributors, all time", many(20, () => () => contributorStandings(deps, "all"))));
    rows.push(await timed("leaderboard: contributors, 30 days", many(20, () => () => contributorStandings(deps, "30d"))));
    rows.push(await timed("leaderboard: projects, all time", many(20, () => () => projectStandings(deps, "all"))));
    rows.push(await timed("leaderboard: projects, 30 days", many(20, () => () => projectStandings(deps, "30d"))));
    // The boards a day later without a bounty written meanwhile: the totals' horizon is a day behind, so each read
    // subtracts a day of payouts itself (the worst an idle indexer leaves), then the pass that moves it on.
    const dayLater = new Date(Date.now() + 86_400_000);
    rows.push(await timed("leaderboard: contributors, 30 days, horizon a day behind", many(5, () => () => contributorStandings(deps, "30d", dayLater))));
    rows.push(await timed("leaderboard: moving the horizon on by a day (once)", [() => advanceRecentTotals(database.db, dayLater)]));
    rows.push(await timed("profile /@login", many(100, () => () => publicProfile(deps, `dev-${Math.floor(random() ** 2 * CONTRIBUTORS)}`))));
    rows.push(await timed("repositories/public?limit=100 pages", many(50, () => () => listedRepositoriesPage(database.db, { limit: 100, after: { registeredAt: Date.now() - Math.floor(random() * 700 * 86_400_000), id: 99_999_999 } }))));
    rows.push(await timed("repositories/public whole list: catch-up read", many(20, () => async () => { listCache.touch(); await listCache.list(); })));
    database.close();
    console.log(`\n${table(rows)}`);
    console.log(`The whole public list (${whole.length.toLocaleString()} repositories) built in memory once in ${firstBuild.toFixed(0)} ms.`);

    // 2. Cached: the real server under load, against a bare Bun.serve in the same run.
    const { GITHUB_APP_PUBLIC_KEY: _public, ...secrets } = await generateDevSecrets();
    const app = await startServerProcess([process.execPath, import.meta.path, "--serve"], {
      logFile: join(dir, "server.log"),
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...secrets, ...NO_CHAIN, ...NO_EXTERNALS,
        NODE_ENV: "production", LOG_LEVEL: "info", LOG_FORMAT: "json", HOST: "127.0.0.1", PORT: "0", DATA_DIR: dir, DATABASE_URL: url,
      },
      timeoutMs: 120_000,
    });
    const appReadyAt = performance.now();
    children.push(app);
    const baseline = await startBaseline();
    children.push(baseline);
    const paths = [
      "/api/explore?currency=XDC&min=10&max=100",
      "/api/explore?label=bug&sort=oldest",
      "/api/leaderboard/contributors",
      "/api/leaderboard/projects?period=30d",
      "/api/contributors/dev-1",
    ];
    for (const p of paths) {
      const res = await fetch(app.url + p);
      if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${await res.text()}`);
    }
    const sinceReady = performance.now() - appReadyAt;
    const t1 = performance.now();
    const wholeRes = await fetch(`${app.url}/api/repositories/public`, { headers: { "Accept-Encoding": "gzip" } });
    const wholeBytes = (await wholeRes.arrayBuffer()).byteLength;
    const wholeMs = performance.now() - t1;
    await load("warm", `${baseline.url}/`, { seconds: 1 });
    await load("warm", app.url, { seconds: 2, paths });
    const base = await load("bare Bun.serve", `${baseline.url}/`, { seconds });
    const loadRows: (string | number)[][] = [["cached (server, 32 connections)", "req/s", "p50 ms", "ratio to bare", `>= ${TARGET_RATIO}`]];
    loadRows.push(["bare Bun.serve", Math.round(base.requestsPerSec), base.p50Ms.toFixed(2), "1.00", ""]);
    for (const p of paths) {
      await fetch(app.url + p);
      const run = await load(p, `${app.url}${p}`, { seconds });
      const ratio = run.requestsPerSec / base.requestsPerSec;
      loadRows.push([p, Math.round(run.requestsPerSec), run.p50Ms.toFixed(2), (Math.floor(ratio * 100) / 100).toFixed(2), ratio >= TARGET_RATIO ? "met" : "MISSED"]);
    }
    console.log(`\nClosed loop (${await loadGenerator()}), ${seconds} s per run, ${navigator.hardwareConcurrency} cores:\n${table(loadRows)}`);
    console.log(`GET /api/repositories/public (whole list, first request of the server, ${(sinceReady / 1000).toFixed(1)} s after it was ready; the server makes it in the background at start): ${wholeMs.toFixed(0)} ms, ${(wholeBytes / 1024).toFixed(0)} KB gzip.`);
  } finally {
    for (const child of children.reverse()) await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const positional = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (process.argv.includes("--serve")) await serve();
else await main(Number(positional[0] ?? 5), Number(positional[1] ?? 100_000));
