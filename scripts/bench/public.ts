/**
 * Public reads benchmark (not a test): `bun scripts/bench/public.ts [seconds] [rounds] [--against <dir>]`.
 *
 * Seeds a temp libSQL database with 1,000 registered public repositories
 * and 50,000 issues (the GitHub cache rows the endpoints read, plus pools,
 * bounties and claims), starts the real server on it (API only, no
 * workers, its own process, log to a file as in production), and measures
 * with closed-loop load (32 connections):
 *   GET /api/repositories/public
 *   GET /api/public/unified-repo/{owner}/{repo}   rotating over all 1,000
 * as a ratio to a bare Bun.serve measured in the same run (issue 5 target:
 * at least 0.3 each; the median of a few rounds, as the machines are shared),
 * and, to read that ratio, against a bare Bun.serve sending a body as large
 * as the endpoint's (these answers are tens of KB, the baseline's 5 bytes);
 * then the same endpoints with a random query string on every request
 * (which the cache key ignores, so a cache-busting flood is served from the
 * cache), and the latency of first requests. About two minutes with the defaults (5 s
 * runs, 3 rounds).
 *
 * GitHub is a stub on 127.0.0.1 that issues installation tokens and counts
 * anything else: the seeded cache rows are fresh, so no GitHub call is
 * needed per request, and the run says whether any was made.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { loadEnv } from "../../api/env.ts";
import { createLogger } from "../../api/logger.ts";
import { startServer, stopOnSignals } from "../../api/server.ts";
import { openDatabase, migrateDatabase, type Database } from "../../db/client.ts";
import { bounties, bountyClaims, githubCache, githubInstallations, repositories, repositoryPools, users, type Currency } from "../../db/schema/index.ts";
import { issuesCacheKey, repoCacheKey, type IssueSummary, type RepoPublicInfo } from "../../api/github/data.ts";
import { generateDevSecrets } from "../lib/dev-secrets.ts";
import { unitOf } from "../../lib/money.ts";
import { makeTempDir, NO_CHAIN, NO_EXTERNALS } from "../../testing/context.ts";
import { compareServers, load, loadGenerator, percentile, startBaseline, startBareBytes, startServerProcess, table, type ChildServer, type LoadResult } from "./lib.ts";

const REPOSITORIES = 1_000;
const ISSUES_PER_REPOSITORY = 50;
const OWNERS = 50;
const USERS = 100;
const TARGET_RATIO = 0.3;

/** The child: the production server on the seeded database, without workers or the site. */
async function serve(): Promise<void> {
  const env = loadEnv();
  const log = createLogger(env.LOG_LEVEL, undefined, {}, env.LOG_FORMAT);
  const running = await startServer(env, { log, workers: false, site: false });
  stopOnSignals(running.stop, log);
}

interface Target {
  label: string;
  url: string;
  paths?: string[];
  /** A bare Bun.serve sending a body as large as this endpoint's (gzipped) answers. */
  sameBytes: ChildServer;
}

