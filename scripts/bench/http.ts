/**
 * HTTP benchmark (not a test): `bun scripts/bench/http.ts [seconds]`, or
 * `bun scripts/bench/http.ts [seconds] [rounds] --against <dir>` to measure
 * this tree's platform against another checkout's side by side
 * (lib.ts, compareServers).
 *
 * Closed-loop load with 32 connections against a bare Bun.serve "hello"
 * (the baseline) and against the platform, measured in the same run:
 * /api/health, the prerendered FAQ, and a repeated /repos (page cache), each
 * as a ratio to the baseline; plus the cold render time of /repos (unique
 * query strings, so every request renders). Targets (issue 2): health >= 0.6,
 * FAQ and repeated /repos >= 0.3, cold /repos p50 < 10 ms.
 */
import { buildSite } from "../build-site.ts";
import { makeTempDir } from "../../testing/context.ts";
import { join } from "node:path";
import { compareServers, load, loadGenerator, percentile, startBaseline, startPlatform, table, type LoadResult } from "./lib.ts";

const args = process.argv.slice(2);
const at = args.indexOf("--against");
const against = at >= 0 ? args.splice(at, 2)[1] : undefined;
if (at >= 0 && !against) throw new Error("--against needs the directory of another checkout");
const seconds = Number(args[0] ?? 5);
await buildSite();
const dataDir = await makeTempDir("issuepool-bench-");
const platform = await startPlatform(dataDir);

if (against) {
  try {
    await compareWith(against);
  } finally {
    await platform.stop();
  }
  process.exit(0);
}

/** This tree's platform against another checkout's (its site built there first), side by side in every round. */
async function compareWith(dir: string): Promise<void> {
  await Bun.spawn([process.execPath, join(dir, "scripts", "build-site.ts")], { cwd: dir, stdout: "ignore", stderr: "inherit" }).exited;
  const other = await startPlatform(await makeTempDir("issuepool-bench-against-"), {}, dir);
  try {
    const targets = [
      { label: "GET /api/health", paths: ["/api/health"] },
      { label: "GET /faq (prerendered)", paths: ["/faq"] },
      { label: "GET /repos (repeated, cached)", paths: ["/repos"] },
    ];
    for (const server of [platform, other]) await load("warm", `${server.url}/repos`, { seconds: 1 });
    await compareServers(platform, other, dir, targets, seconds, Number(args[1] ?? 8));
  } finally {
    await other.stop();
  }
}

const baseline = await startBaseline();
try {
  // warm up both (JIT, page cache)
  await load("warm", `${baseline.url}/`, { seconds: 1 });
  await load("warm", `${platform.url}/repos`, { seconds: 1 });

  const results: LoadResult[] = [];
  results.push(await load("bare Bun.serve (baseline)", `${baseline.url}/`, { seconds }));
  results.push(await load("GET /api/health", `${platform.url}/api/health`, { seconds }));
  results.push(await load("GET /faq (prerendered)", `${platform.url}/faq`, { seconds }));
  results.push(await load("GET /repos (repeated, cached)", `${platform.url}/repos`, { seconds }));
  const base = results[0]!.requestsPerSec;

  // Cold renders: one client, unique URLs, so every request misses the cache.
  const cold: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    const res = await fetch(`${platform.url}/repos?cold=${i}-${Date.now()}`);
    await res.arrayBuffer();
    cold.push(performance.now() - started);
  }
  cold.sort((a, b) => a - b);

  const rows: (string | number)[][] = [["endpoint", "req/s", "ratio to bare", "p50 ms", "p99 ms", "errors"]];
  for (const r of results) {
    rows.push([r.label, Math.round(r.requestsPerSec), (r.requestsPerSec / base).toFixed(2), r.p50Ms, r.p99Ms, r.errors + r.non2xx]);
  }
  console.log(`\nClosed loop (${await loadGenerator()}), 32 connections, ${seconds} s each, on ${navigator.hardwareConcurrency} cores:\n`);
  console.log(table(rows));
  console.log(
    `\nCold /repos render (200 sequential requests, unique query strings): p50 ${percentile(cold, 50).toFixed(2)} ms, p99 ${percentile(cold, 99).toFixed(2)} ms`,
  );
} finally {
  await platform.stop();
  await baseline.stop();
}
