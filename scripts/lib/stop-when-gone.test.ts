import { describe, expect, test } from "bun:test";
import { isAlive, parseStopWithPid, stopWhenGone } from "./stop-when-gone.ts";
import { ConfigError } from "../../api/env.ts";
import { eventually } from "../../testing/stack.ts";

const quiet = { info: () => undefined };

describe("stopWhenGone", () => {
  test("stops once, and exits 0, when the watched process is gone", async () => {
    const supervisor = Bun.spawn(["sleep", "600"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    let stops = 0;
    const exits: number[] = [];
    const cancel = stopWhenGone(async () => void stops++, quiet, { watchedPid: supervisor.pid, intervalMs: 10, exit: (code) => exits.push(code) });
    try {
      expect(isAlive(supervisor.pid)).toBe(true);
      supervisor.kill("SIGKILL");
      await supervisor.exited;
      await eventually(async () => exits.length === 1, 5_000, "the exit");
      expect(stops).toBe(1);
      expect(exits).toEqual([0]);
    } finally {
      cancel();
      supervisor.kill("SIGKILL");
    }
  });

  test("a failed stop exits 1", async () => {
    const supervisor = Bun.spawn(["sleep", "600"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    const exits: number[] = [];
    const cancel = stopWhenGone(() => Promise.reject(new Error("anvil would not stop")), quiet, { watchedPid: supervisor.pid, intervalMs: 10, exit: (code) => exits.push(code) });
    try {
      supervisor.kill("SIGKILL");
      await supervisor.exited;
      await eventually(async () => exits.length === 1, 5_000, "the exit");
      expect(exits).toEqual([1]);
    } finally {
      cancel();
      supervisor.kill("SIGKILL");
    }
  });

  test("isAlive: this process yes, an ended one no", async () => {
    expect(isAlive(process.pid)).toBe(true);
    const done = Bun.spawn(["true"]);
    await done.exited;
    expect(isAlive(done.pid)).toBe(false);
  });

  test("STOP_WITH_PID: empty means none; anything but a process id is a configuration error", () => {
    expect(parseStopWithPid(undefined)).toBeUndefined();
    expect(parseStopWithPid(" ")).toBeUndefined();
    expect(parseStopWithPid("4242")).toBe(4242);
    for (const bad of ["abc", "1", "0", "-5", "12.5"]) expect(() => parseStopWithPid(bad)).toThrow(ConfigError);
  });
});