async function main(seconds: number, rounds: number, against: string | undefined): Promise<void> {
  const dir = await makeTempDir("issuepool-bench-public-");
  const github = startGitHubStub();
  const children: ChildServer[] = [];
  const cleanup = async () => {
    for (const child of children.reverse()) await child.stop();
    children.length = 0;
    github.server.stop(true);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("SIGINT", () => void cleanup().finally(() => process.exit(130)));

  try {
    const started = performance.now();
    const databaseUrl = `file:${join(dir, "app.db")}`;
    const fullNames = await seed(databaseUrl);
    console.log(`Seeded ${REPOSITORIES} repositories and ${REPOSITORIES * ISSUES_PER_REPOSITORY} issues in ${((performance.now() - started) / 1000).toFixed(1)} s.`);

    const { GITHUB_APP_PUBLIC_KEY: _public, ...secrets } = await generateDevSecrets();
    const serverEnv = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/tmp",
        ...secrets,
        ...NO_CHAIN,
        ...NO_EXTERNALS,
        NODE_ENV: "production",
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
        HOST: "127.0.0.1",
        PORT: "0",
        DATA_DIR: dir,
        DATABASE_URL: databaseUrl,
        GITHUB_API_URL: github.url,
    };
    const app = await startServerProcess([process.execPath, import.meta.path, "--serve"], { logFile: join(dir, "server.log"), env: serverEnv });
    children.push(app);
    // The other checkout's server, on the same database (its migrations are a prefix of this tree's or equal).
    const other = against
      ? await startServerProcess([process.execPath, join(against, "scripts", "bench", "public.ts"), "--serve"], { logFile: join(dir, "against.log"), env: serverEnv })
      : undefined;
    if (other) children.push(other);
    const baseline = await startBaseline();
    children.push(baseline);

    const list = "/api/repositories/public";
    const unified = shuffled(fullNames).map((name) => `/api/public/unified-repo/${name}`);

    // First requests: nothing cached in the server yet (each repository's first visit).
    const firstUnified = await sequential(app.url, unified);
    // Only the very first list request renders: later ones, whatever their query string, are cache hits.
    const firstList = await sequential(app.url, [list]);
    const listAfter = await sequential(app.url, Array.from({ length: 99 }, (_, i) => `${list}?first=${i}`));
    const targets: Target[] = [
      { label: `GET ${list}`, url: `${app.url}${list}`, sameBytes: await startBareBytes(median(firstList.bytes)) },
      { label: "GET /api/public/unified-repo/{owner}/{repo} (1,000 rotating)", url: app.url, paths: unified, sameBytes: await startBareBytes(median(firstUnified.bytes)) },
    ];
    children.push(...targets.map((t) => t.sameBytes));
    // Warm up (JIT) every server and path that is measured below.
    await load("warm", `${baseline.url}/`, { seconds: 1 });
    for (const t of targets) {
      await load("warm", `${t.sameBytes.url}/`, { seconds: 1 });
      await load("warm", t.url, { seconds: 2, paths: t.paths });
      await load("warm", app.url, { seconds: 2, paths: t.paths ?? [list], uniqueQuery: true });
    }
    const callsBefore = github.dataCalls;
    if (other && against) {
      await compareServers(app, other, against, targets, seconds, rounds, {
        // Both servers' copies fresh before each run (a copy expiring mid-run is a render), as in the rounds below.
        beforeRun: (origin, paths) => sequential(origin, paths),
      });
      return;
    }

    // Rounds: the baseline, then per endpoint a bare server sending as many bytes and the endpoint.
    // Ratios are taken within a round and the median round is reported, so a burst of load from
    // elsewhere on the machine does not decide the result. Each endpoint is visited once (one at a
    // time) just before its run, so its cached copies are fresh: copies all made at the same moment
    // would otherwise all expire within the same run.
    const baselines: LoadResult[] = [];
    const measured = targets.map(() => ({ runs: [] as LoadResult[], ratios: [] as number[], sameBytes: [] as LoadResult[] }));
    for (let round = 0; round < rounds; round++) {
      const base = await load("bare Bun.serve (baseline)", `${baseline.url}/`, { seconds });
      baselines.push(base);
      for (const [i, t] of targets.entries()) {
        const bare = await load("bare, same bytes", `${t.sameBytes.url}/`, { seconds });
        await sequential(app.url, t.paths ?? [list]);
        const run = await load(t.label, t.url, { seconds, paths: t.paths });
        measured[i]!.runs.push(run);
        measured[i]!.sameBytes.push(bare);
        measured[i]!.ratios.push(run.requestsPerSec / base.requestsPerSec);
      }
    }
    const uncached = [
      await load(`GET ${list}?<random>`, app.url, { seconds, paths: [list], uniqueQuery: true }),
      await load("GET /api/public/unified-repo/...?<random>", app.url, { seconds, paths: unified, uniqueQuery: true }),
    ];
    const callsDuring = github.dataCalls - callsBefore;

    const baseRate = median(baselines.map((b) => b.requestsPerSec));
    const stats = (runs: LoadResult[]) => [
      Math.round(median(runs.map((r) => r.requestsPerSec))),
      median(runs.map((r) => r.p50Ms)),
      median(runs.map((r) => r.p99Ms)),
      runs.reduce((n, r) => n + r.errors + r.non2xx, 0),
    ];
    const rows: (string | number)[][] = [["endpoint", "req/s", "p50 ms", "p99 ms", "errors", "ratio to bare", "per round", "target", "ratio to bare, same bytes"]];
    rows.push([baselines[0]!.label, ...stats(baselines), "1.00", "", "", ""]);
    const missed: string[] = [];
    for (const [i, t] of targets.entries()) {
      const m = measured[i]!;
      const ratio = median(m.ratios);
      const sameBytes = median(m.runs.map((r, round) => r.requestsPerSec / m.sameBytes[round]!.requestsPerSec));
      if (ratio < TARGET_RATIO) missed.push(t.label);
      rows.push([t.label, ...stats(m.runs), floor2(ratio), m.ratios.map(floor2).join(" "), `>= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? "met" : "MISSED"}`, floor2(sameBytes)]);
    }
    for (const r of uncached) rows.push([r.label, ...stats([r]), (r.requestsPerSec / baseRate).toFixed(3), "", "", ""]);

    console.log(
      `\n${REPOSITORIES} repositories, ${REPOSITORIES * ISSUES_PER_REPOSITORY} issues. Closed loop (${await loadGenerator()}), 32 connections, ${seconds} s per run, median of ${rounds} rounds (one run for the random-query rows), on ${navigator.hardwareConcurrency} cores:\n`,
    );
    console.log(table(rows));
    console.log(
      `\nBodies (gzip): repositories/public ${kb(median(firstList.bytes))}, unified-repo ${kb(median(firstUnified.bytes))} (median); "same bytes" is a bare Bun.serve sending a body that large.`,
    );
    console.log(`First requests, one at a time (nothing cached in the server):`);
    console.log(`  unified-repo, each of the ${unified.length} repositories once: p50 ${ms(percentile(firstUnified.times, 50))}, p99 ${ms(percentile(firstUnified.times, 99))}`);
    console.log(`  repositories/public: the first ${ms(firstList.times[0]!)}; the next 99, each with its own query string: p50 ${ms(percentile(listAfter.times, 50))}`);
    console.log(
      `GitHub: ${github.tokenCalls} installation tokens (one per installation, kept an hour); ${callsDuring} data requests during the measured runs, ${github.dataCalls} in all.`,
    );
    if (missed.length) console.log(`\nMissed: ${missed.join(", ")}`);
  } finally {
    await cleanup();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (v: number) => `${v.toFixed(2)} ms`;
/** Two decimals, rounded down: a ratio of 0.298 must not read as 0.30. */
const floor2 = (ratio: number) => (Math.floor(ratio * 100) / 100).toFixed(2);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** Sequential GETs accepting gzip: latencies (ms, sorted) and body sizes as sent. Fails on anything but 200. */
async function sequential(origin: string, paths: string[]): Promise<{ times: number[]; bytes: number[] }> {
  const times: number[] = [];
  const bytes: number[] = [];
  for (const path of paths) {
    const t0 = performance.now();
    const res = await fetch(origin + path, { headers: { "Accept-Encoding": "gzip" } });
    const body = await res.arrayBuffer();
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    bytes.push(Number(res.headers.get("content-length") ?? body.byteLength));
  }
  return { times: times.sort((a, b) => a - b), bytes };
}

/**
 * GitHub's API as far as the server needs it here: installation tokens. Any
 * other request is counted and answered 503, so the server would fall back
 * to its cached copy rather than fail, and the count shows it.
 */
function startGitHubStub() {
  const counts = { tokenCalls: 0, dataCalls: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request): Response {
      const path = new URL(request.url).pathname;
      if (request.method === "POST" && /^\/app\/installations\/\d+\/access_tokens$/.test(path)) {
        counts.tokenCalls++;
        return Response.json({ token: `ghs_bench${counts.tokenCalls}`, expires_at: new Date(Date.now() + 3600_000).toISOString() }, { status: 201 });
      }
      counts.dataCalls++;
      return Response.json({ message: "GitHub stub: not served in this benchmark" }, { status: 503 });
    },
  });
  return {
    server,
    url: `http://127.0.0.1:${server.port}`,
    get tokenCalls() {
      return counts.tokenCalls;
    },
    get dataCalls() {
      return counts.dataCalls;
    },
  };
}

