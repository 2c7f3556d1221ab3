/**
 * The platform as a separate OS process (testing/fault-server.ts) and
 * the world around it, for the crash test (api/chain/crash.test.ts) and the
 * chain benchmark (scripts/bench/chain.ts): a SIGKILL there is a real one.
 */
import { ResponseBreaksApiDocument } from "../api/openapi/conformance.ts";
import { answersThatBrokeTheDocument } from "../api/openapi/broken-answers.ts";
import { closeSync, openSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import type { Address } from "viem";
import { repositories, wallets } from "../db/schema/index.ts";
import { eq } from "drizzle-orm";
import type { GitHubEmulator } from "../scripts/github-emulator/index.ts";
import { sharedTestSecrets } from "../scripts/lib/dev-secrets.ts";
import { call, type TestSession } from "./auth.ts";
import { startTestChain, type TestChain } from "./chain.ts";
import { createTestContext, makeTempDir, NO_EXTERNALS, type TestContext } from "./context.ts";
import { signUpThroughGitHub, startEmulatorFor } from "./stack.ts";

const ROOT = resolve(import.meta.dir, "..");
const ENTRY = join(ROOT, "testing", "fault-server.ts");

export interface ServerProcess {
  url: string;
  pid: number;
  proc: Subprocess;
  logFile: string;
  /** SIGKILL: no shutdown hook runs, nothing is flushed; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful), then SIGKILL if it lingers. */
  stop(): Promise<void>;
}

/**
 * Spawns `bun testing/fault-server.ts` with exactly `env` (plus PATH and
 * HOME) and waits for its "listening" log line. Its log (JSON lines) is
 * appended to `logFile`, so a restarted server keeps one log.
 */
// The bound on a start (the wait itself ends at the "listening" line): a start is ~1 s on an idle machine, but it took
// over 30 s beside a CI run with both cores busy (two-instances.test.ts starts two servers and restarts one).
export async function spawnServer(env: Record<string, string>, logFile: string, timeoutMs = 120_000): Promise<ServerProcess> {
  const started = Date.now();
  const offset = await Bun.file(logFile)
    .text()
    .then((t) => t.length)
    .catch(() => 0);
  const fd = openSync(logFile, "a");
  const proc = Bun.spawn([process.execPath, ...(process.env.SERVER_BUN_ARGS ? process.env.SERVER_BUN_ARGS.split(" ") : []), ENTRY], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
    stdin: "ignore",
    stdout: fd,
    stderr: fd,
  });
  closeSync(fd);
  const killed = () => proc.exitCode !== null || proc.signalCode !== null;
  let url: string | undefined;
  while (!url) {
    const text = (await Bun.file(logFile).text()).slice(offset);
    url = /^(?=.*"msg":"listening").*?"url":"([^"]+)"/m.exec(text)?.[1];
    if (url) break;
    if (killed() || Date.now() - started > timeoutMs) {
      proc.kill("SIGKILL");
      await proc.exited;
      throw new Error(`the server did not start (exit ${proc.exitCode}); its log:\n${text.slice(-3000)}`);
    }
    await Bun.sleep(25);
  }
  return {
    url,
    pid: proc.pid,
    proc,
    logFile,
    async kill() {
      if (!killed()) proc.kill("SIGKILL");
      await proc.exited;
    },
    async stop() {
      if (killed()) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await proc.exited;
      clearTimeout(timer);
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolvePort(port));
    });
  });
}

/**
 * Everything around a server process: anvil with the contracts, the GitHub
 * emulator, one configuration (secrets, database file, chain, a fixed port,
 * so a restarted server answers at the same URL), and an in-process app on
 * the same database file for setting the world up through the real code.
 * Once a server process runs, the in-process app must not drive the outbox
 * (it would do the server's work): read the database, do not advance it.
 */
