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

  test("with a minimum gap, a queued run starts no sooner than that after the one before", async () => {
    const starts: number[] = [];
    const runner = new NextRun(
      async () => {
        starts.push(performance.now());
        await Bun.sleep(5);
      },
      { minGapMs: 60 },
    );
    const first = runner.request();
    const second = runner.request();
    await Promise.all([first, second]);
    expect(starts).toHaveLength(2);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(59);
    // A request after a quiet spell longer than the gap runs at once.
    await Bun.sleep(80);
    const asked = performance.now();
    await runner.request();
    expect(starts[2]! - asked).toBeLessThan(30);
  });
});