/** Deterministic data: every run seeds the same world. */
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

function shuffled<T>(items: T[]): T[] {
  const random = prng(7);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const WORDS = "address parser wallet signing checksum gas estimate token allowance approve transfer batch ledger docs guide error typed rpc retry cache index explorer contract event log block nonce fee pool bounty payout webhook bot label".split(" ");
const LABELS = [
  { name: "bug", color: "d73a4a" },
  { name: "enhancement", color: "a2eeef" },
  { name: "good first issue", color: "7057ff" },
  { name: "documentation", color: "0075ca" },
  { name: "help wanted", color: "008672" },
  { name: "bounty", color: "fbca04" },
];

/**
 * The world the two endpoints read: repositories (with installations),
 * pools, bounties and claims in the platform's tables, and for each
 * repository the two GitHub cache rows the public page reads (details and
 * open issues), fresh for a day so the run needs no GitHub. Returns the
 * repositories' full names.
 */
async function seed(databaseUrl: string): Promise<string[]> {
  const database = await openDatabase(databaseUrl);
  await migrateDatabase(database);
  const db = database.db;
  const random = prng(42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const now = Date.now();
  const day = 24 * 3600_000;
  const iso = (t: number) => new Date(t).toISOString();

  const userRows = await insertChunked(
    db,
    users,
    Array.from({ length: USERS }, (_, i) => ({ githubId: 9_000_000 + i, username: `contributor-${i}`, role: "contributor" as const, isProfileComplete: true })),
  ).then(() => db.select({ id: users.id }).from(users));
  await insertChunked(
    db,
    githubInstallations,
    Array.from({ length: OWNERS }, (_, i) => ({ installationId: 7_000_000 + i, accountId: 8_000_000 + i, accountLogin: `bench-org-${i}`, accountType: "Organization", repositorySelection: "all" })),
  );

  const repoRows: (typeof repositories.$inferInsert)[] = [];
  const poolRows: (typeof repositoryPools.$inferInsert)[] = [];
  const bountyRows: (typeof bounties.$inferInsert)[] = [];
  const claimRows: (typeof bountyClaims.$inferInsert)[] = [];
  const cacheRows: (typeof githubCache.$inferInsert)[] = [];
  const fullNames: string[] = [];
  for (let i = 0; i < REPOSITORIES; i++) {
    const id = 10_000_000 + i;
    const owner = `bench-org-${i % OWNERS}`;
    const name = `project-${i}`;
    const fullName = `${owner}/${name}`;
    const htmlUrl = `https://github.com/${fullName}`;
    const description = `A ${words(6)} library.`;
    const registeredAt = now - Math.floor(random() * 365 * day);
    const pushedAt = now - Math.floor(random() * 30 * day);
    fullNames.push(fullName);
    repoRows.push({
      githubRepoId: id,
      fullName,
      fullNameKey: fullName.toLowerCase(),
      owner,
      name,
      description,
      htmlUrl,
      stars: Math.floor(random() * 5000),
      forks: Math.floor(random() * 500),
      installationId: 7_000_000 + (i % OWNERS),
      defaultBranch: "main",
      pushedAt: new Date(pushedAt),
      registeredAt: new Date(registeredAt),
      updatedAt: new Date(registeredAt),
    });

    // Bounties on some of the first issues: most open, some paid; a few contributors on the open ones.
    const allocated: Record<Currency, bigint> = { XDC: 0n, ROXN: 0n, USDC: 0n };
    const bountyCount = Math.floor(random() * 9);
    for (let n = 1; n <= bountyCount; n++) {
      const currency: Currency = random() < 0.8 ? "XDC" : random() < 0.5 ? "ROXN" : "USDC";
      const amount = BigInt(5 + Math.floor(random() * 200)) * unitOf(currency);
      const paid = random() < 0.2;
      if (!paid) allocated[currency] += amount;
      bountyRows.push({
        githubRepoId: id,
        issueNumber: n,
        currency,
        amount,
        status: paid ? "paid" : "open",
        recipient: paid ? "0x000000000000000000000000000000000000b0b0" : null,
        allocatedTx: `0x${(id * 100 + n).toString(16).padStart(64, "0")}`,
        paidTx: paid ? `0x${(id * 100 + n).toString(16).padStart(63, "0")}f` : null,
        allocatedAt: new Date(registeredAt + day),
        closedAt: paid ? new Date(registeredAt + 2 * day) : null,
        issueTitle: `Issue ${n} of ${name}`,
        issueUrl: `${htmlUrl}/issues/${n}`,
        updatedBlock: 1,
      });
      if (!paid) {
        const claimants = Math.floor(random() * 3);
        for (let c = 0; c < claimants; c++) claimRows.push({ githubRepoId: id, issueNumber: n, userId: userRows[(i * 7 + n * 3 + c) % userRows.length]!.id });
      }
    }
    if (random() < 0.85) poolRows.push({ githubRepoId: id, currency: "XDC", balance: BigInt(Math.floor(random() * 2000)) * unitOf("XDC"), allocated: allocated.XDC });
    if (random() < 0.3 || allocated.ROXN > 0n) poolRows.push({ githubRepoId: id, currency: "ROXN", balance: BigInt(Math.floor(random() * 10000)) * unitOf("ROXN"), allocated: allocated.ROXN });
    if (random() < 0.1 || allocated.USDC > 0n) poolRows.push({ githubRepoId: id, currency: "USDC", balance: BigInt(Math.floor(random() * 500)) * unitOf("USDC"), allocated: allocated.USDC });

    const info: RepoPublicInfo = {
      id,
      name,
      full_name: fullName,
      description,
      html_url: htmlUrl,
      private: false,
      stargazers_count: repoRows.at(-1)!.stars!,
      forks_count: repoRows.at(-1)!.forks!,
      created_at: iso(registeredAt - 400 * day),
      updated_at: iso(pushedAt),
      pushed_at: iso(pushedAt),
      owner: { login: owner, avatar_url: `https://avatars.githubusercontent.com/u/${8_000_000 + (i % OWNERS)}?v=4` },
      contributors_count: 1 + Math.floor(random() * 120),
    };
    const issues: IssueSummary[] = Array.from({ length: ISSUES_PER_REPOSITORY }, (_, k) => {
      const created = registeredAt - Math.floor(random() * 200 * day);
      return {
        id: id * 1000 + k + 1,
        number: k + 1,
        title: `${words(3)} ${words(4)}`.replace(/^./, (c) => c.toUpperCase()),
        state: "open",
        html_url: `${htmlUrl}/issues/${k + 1}`,
        body: `## What\n${words(30)}\n\n## Why\n${words(25)}\n\n## Acceptance\n- ${words(8)}\n- ${words(8)}`,
        labels: Array.from({ length: 1 + Math.floor(random() * 3) }, (_, l) => ({ id: l + 1, ...pick(LABELS) })),
        comments: Math.floor(random() * 12),
        created_at: iso(created),
        updated_at: iso(created + Math.floor(random() * 30 * day)),
        author: `contributor-${Math.floor(random() * USERS)}`,
      };
    });
    const fetchedAt = new Date(now);
    const expiresAt = new Date(now + day);
    cacheRows.push({ key: repoCacheKey(id), body: JSON.stringify(info), fetchedAt, expiresAt });
    cacheRows.push({ key: issuesCacheKey(id), body: JSON.stringify(issues), fetchedAt, expiresAt });
  }
  await insertChunked(db, repositories, repoRows);
  await insertChunked(db, repositoryPools, poolRows);
  await insertChunked(db, bounties, bountyRows);
  await insertChunked(db, bountyClaims, claimRows);
  await insertChunked(db, githubCache, cacheRows, 50);
  database.close();
  return fullNames;
}

async function insertChunked<T extends SQLiteTable>(db: Database, table: T, rows: T["$inferInsert"][], size = 200): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await db.insert(table).values(rows.slice(i, i + size) as never);
}

// Last, so every constant above is initialised before either mode runs.
if (process.argv.includes("--serve")) await serve();
else {
  const args = process.argv.slice(2);
  const at = args.indexOf("--against");
  const against = at >= 0 ? args.splice(at, 2)[1] : undefined;
  if (at >= 0 && !against) throw new Error("--against needs the directory of another checkout");
  await main(Number(args[0] ?? 5), Number(args[1] ?? 3), against);
}
