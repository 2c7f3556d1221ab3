/**
 * Shared pieces of the benchmarks: a bare Bun.serve baseline, closed-loop
 * load with autocannon in its own Node process (so the load generator does
 * not share the server's event loop), and the platform started as it runs
 * in production. Figures are ratios against the baseline measured in the
 * same run: these machines are shared and noisy.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";

export const ROOT = resolve(import.meta.dir, "..", "..");

export interface LoadResult {
  label: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export interface ChildServer {
  url: string;
  proc: Subprocess;
  stop(): Promise<void>;
}

/** Reads a child's stdout until `pattern` matches; returns the first group. */
async function waitForLine(proc: Subprocess<"ignore", "pipe", "inherit">, pattern: RegExp, timeoutMs = 120_000): Promise<string> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value);
    const match = pattern.exec(seen);
    if (match) {
      // keep draining so the child never blocks on a full pipe
      void (async () => {
        for (;;) if ((await reader.read()).done) break;
      })();
      return match[1]!;
    }
  }
  throw new Error(`child did not print ${pattern} in time; output:\n${seen.slice(-2000)}`);
}

async function waitForFileLine(path: string, pattern: RegExp, timeoutMs: number, proc: Subprocess): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = await Bun.file(path).text().catch(() => "");
    const match = pattern.exec(text);
    if (match) return match[1]!;
    if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode}); log:\n${text.slice(-2000)}`);
    await Bun.sleep(100);
  }
  throw new Error(`server did not start in time; see ${path}`);
}

export async function startBaseline(): Promise<ChildServer> {
  const proc = Bun.spawn(
    [process.execPath, "-e", "const s = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('hello') }); console.log('PORT=' + s.port);"],
    { stdout: "pipe", stderr: "inherit", stdin: "ignore" },
  );
  const port = await waitForLine(proc, /PORT=(\d+)/);
  return { url: `http://127.0.0.1:${port}`, proc, stop: async () => void (proc.kill(), await proc.exited) };
}

/**
 * A bare Bun.serve answering every request with the same `bytes` bytes: what
 * sending a body of that size costs by itself, to read an endpoint's ratio
 * against (the "hello" baseline's body is 5 bytes).
 */
export async function startBareBytes(bytes: number): Promise<ChildServer> {
  const proc = Bun.spawn(
    [process.execPath, "-e", `const body = new Uint8Array(${Math.max(0, Math.floor(bytes))}).map((_, i) => (i * 2654435761) >>> 24); const s = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(body, { headers: { 'Content-Type': 'application/octet-stream' } }) }); console.log('PORT=' + s.port);`],
    { stdout: "pipe", stderr: "inherit", stdin: "ignore" },
  );
  const port = await waitForLine(proc, /PORT=(\d+)/);
  return { url: `http://127.0.0.1:${port}`, proc, stop: async () => void (proc.kill(), await proc.exited) };
}

/**
 * The platform as `npm start` runs it, on a free port, with its own data
 * directory. Its log goes to a file, as in production (a pipe drained by
 * this process would steal CPU from the server being measured).
 */
