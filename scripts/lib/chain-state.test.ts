/**
 * The local chain's state on disk (issue 24): written atomically with the
 * previous copy kept, a full disk leaves both copies as they were, a copy
 * that does not parse is passed over at start, and anvil dies with the
 * process that started it even though it runs in its own process group.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../../testing/temp-dirs.ts";
import { eventually } from "../../testing/stack.ts";
import { chooseState, previousCopyOf, unusableBecause, writeStateAtomically } from "./chain-state.ts";
import { startAnvil, type Anvil } from "./anvil.ts";

const STATE = (n: number) => new TextEncoder().encode(JSON.stringify({ block: { number: n }, accounts: {} }));
const blockNumber = async (anvil: Anvil) =>
  Number(
    ((await (await fetch(anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }) })).json()) as { result: string }).result,
  );
const mine = (anvil: Anvil, blocks: number) =>
  fetch(anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_mine", params: [`0x${blocks.toString(16)}`] }) });
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

const started: Anvil[] = [];
afterAll(async () => {
  for (const anvil of started) await anvil.stop();
});

describe("writing the state", () => {
  test("atomically, mode 0600, keeping the copy it replaces", async () => {
    const file = join(await makeTempDir("issuepool-chain-state-"), "anvil-state.json");
    writeStateAtomically(file, STATE(1));
    writeStateAtomically(file, STATE(2));
    expect(JSON.parse(readFileSync(file, "utf8")).block.number).toBe(2);
    expect(JSON.parse(readFileSync(previousCopyOf(file), "utf8")).block.number).toBe(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });

  test("a full disk fails the save and leaves the saved copy and the previous one as they were", async () => {
    const file = join(await makeTempDir("issuepool-chain-state-"), "anvil-state.json");
    writeStateAtomically(file, STATE(1));
    writeStateAtomically(file, STATE(2));
    // /dev/full answers every write with ENOSPC: the temp file becomes it.
    symlinkSync("/dev/full", `${file}.tmp`);
    expect(() => writeStateAtomically(file, STATE(3))).toThrow(/ENOSPC|no space/i);
    expect(JSON.parse(readFileSync(file, "utf8")).block.number).toBe(2);
    expect(JSON.parse(readFileSync(previousCopyOf(file), "utf8")).block.number).toBe(1);
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });
});

describe("choosing the state at start", () => {
  test("an empty or cut-off copy is passed over (and set aside), the previous one is used; a leftover temp file is removed", async () => {
    const dir = await makeTempDir("issuepool-chain-state-");
    const file = join(dir, "anvil-state.json");
    writeStateAtomically(file, STATE(1));
    writeStateAtomically(file, STATE(2));
    writeFileSync(file, readFileSync(file, "utf8").slice(0, 10)); // cut off, as anvil's in-place rewrite left it
    writeFileSync(`${file}.tmp`, "{");
    const choice = chooseState(file);
    expect(choice.candidates).toEqual([{ path: previousCopyOf(file), kind: "previous" }]);
    expect(choice.skipped[0]).toContain("cut off");
    expect(existsSync(`${file}.tmp`)).toBe(false);
    expect(existsSync(`${file}.unusable`)).toBe(true);
    expect(unusableBecause(join(dir, "nothing.json"))).toBe("missing");
    writeFileSync(file, "");
    expect(unusableBecause(file)).toBe("empty");
  });
});

describe("anvil with a state file", () => {
  test("the chain survives a stop, an empty state file (the previous copy is loaded) and a failing save", async () => {
    const file = join(await makeTempDir("issuepool-chain-state-"), "chain", "anvil-state.json");
    const errors: string[] = [];
    const first = await startAnvil({ stateFile: file, onSaveError: (err) => errors.push(err.message) });
    started.push(first);
    expect(first.state).toEqual({ loaded: undefined, skipped: [] });
    await mine(first, 50);
    await first.save();
    await mine(first, 10);
    await first.stop();
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // The saved file is empty: the previous copy (50 blocks) is loaded.
    writeFileSync(file, "");
    const second = await startAnvil({ stateFile: file, onSaveError: (err) => errors.push(err.message) });
    started.push(second);
    expect(second.state?.loaded?.kind).toBe("previous");
    expect(second.state?.skipped[0]).toContain("empty");
    expect(await blockNumber(second)).toBe(50);

    // The disk fills: the save fails, is reported once, and the last good copy stays; then space returns.
    await second.save();
    const good = readFileSync(file, "utf8");
    const diskFull = () => {
      if (!existsSync(`${file}.tmp`)) symlinkSync("/dev/full", `${file}.tmp`); // a failed save removes its temp file
    };
    await mine(second, 5);
    diskFull();
    await expect(second.save()).rejects.toThrow(/ENOSPC|no space/i);
    diskFull();
    await expect(second.save()).rejects.toThrow(/ENOSPC|no space/i);
    expect(errors).toHaveLength(1);
    expect(readFileSync(file, "utf8")).toBe(good);
    expect(existsSync(`${file}.tmp`)).toBe(false);
    await second.stop();
    expect(unusableBecause(file)).toBeUndefined();

    const third = await startAnvil({ stateFile: file });
    started.push(third);
    expect(third.state?.loaded?.kind).toBe("saved");
    expect(await blockNumber(third)).toBe(55);
    await third.stop();

    // A copy that parses but that anvil refuses: passed over too.
    writeFileSync(file, JSON.stringify({ block: { number: "zz" }, accounts: { x: 1 } }));
    const fourth = await startAnvil({ stateFile: file });
    started.push(fourth);
    expect(fourth.state?.loaded?.kind).toBe("previous");
    expect(fourth.state?.skipped[0]).toContain("anvil could not load it");
    expect(await blockNumber(fourth)).toBe(55);
    await fourth.stop();
    expect(unusableBecause(previousCopyOf(file))).toBeUndefined(); // the refused copy was set aside, not kept as the previous one
    expect(existsSync(`${file}.unusable`)).toBe(true);
  }, 60_000);

  test("the chain keeps its genesis block over restarts (anvil's dump lists each start's own block 0 beside the loaded one)", async () => {
    const file = join(await makeTempDir("issuepool-chain-state-"), "chain", "anvil-state.json");
    const rpc = async (anvil: Anvil, method: string, params: unknown[]) =>
      ((await (await fetch(anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) })).json()) as { result: { hash: string } }).result;
    const geneses: string[] = [];
    for (let start = 0; start < 5; start++) {
      const anvil = await startAnvil({ stateFile: file });
      started.push(anvil);
      geneses.push((await rpc(anvil, "eth_getBlockByNumber", ["0x0", false])).hash);
      await mine(anvil, 2);
      await anvil.stop();
      // Each start stamps its own block 0 with the second it started: the next start must come in a later second.
      await Bun.sleep(1_100 - (Date.now() % 1_000));
    }
    expect(new Set(geneses).size).toBe(1);
    const saved = JSON.parse(readFileSync(file, "utf8")) as { blocks: { header: { number: string } }[] };
    expect(saved.blocks.filter((block) => BigInt(block.header.number) === 0n)).toHaveLength(1);
  }, 60_000);

  test("anvil runs in its own process group and still dies when the process that started it is killed with SIGKILL", async () => {
    const dir = await makeTempDir("issuepool-chain-state-");
    mkdirSync(join(dir, "chain"));
    const script = join(dir, "start.ts");
    writeFileSync(
      script,
      `import { startAnvil } from ${JSON.stringify(join(import.meta.dir, "anvil.ts"))};\n` +
        `const anvil = await startAnvil({ stateFile: ${JSON.stringify(join(dir, "chain", "anvil-state.json"))} });\n` +
        "console.log(`pid ${anvil.pid}`);\nsetInterval(() => {}, 1000);\n",
    );
    const parent = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "inherit" });
    let out = "";
    const reader = parent.stdout.getReader();
    const pid = await eventually(async () => {
      const { value } = await reader.read();
      out += new TextDecoder().decode(value);
      return /pid (\d+)/.exec(out)?.[1];
    }, 20_000, "anvil's pid");
    const anvilPid = Number(pid);
    expect(alive(anvilPid)).toBe(true);
    // Its own group: a signal to the parent's group does not reach it.
    expect(Number(readFileSync(`/proc/${anvilPid}/stat`, "utf8").split(") ")[1]!.split(" ")[2])).toBe(anvilPid);
    parent.kill("SIGKILL");
    await parent.exited;
    await eventually(async () => !alive(anvilPid), 10_000, "anvil to die with its parent");
  }, 60_000);
});