export interface ProcessStack {
  chain: TestChain;
  github: GitHubEmulator;
  /** The in-process app on the same database (setup and reads). */
  t: TestContext;
  /** The server process's whole environment. */
  env: Record<string, string>;
  /** Where the server will listen, and the Origin its anti-forgery check expects. */
  origin: string;
  logFile: string;
  /**
   * Starts a server process (again) on this configuration; `overrides` change its environment (another
   * PORT for a second instance on the same database, behind a proxy that answers at `origin`).
   */
  spawn(overrides?: Record<string, string>): Promise<ServerProcess>;
  /** Signs in through the emulator's OAuth and registers with `role` (creating the custodial wallet). */
  signUp(login: string, role: "poolmanager" | "contributor"): Promise<TestSession & { wallet: Address }>;
  /** Registers a fixture repository with the platform (as the app installation would). */
  registerRepository(fullName: string, githubRepoId: number): Promise<void>;
  /** A POST to the server process as the site sends it (session cookie, anti-forgery token, Origin, Idempotency-Key). */
  post(server: Pick<ServerProcess, "url">, session: TestSession, path: string, body: unknown, idempotencyKey?: string): Promise<Response>;
  /** Kills the server processes, stops the emulator and anvil, and removes the data directory (database, server log). */
  stop(): Promise<void>;
}

export async function startProcessStack(
  options: {
    logLevel?: string;
    chain?: Parameters<typeof startTestChain>[0];
    /** Check every answer against the API document (tests: the default); benchmarks measure without. */
    checkAnswers?: boolean;
  } = {},
): Promise<ProcessStack> {
  const chain = await startTestChain(options.chain);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const secrets = await sharedTestSecrets();
  const github = await startEmulatorFor(origin, secrets);
  const dir = await makeTempDir("issuepool-process-");
  const { GITHUB_APP_PUBLIC_KEY: _public, ...appSecrets } = secrets;
  const env: Record<string, string> = {
    ...NO_EXTERNALS,
    ...appSecrets,
    ...chain.env,
    NODE_ENV: "test",
    LOG_LEVEL: options.logLevel ?? "info",
    LOG_FORMAT: "json",
    TRUST_PROXY: "true",
    HOST: "127.0.0.1",
    PORT: String(port),
    PUBLIC_URL: origin,
    DATA_DIR: dir,
    DATABASE_URL: `file:${dir}/app.db`,
    GITHUB_URL: github.webUrl,
    GITHUB_API_URL: github.apiUrl,
    ...(options.checkAnswers === false ? {} : { CHECK_API_ANSWERS: "1" }),
  };
  const t = await createTestContext({ env });
  const logFile = join(dir, "server.log");
  const servers: ServerProcess[] = [];

  return {
    chain,
    github,
    t,
    env,
    origin,
    logFile,
    async spawn(overrides = {}) {
      const server = await spawnServer({ ...env, ...overrides }, logFile);
      servers.push(server);
      return server;
    },
    signUp: (login, role) => signUpThroughGitHub(t, login, role),
    async registerRepository(fullName, githubRepoId) {
      const [owner, name] = fullName.split("/") as [string, string];
      await t.ctx.database.db
        .insert(repositories)
        .values({ githubRepoId, fullName, fullNameKey: fullName.toLowerCase(), owner, name, htmlUrl: `${github.webUrl}/${fullName}` })
        .onConflictDoNothing();
    },
    post(server, session, path, body, idempotencyKey) {
      const headers: Record<string, string> = {
        Accept: "application/json",
        "Content-Type": "application/json",
        Cookie: session.cookie,
        Origin: origin,
        "X-CSRF-Token": session.csrfToken,
        "X-Forwarded-For": session.ip,
      };
      if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
      return fetch(`${server.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    },
    async stop() {
      for (const server of servers) await server.kill();
      // The server processes checked their answers against the API document (fault-server.ts): a mismatch fails the test.
      const broken = await answersThatBrokeTheDocument(logFile);
      t.close();
      await github.stop();
      await chain.stop();
      await rm(dir, { recursive: true, force: true });
      if (broken.length) throw new ResponseBreaksApiDocument(`A server process answered against the API document:\n${broken.slice(0, 5).join("\n")}`);
    },
  };
}

