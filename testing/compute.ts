/**
 * Helpers for compute network tests: pairing a node through the real
 * routes, an agent's calls with its token, the app on a real HTTP port (for
 * agent processes), and agent processes themselves.
 */
import { closeSync, openSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Server, Subprocess } from "bun";
import { call, type TestSession } from "./auth.ts";
import type { TestContext } from "./context.ts";
import { eventually } from "./stack.ts";

const ROOT = resolve(import.meta.dir, "..");
export const AGENT_ENTRY = join(ROOT, "node-agent", "index.ts");

/** A request as the node agent sends it: JSON, and the node token when given. */
export async function agentCall(t: TestContext, path: string, options: { method?: string; token?: string; body?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  return t.app.request(path, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
}

/** Pairs a node for `owner` through the routes (agent asks, owner approves, agent redeems); returns its id and token. */
export async function pairNode(t: TestContext, owner: TestSession, name = "test node"): Promise<{ nodeId: string; token: string }> {
  const started = await agentCall(t, "/api/node-agent/pairings", { body: { walletAddress: await walletOf(t, owner), name, backend: "demo" }, headers: { "X-Forwarded-For": owner.ip } });
  if (started.status !== 201) throw new Error(`pairing: ${started.status} ${await started.text()}`);
  const { deviceSecret, userCode } = (await started.json()) as { deviceSecret: string; userCode: string };
  const approved = await call(t, "/api/node/pairings/approve", { as: owner, body: { code: userCode } });
  if (approved.status !== 200) throw new Error(`approving: ${approved.status} ${await approved.text()}`);
  const redeemed = await agentCall(t, "/api/node-agent/pairings/redeem", { body: { deviceSecret }, headers: { "X-Forwarded-For": owner.ip } });
  const body = (await redeemed.json()) as { status: string; nodeId: string; nodeToken: string };
  if (body.status !== "paired") throw new Error(`redeeming: ${JSON.stringify(body)}`);
  return { nodeId: body.nodeId, token: body.nodeToken };
}

export async function walletOf(t: TestContext, owner: TestSession): Promise<string> {
  const res = await call(t, "/api/auth/user", { as: owner });
  const user = (await res.json()) as { xdcWalletAddress: string | null };
  if (!user.xdcWalletAddress) throw new Error("the user has no wallet (create them with a role)");
  return user.xdcWalletAddress;
}

/** The test app on a real port of 127.0.0.1, for agents in other processes. */
export function serveApp(t: TestContext, port = 0): Server<unknown> {
  return Bun.serve({ hostname: "127.0.0.1", port, fetch: (request, server) => t.app.fetch(request, server), idleTimeout: 30 });
}

export interface AgentProcess {
  proc: Subprocess;
  /** Every JSON log line so far. */
  lines(): Promise<Record<string, unknown>[]>;
  /** The first log line with this `msg` (waits for it). */
  waitFor(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  kill(): Promise<void>;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `bun node-agent/index.ts` with JSON logs into `logFile`. */
export function spawnAgent(args: { server: string; wallet: string; stateDir: string; logFile: string; extra?: string[] }): AgentProcess {
  const fd = openSync(args.logFile, "a");
  const proc = Bun.spawn(
    [process.execPath, AGENT_ENTRY, "--server", args.server, "--wallet", args.wallet, "--state-dir", args.stateDir, "--log", "json", "--name", "test agent", ...(args.extra ?? [])],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" }, stdin: "ignore", stdout: fd, stderr: fd },
  );
  closeSync(fd);
  const lines = async () =>
    (await Bun.file(args.logFile).text().catch(() => ""))
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const gone = () => proc.exitCode !== null || proc.signalCode !== null;
  return {
    proc,
    lines,
    waitFor: (msg, timeoutMs = 20_000) =>
      eventually(async () => (await lines()).find((l) => l.msg === msg) ?? (gone() ? Promise.reject(new Error(`the agent exited (${proc.exitCode ?? proc.signalCode}) before "${msg}":\n${await Bun.file(args.logFile).text()}`)) : undefined), timeoutMs, `the agent to log "${msg}"`),
    async kill() {
      if (!gone()) proc.kill("SIGKILL");
      await proc.exited;
    },
    async stop() {
      if (!gone()) proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      await proc.exited;
      clearTimeout(timer);
      return proc.exitCode;
    },
  };
}
