/**
 * The command the Provider Hub shows starts an agent when pasted into a shell of a fresh clone after
 * `npm install`: only Node and npm on the PATH, no `bun` (issue 27: the hub showed `bun node-agent/index.ts …`
 * and the shell answered "bun: command not found"). The agent reaches the platform and prints a pairing code.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Server } from "bun";
import { startCommand } from "../site/lib/compute-api.ts";
import { createTestUser, signInAs } from "../testing/auth.ts";
import { createTestContext, makeTempDir, type TestContext } from "../testing/context.ts";
import { serveApp, walletOf } from "../testing/compute.ts";
import { eventually } from "../testing/stack.ts";

const ROOT = join(import.meta.dir, "..");
let t: TestContext;
let server: Server<unknown>;

beforeAll(async () => {
  t = await createTestContext({ fileDatabase: true });
  server = serveApp(t);
});
afterAll(async () => {
  await server.stop(true);
  t.close();
});

test("the hub's command, pasted into a shell without bun on the PATH, starts an agent that asks to be paired", async () => {
  const owner = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  const command = startCommand(`http://127.0.0.1:${server.port}`, await walletOf(t, owner));
  const nodeAndNpm = [...new Set([dirname(spawnSync("sh", ["-c", "command -v node"], { encoding: "utf8" }).stdout.trim()), dirname(spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim()), "/bin"])].join(":");
  expect(spawnSync("sh", ["-c", "command -v bun"], { env: { PATH: nodeAndNpm } }).status, "bun is not on the PATH").not.toBe(0);

  const dir = await makeTempDir("issuepool-start-command-");
  const logFile = join(dir, "agent.log");
  const out = openSync(logFile, "a");
  let agent: ChildProcess | undefined;
  try {
    // A process group of its own (shell, npm, npm's shell, the agent): the cleanup signals all of them.
    agent = spawn("sh", ["-c", `exec ${command} --state-dir ${join(dir, "state")} --log json --name pasted`], {
      cwd: ROOT,
      detached: true,
      env: { PATH: nodeAndNpm, HOME: dir },
      stdio: ["ignore", out, out],
    });
    const pairing = await eventually(
      async () =>
        readFileSync(logFile, "utf8")
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as { msg: string; code?: string })
          .find((line) => line.msg === "pairing code") ??
        (agent!.exitCode !== null ? Promise.reject(new Error(`the command exited (${agent!.exitCode}):\n${readFileSync(logFile, "utf8")}`)) : undefined),
      30_000,
      "the agent to print its pairing code",
    );
    expect(pairing.code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  } finally {
    closeSync(out);
    if (agent && agent.exitCode === null) {
      const exited = new Promise((resolve) => agent!.once("exit", resolve));
      process.kill(-agent.pid!, "SIGTERM");
      const timer = setTimeout(() => process.kill(-agent!.pid!, "SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    }
  }
}, 60_000);
