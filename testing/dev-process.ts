/**
 * `npm start` as an operator runs it, for the signal and crash tests of the
 * embedded default (scripts/dev-signals.test.ts, scripts/dev-faults.test.ts):
 * a real `npm start` in its own process group, so a test can signal the
 * group as a terminal's Ctrl-C or a supervisor does (npm, bun and whatever
 * else is in the group get it at once), and read what it left in DATA_DIR.
 */
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "./process-stack.ts";
import { eventually } from "./stack.ts";

const ROOT = resolve(import.meta.dir, "..");
const BANNER_DONE = "Press Ctrl-C to stop.";

/** Every live process whose command line mentions `needle` (anvil's state file and the demo node's state sit in the run's data dir). */
export function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (/^\d+ \(.*\) Z /.test(stat)) continue; // a zombie is gone, only not yet reaped
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").includes(needle)) found.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/**
 * The processes of a run: those whose command line names its data directory (the demo node; anvil once it loads a
 * saved state) and anvil by its port (a first start's anvil names no file).
 */
export function processesOf(dataDir: string, chainRpcUrl: string): number[] {
  const port = new URL(chainRpcUrl).port;
  return [...new Set([...processesMentioning(dataDir), ...processesMentioning(`--port ${port} `)])];
}

export const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
    (res) => res.ok,
    () => false,
  );

export interface DevRun {
  npm: Subprocess;
  /** The process group: npm's pid. */
  group: number;
  url: string;
  /** The Origin the platform expects (PUBLIC_URL). */
  origin: string;
  emulatorUrl: string;
  chainRpcUrl: string;
  outputFile: string;
  /** How long the start took, to the banner. */
  startMs: number;
  /** Signals the whole group (negative pid), as a terminal or a supervisor does. */
  signalGroup(signal: NodeJS.Signals): void;
  /** Waits until npm has exited and no process of this data directory is left (anvil, the demo node). */
  gone(timeoutMs: number): Promise<void>;
  /** SIGKILL to the group and to anything of the data directory left over (a test's `finally`). */
  kill(): void;
}

export interface DevPorts {
  port: number;
  githubPort: number;
}

export const freeDevPorts = async (): Promise<DevPorts> => ({ port: await freePort(), githubPort: await freePort() });

/**
 * `npm start` in its own process group, on `dataDir` and `ports` (the same ports across restarts, as an operator's
 * would be: the emulator's links in the database stay valid). Resolves once the banner is printed (seeded, demo node up).
 */
export async function startNpmStart(dataDir: string, ports: DevPorts, timeoutMs: number, extraEnv: Record<string, string> = {}): Promise<DevRun> {
  const started = Date.now();
  // In the data directory, so it goes with it (npm start writes nothing there under this name).
  const outputFile = join(dataDir, `npm-start-${started}.log`);
  const fd = openSync(outputFile, "a");
  const npm = Bun.spawn(["npm", "start"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(ports.port), DEV_GITHUB_PORT: String(ports.githubPort), DATA_DIR: dataDir, LOG_LEVEL: "warn", STOP_WITH_PID: String(process.pid), ...extraEnv },
    stdin: "ignore",
    stdout: fd,
    stderr: fd,
    detached: true,
  });
  closeSync(fd);
  const output = () => readFileSync(outputFile, "utf8");
  const run: DevRun = {
    npm,
    group: npm.pid,
    url: `http://127.0.0.1:${ports.port}`,
    origin: `http://localhost:${ports.port}`,
    emulatorUrl: `http://127.0.0.1:${ports.githubPort}`,
    chainRpcUrl: "",
    outputFile,
    startMs: 0,
    signalGroup(signal) {
      try {
        process.kill(-npm.pid, signal);
      } catch {
        // the group is gone already
      }
    },
    async gone(timeout) {
      await eventually(async () => (npm.exitCode !== null || npm.signalCode !== null) && processesOf(dataDir, run.chainRpcUrl).length === 0, timeout, "npm start, anvil and every process of its data directory gone");
    },
    kill() {
      run.signalGroup("SIGKILL");
      for (const pid of run.chainRpcUrl ? processesOf(dataDir, run.chainRpcUrl) : processesMentioning(dataDir)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
    },
  };
  try {
    await eventually(
      async () => {
        const text = output();
        if (text.includes(BANNER_DONE)) return true;
        if (npm.exitCode !== null) throw new Error(`npm start exited with code ${npm.exitCode}:\n${text.slice(-3000)}`);
        return undefined;
      },
      timeoutMs,
      "npm start to print its banner",
    );
  } catch (err) {
    run.kill();
    throw new Error(`${(err as Error).message}\n${output().slice(-3000)}`);
  }
  run.chainRpcUrl = /Local chain\s+(http:\/\/\S+)/.exec(output())![1]!;
  run.startMs = Date.now() - started;
  return run;
}

export interface BrowserSession {
  cookie: string;
  csrfToken: string;
}

/** Signs in as `login` through the emulator's OAuth, over HTTP, as a browser does. */
export async function signInOverHttp(run: DevRun, login: string): Promise<BrowserSession> {
  const start = await fetch(`${run.url}/api/auth/github?returnTo=/repos`, { redirect: "manual" });
  if (start.status !== 302) throw new Error(`sign-in did not start: ${start.status}`);
  const stateCookie = start.headers.getSetCookie().find((c) => c.startsWith("ip_oauth_state="))!.split(";")[0]!;
  const authorize = new URL(start.headers.get("location")!);
  const form = new URLSearchParams(authorize.searchParams);
  form.set("login", login);
  const granted = await fetch(`${authorize.origin}${authorize.pathname}`, { method: "POST", body: form, redirect: "manual" });
  const callback = new URL(granted.headers.get("location")!);
  const done = await fetch(`${run.url}${callback.pathname}${callback.search}`, { headers: { Cookie: stateCookie }, redirect: "manual" });
  const cookie = done.headers.getSetCookie().find((c) => c.startsWith("ip_session="))?.split(";")[0];
  if (!cookie) throw new Error(`sign-in refused: ${done.status} ${done.headers.get("location")}`);
  const { csrfToken } = (await (await fetch(`${run.url}/api/auth/csrf-token`, { headers: { Cookie: cookie } })).json()) as { csrfToken: string };
  return { cookie, csrfToken };
}

/** A POST as the site sends it. */
export function postAs(run: DevRun, session: BrowserSession, path: string, body: unknown, idempotencyKey: string): Promise<Response> {
  return fetch(`${run.url}${path}`, {
    method: "POST",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/json",
      Cookie: session.cookie,
      Origin: run.origin,
      "X-CSRF-Token": session.csrfToken,
      "Idempotency-Key": idempotencyKey,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
}

/** Raw JSON-RPC to the chain. */
export async function chainRpc<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