export async function startPlatform(dataDir: string, extraEnv: Record<string, string> = {}, root = ROOT): Promise<ChildServer> {
  const logFile = join(dataDir, "server.log");
  const proc = Bun.spawn([process.execPath, join(root, "scripts", "dev.ts")], {
    cwd: root,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_FORMAT: "json", ...extraEnv },
    stdout: Bun.file(logFile),
    stderr: "inherit",
    stdin: "ignore",
  });
  const url = await waitForFileLine(logFile, /^(?=.*"msg":"listening").*?"url":"([^"]+)"/m, 300_000, proc);
  return {
    url,
    proc,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/**
 * Any server entry as its own process (e.g. a benchmark's `--serve` mode),
 * its log (JSON lines) written to `logFile` like startPlatform's, ready once
 * it logs "listening". Stopped with SIGTERM.
 */
export async function startServerProcess(command: string[], options: { env: Record<string, string>; logFile: string; timeoutMs?: number }): Promise<ChildServer> {
  const proc = Bun.spawn(command, {
    cwd: ROOT,
    env: options.env,
    stdout: Bun.file(options.logFile),
    stderr: "inherit",
    stdin: "ignore",
  });
  const url = await waitForFileLine(options.logFile, /^(?=.*"msg":"listening").*?"url":"([^"]+)"/m, options.timeoutMs ?? 60_000, proc);
  return {
    url,
    proc,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/**
 * The load generator: wrk from Debian when it is there (installed with apt
 * when we can, like Chromium for the tests), else autocannon from npm. wrk
 * is preferred: written in C, it leaves more of the two cores to the server,
 * so ratios reflect the server rather than the generator.
 */
let generator: "wrk" | "autocannon" | undefined;
export async function loadGenerator(): Promise<"wrk" | "autocannon"> {
  if (generator) return generator;
  if (!existsSync("/usr/bin/wrk") && process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")) {
    console.log("Installing wrk with apt-get (Debian package)...");
    await Bun.spawn(["apt-get", "install", "-y", "-qq", "wrk"], { stdout: "ignore", stderr: "ignore" }).exited;
  }
  generator = existsSync("/usr/bin/wrk") ? "wrk" : "autocannon";
  return generator;
}

/**
 * Closed-loop load: `connections` clients, each sending the next request when
 * the last one is answered. Requests accept gzip, as every browser does.
 */
export async function load(label: string, url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const connections = String(options.connections ?? 32);
  const seconds = String(options.seconds ?? 5);
  if (options.paths && options.paths.length === 0) throw new Error("load: `paths` is empty");
  if ((await loadGenerator()) === "wrk") {
    const script = options.paths ? ["-s", wrkRotationScript(options.paths, options.uniqueQuery)] : [];
    const proc = Bun.spawn(["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--latency", ...script, "-H", "Accept-Encoding: gzip", url], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]).finally(() => {
      if (script.length) rmSync(script[1]!, { force: true });
    });
    if (code !== 0) throw new Error(`wrk failed for ${url}: ${await new Response(proc.stderr).text()}`);
    const ms = (label: string) => {
      const m = new RegExp(`^\\s+${label}%\\s+([\\d.]+)(us|ms|s)`, "m").exec(out);
      if (!m) return NaN;
      const v = Number(m[1]);
      return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
    };
    const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
    return {
      label,
      requestsPerSec: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
      p50Ms: ms("50"),
      p99Ms: ms("99"),
      errors: errors ? errors.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
      non2xx: Number(non2xx?.[1] ?? 0),
    };
  }
  const cli = join(ROOT, "node_modules", "autocannon", "autocannon.js");
  const proc = options.paths
    ? Bun.spawn(["node", "-e", AUTOCANNON_ROTATION, join(ROOT, "node_modules", "autocannon"), JSON.stringify({ url, connections: Number(connections), duration: Number(seconds), paths: options.paths, uniqueQuery: Boolean(options.uniqueQuery) })], {
        stdout: "pipe",
        stderr: "pipe",
      })
    : Bun.spawn(["node", cli, "-j", "-c", connections, "-d", seconds, "-H", "accept-encoding=gzip", url], {
        stdout: "pipe",
        stderr: "pipe",
      });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  if (code !== 0) throw new Error(`autocannon failed for ${url}: ${await new Response(proc.stderr).text()}`);
  const r = JSON.parse(out);
  return {
    label,
    requestsPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

export interface LoadOptions {
  connections?: number;
  seconds?: number;
  /** Request these paths of `url`'s server in turn instead of `url` itself. */
  paths?: string[];
  /** Add a query string unique to each request to the paths (so no cache can answer). */
  uniqueQuery?: boolean;
}

/** A wrk script (a temp file, removed after the run) that cycles through `paths`, optionally making every request's URL unique. */
function wrkRotationScript(paths: string[], uniqueQuery = false): string {
  const file = join(tmpdir(), `issuepool-wrk-${process.pid}-${crypto.randomUUID()}.lua`);
  const list = paths.map((p) => JSON.stringify(p)).join(",\n");
  const unique = uniqueQuery ? `local sep = string.find(p, "?", 1, true) and "&" or "?"\n  n = n + 1\n  p = p .. sep .. "u=" .. n` : "";
  writeFileSync(
    file,
    `local paths = {\n${list}\n}\nlocal i = 0\nlocal n = 0\nrequest = function()\n  i = i % #paths + 1\n  local p = paths[i]\n  ${unique}\n  return wrk.format("GET", p)\nend\n`,
  );
  return file;
}

/** autocannon's API (its CLI takes one URL): the same rotation, the same JSON result on stdout. */
const AUTOCANNON_ROTATION = `
const autocannon = require(process.argv[1]);
const o = JSON.parse(process.argv[2]);
let i = 0, n = 0;
const next = () => {
  const p = o.paths[i++ % o.paths.length];
  return o.uniqueQuery ? p + (p.includes("?") ? "&" : "?") + "u=" + ++n : p;
};
autocannon({ url: o.url, connections: o.connections, duration: o.duration, headers: { "accept-encoding": "gzip" },
  requests: [{ setupRequest: (req) => ({ ...req, path: next() }) }] }, (err, r) => {
  if (err) { console.error(err); process.exit(1); }
  process.stdout.write(JSON.stringify(r));
});`;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function table(rows: (string | number)[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (r: (string | number)[]) => "| " + r.map((c, i) => String(c).padEnd(widths[i]!)).join(" | ") + " |";
  return [line(rows[0]!), "|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|", ...rows.slice(1).map(line)].join("\n");
}

/**
 * This tree's server against another checkout's (a `--against <dir>` run),
 * target by target: in each round both are measured back to back, the order
 * alternating, and the change is taken within the round; the median round
 * is reported, with each server process's CPU time per request. Two runs
 * minutes apart on a shared machine differ by more than the few per cent
 * such a comparison is for; rounds side by side do not.
 */
export async function compareServers(
  mine: ChildServer,
  theirs: ChildServer,
  against: string,
  targets: { label: string; paths?: string[]; url?: string }[],
  seconds: number,
  rounds: number,
  options: { beforeRun?: (origin: string, paths: string[]) => Promise<unknown> } = {},
): Promise<void> {
  const pct = (v: number) => `${v >= 0 ? "+" : ""}${(v * 100).toFixed(1)} %`;
  const mid = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const rows: (string | number)[][] = [["endpoint", "req/s this / other", "change per round", "median", "server CPU µs per request this / other", "median change"]];
  for (const t of targets) {
    const paths = t.paths ?? [new URL(t.url!).pathname];
    await options.beforeRun?.(theirs.url, paths);
    await load("warm", theirs.url, { seconds: 2, paths });
    const runs = new Map<ChildServer, { rate: number; cpu: number }[]>([
      [mine, []],
      [theirs, []],
    ]);
    for (let round = 0; round < rounds; round++) {
      for (const server of round % 2 === 0 ? [mine, theirs] : [theirs, mine]) {
        await options.beforeRun?.(server.url, paths);
        const cpuBefore = cpuMicros(server);
        const run = await load(t.label, server.url, { seconds, paths });
        const cpu = cpuMicros(server) - cpuBefore;
        if (run.errors + run.non2xx > 0) throw new Error(`${t.label} on ${server.url}: ${run.errors + run.non2xx} errors`);
        runs.get(server)!.push({ rate: run.requestsPerSec, cpu: cpu / (run.requestsPerSec * seconds) });
      }
    }
    const a = runs.get(mine)!;
    const b = runs.get(theirs)!;
    const rateChanges = a.map((r, i) => r.rate / b[i]!.rate - 1);
    const cpuChanges = a.map((r, i) => r.cpu / b[i]!.cpu - 1);
    rows.push([
      t.label,
      `${Math.round(mid(a.map((r) => r.rate)))} / ${Math.round(mid(b.map((r) => r.rate)))}`,
      rateChanges.map(pct).join(" "),
      pct(mid(rateChanges)),
      `${mid(a.map((r) => r.cpu)).toFixed(1)} / ${mid(b.map((r) => r.cpu)).toFixed(1)}`,
      pct(mid(cpuChanges)),
    ]);
  }
  console.log(`\nThis tree against ${against}, ${rounds} rounds of ${seconds} s per server and endpoint (32 connections, ${await loadGenerator()}), on ${navigator.hardwareConcurrency} cores:\n`);
  console.log(table(rows));
  console.log("Server CPU: user + system time of the server process over the run (/proc), per request answered; less sensitive than req/s to what else runs on the machine.");
}

/** CPU time (user + system) a child process has used so far, in microseconds (Linux /proc; clock ticks of 10 ms). */
function cpuMicros(server: ChildServer): number {
  const stat = readFileSync(`/proc/${server.proc.pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of stat (utime, stime), counted after the command name: indexes 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
