/**
 * Process hygiene (issue 15): `npm start` stopped by its PID, as a process
 * manager does it (SIGTERM or SIGINT to the top process only), stops every
 * process under it: the Bun server and anvil. And when the top process dies
 * without passing anything on (SIGKILL), the platform notices its parent is
 * gone and stops by itself.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { makeTempDir } from "../testing/temp-dirs.ts";
import { freePort } from "../testing/process-stack.ts";
import { eventually } from "../testing/stack.ts";

const ROOT = resolve(import.meta.dir, "..");

/** Every live process whose command line mentions `needle` (anvil's state file sits in the run's data dir). */
function processesMentioning(needle: string): number[] {
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

const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
    (res) => res.ok,
    () => false,
  );

async function startNpmStart() {
  const dataDir = await makeTempDir("issuepool-signals-");
  const port = await freePort();
  const githubPort = await freePort();
  const npm = Bun.spawn(["npm", "start"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), DEV_GITHUB_PORT: String(githubPort), DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "ignore",
  });
  const health = `http://127.0.0.1:${port}/api/health`;
  // The first start builds the site if needed and deploys the contracts: allow for a slow machine.
  await eventually(async () => ((await answers(health)) ? true : undefined), 180_000, "npm start to answer");
  const children = processesMentioning(dataDir);
  expect(children.length).toBeGreaterThan(0); // anvil, whose state file is in the data dir
  return { npm, dataDir, health, children, emulator: `http://127.0.0.1:${githubPort}/` };
}

describe("stopping npm start by its PID", () => {
  for (const signal of ["SIGTERM", "SIGINT", "SIGKILL"] as const) {
    test(`${signal} to the top process stops the server, the emulator and anvil`, async () => {
      const run = await startNpmStart();
      try {
        run.npm.kill(signal);
        await run.npm.exited;
        // A clean stop takes a moment (requests finish, the database closes); the orphan watch looks twice a second.
        await eventually(async () => (processesMentioning(run.dataDir).length === 0 ? true : undefined), 30_000, "every child gone");
        expect(await answers(run.health)).toBe(false);
        expect(await answers(run.emulator)).toBe(false);
      } finally {
        run.npm.kill("SIGKILL");
        for (const pid of processesMentioning(run.dataDir)) process.kill(pid, "SIGKILL");
      }
    }, 300_000);
  }
});
