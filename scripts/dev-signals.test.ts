/**
 * Process hygiene (issue 15): `npm start` stopped by its PID, as a process
 * manager does it (SIGTERM or SIGINT to the top process only), stops every
 * process under it: the Bun server and anvil. And when the top process dies
 * without passing anything on (SIGKILL), the platform notices its parent is
 * gone and stops by itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../testing/temp-dirs.ts";
import { rmSync } from "node:fs";
import { answers, chainRpc, freeDevPorts, processesMentioning, processesOf, signInOverHttp, startNpmStart, type DevPorts, type DevRun } from "../testing/dev-process.ts";
import { eventually } from "../testing/stack.ts";
import { CHAIN_SAVE_INTERVAL_MS, previousCopyOf, unusableBecause } from "./lib/chain-state.ts";

// The first start builds the site if needed and deploys the contracts: allow for a slow machine.
const FIRST_START_MS = 180_000;

async function startNpmStartFresh(extraEnv: Record<string, string> = {}) {
  const dataDir = await makeTempDir("issuepool-signals-");
  const run = await startNpmStart(dataDir, await freeDevPorts(), FIRST_START_MS, extraEnv);
  const children = processesOf(dataDir, run.chainRpcUrl);
  try {
    expect(processesMentioning(`--port ${new URL(run.chainRpcUrl).port} `)).toHaveLength(1); // anvil, found by its port
    expect(children.length).toBeGreaterThan(0);
  } catch (err) {
    run.kill(); // the test's own clean-up never gets this run
    throw err;
  }
  return { npm: run.npm, run, dataDir, health: `${run.url}/api/health`, children, emulator: `${run.emulatorUrl}/`, chainRpcUrl: run.chainRpcUrl };
}

describe("stopping npm start by its PID", () => {
  for (const signal of ["SIGTERM", "SIGINT", "SIGKILL"] as const) {
    test(`${signal} to the top process stops the server, the emulator and anvil`, async () => {
      const run = await startNpmStartFresh();
      try {
        run.npm.kill(signal);
        await run.npm.exited;
        // A clean stop takes a moment (requests finish, the database closes); the orphan watch looks twice a second.
        await eventually(async () => (processesOf(run.dataDir, run.chainRpcUrl).length === 0 ? true : undefined), 30_000, "every child gone");
        expect(await answers(run.health)).toBe(false);
        expect(await answers(run.emulator)).toBe(false);
      } finally {
        run.npm.kill("SIGKILL");
        for (const pid of processesOf(run.dataDir, run.chainRpcUrl)) process.kill(pid, "SIGKILL");
      }
    }, 300_000);
  }
});

describe("a supervisor that started npm start in a process group of its own dies (a test runner killed from outside)", () => {
  test("STOP_WITH_PID names it: npm start, the server and anvil stop by themselves", async () => {
    // The supervisor: any process of ours that we can end. Nobody signals npm start's group after it is gone.
    const supervisor = Bun.spawn(["sleep", "600"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    let started: Awaited<ReturnType<typeof startNpmStartFresh>> | undefined;
    try {
      started = await startNpmStartFresh({ STOP_WITH_PID: String(supervisor.pid) });
      supervisor.kill("SIGKILL");
      await supervisor.exited;
      // The watch looks twice a second; a clean stop as on SIGTERM follows (requests end, the chain is saved).
      await started.run.gone(30_000);
      expect(await answers(started.health)).toBe(false);
      expect(await answers(started.emulator)).toBe(false);
    } finally {
      supervisor.kill("SIGKILL");
      started?.run.kill();
    }
  }, FIRST_START_MS + 60_000);
});

describe("signalling npm start's process group (a terminal's Ctrl-C, a supervisor)", () => {
  const cases: { name: string; signals: NodeJS.Signals[]; thenKill?: boolean }[] = [
    { name: "SIGINT once", signals: ["SIGINT"] },
    { name: "SIGINT twice", signals: ["SIGINT", "SIGINT"] },
    { name: "SIGTERM once", signals: ["SIGTERM"] },
    { name: "SIGTERM twice", signals: ["SIGTERM", "SIGTERM"] },
    { name: "SIGTERM, then SIGKILL after 0.1-2 s", signals: ["SIGTERM"], thenKill: true },
  ];
  let dataDir: string;
  let ports: DevPorts;
  let run: DevRun | undefined;
  const stateFile = () => join(dataDir, "chain", "anvil-state.json");

  beforeAll(async () => {
    dataDir = await makeTempDir("issuepool-group-signals-");
    ports = await freeDevPorts();
    run = await startNpmStart(dataDir, ports, FIRST_START_MS);
  }, FIRST_START_MS + 10_000);

  afterAll(() => run?.kill());

  test("the demo compute node is restarted when it dies, and the banner says where its log is", async () => {
    const log = join(dataDir, "demo-node", "agent.log");
    expect(readFileSync(run!.outputFile, "utf8")).toContain(`Demo node log     ${log}`);
    const agents = () => processesMentioning(join(dataDir, "demo-node")).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("node-agent"));
    const [first] = await eventually(async () => (agents().length === 1 ? agents() : undefined), 10_000, "the demo node");
    process.kill(first!, "SIGKILL");
    // Restarted after the first backoff step (1 s).
    await eventually(async () => agents().some((pid) => pid !== first), 15_000, "the demo node to be restarted");
  }, 30_000);

  for (const { name, signals, thenKill } of cases) {
    test(`${name} to the group: the chain's state file is complete, nothing confirmed is lost, the next start works`, async () => {
      const before = run!;
      // A transaction confirmed just before the signal (anvil's account 5, which the platform does not use).
      const accounts = await chainRpc<string[]>(before.chainRpcUrl, "eth_accounts");
      const hash = await chainRpc<string>(before.chainRpcUrl, "eth_sendTransaction", [{ from: accounts[5], to: accounts[6], value: "0x1" }]);
      const receipt = await eventually(() => chainRpc<{ blockNumber: string } | null>(before.chainRpcUrl, "eth_getTransactionReceipt", [hash]).then((r) => r ?? undefined), 10_000, "the receipt");

      for (const [i, signal] of signals.entries()) {
        if (i > 0) await Bun.sleep(Math.random() * 500); // a second Ctrl-C, a moment later
        before.signalGroup(signal);
      }
      if (thenKill) {
        await Bun.sleep(100 + Math.random() * 1_900);
        before.signalGroup("SIGKILL");
      }
      // A clean stop: requests end, the outbox stops, the demo node stops (10 s at most), the chain is saved, anvil stops (5 s at most).
      await before.gone(30_000);
      expect(await answers(`${before.url}/api/health`)).toBe(false);

      // The state file is complete (and only its owner may read it); so is the previous copy, when there is one.
      expect(unusableBecause(stateFile())).toBeUndefined();
      expect(statSync(stateFile()).mode & 0o777).toBe(0o600);
      const previous = previousCopyOf(stateFile());
      if (unusableBecause(previous) !== "missing") expect(unusableBecause(previous)).toBeUndefined();

      // The next start works, on the same chain, with the transaction confirmed before the signal.
      run = await startNpmStart(dataDir, ports, FIRST_START_MS);
      expect(readFileSync(run.outputFile, "utf8")).not.toContain("is lost");
      expect(await answers(`${run.url}/api/health`)).toBe(true);
      const kept = await chainRpc<{ blockNumber: string } | null>(run.chainRpcUrl, "eth_getTransactionReceipt", [hash]);
      // (With SIGKILL after the SIGTERM, the kill may come before the save the SIGTERM starts: then up to
      // CHAIN_SAVE_INTERVAL_MS of the chain is gone, which the platform's reconciliation repairs.)
      if (!thenKill) expect(kept?.blockNumber).toBe(receipt.blockNumber);
    }, FIRST_START_MS + 60_000);
  }

  test("a chain state lost for good: the start says so in one line, and re-creates the chain and the demo money, keeping users and sessions", async () => {
    const session = await signInOverHttp(run!, "alice");
    run!.signalGroup("SIGINT");
    await run!.gone(30_000);
    for (const copy of [stateFile(), previousCopyOf(stateFile())]) rmSync(copy, { force: true });

    // Before: the seed left alice's wallet (kept in the database) unfunded on the new chain, and the start failed with
    // "seed transaction seed:fund:5001:XDC ended failed: insufficient funds".
    run = await startNpmStart(dataDir, ports, FIRST_START_MS);
    const output = readFileSync(run.outputFile, "utf8");
    expect(output.match(/state in .* is lost/g)).toHaveLength(1);
    expect(await answers(`${run.url}/api/health`)).toBe(true);
    const who = (await (await fetch(`${run.url}/api/auth/session`, { headers: { Cookie: session.cookie } })).json()) as { authenticated: boolean; user?: { username: string } };
    expect(who).toMatchObject({ authenticated: true, user: { username: "alice" } });
    // The demo pools are funded again on the new chain (xdc-wallet-kit's XDC pool, through the contracts).
    const pool = (await (await fetch(`${run.url}/api/blockchain/pool-info/5001`)).json()) as { xdcPoolRewards: string };
    expect(Number(pool.xdcPoolRewards)).toBeGreaterThan(0);
    // The new chain is saved within a save interval (a few, on a loaded machine).
    await eventually(async () => unusableBecause(stateFile()) === undefined, 10 * CHAIN_SAVE_INTERVAL_MS, "the new chain saved");
  }, FIRST_START_MS + 60_000);
});
