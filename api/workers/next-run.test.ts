import { describe, expect, test } from "bun:test";
import { NextRun } from "./next-run.ts";

describe("NextRun", () => {
  test("concurrent callers share runs, and each waits for a run that started after its call", async () => {
    const log: string[] = [];
    let seen = 0;
    let counter = 0;
    const runner = new NextRun(async () => {
      const snapshot = counter;
      log.push(`start ${snapshot}`);
      await Bun.sleep(20);
      seen = snapshot;
      log.push(`end ${snapshot}`);
    });
    counter = 1;
    const first = runner.request();
    counter = 2;
    const second = runner.request(); // a run is going: queued behind it
    counter = 3;
    const third = runner.request(); // shares the queued run
    expect(second).toBe(third);
    await first;
    expect(seen).toBe(1);
    await Promise.all([second, third]);
    expect(seen).toBe(3); // the queued run started after the third call
    expect(log).toEqual(["start 1", "end 1", "start 3", "end 3"]);
    expect(runner.busy).toBe(false);
  });

  test("a failed run rejects its callers only", async () => {
    let runs = 0;
    const runner = new NextRun(async () => {
      const run = ++runs;
      await Bun.sleep(5);
      if (run === 1) throw new Error("boom");
    });
    const failing = runner.request();
    const queued = runner.request();
    await expect(failing).rejects.toThrow("boom");
    await expect(queued).resolves.toBeUndefined();
  });
});
