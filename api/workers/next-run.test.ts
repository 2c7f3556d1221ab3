import { describe, expect, test } from "bun:test";
import { NextRun } from "./next-run.ts";

/** A promise the test settles by hand: runs wait on these instead of on the clock. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("NextRun", () => {
  test("concurrent callers share runs, and each waits for a run that started after its call", async () => {
    const log: string[] = [];
    let seen = 0;
    let counter = 0;
    const gates = [gate(), gate()];
    let runs = 0;
    const runner = new NextRun(async () => {
      const snapshot = counter;
      const mine = gates[runs++]!;
      log.push(`start ${snapshot}`);
      await mine.opened;
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
    expect(runner.queued).toBe(true);
    gates[0]!.open();
    await first;
    expect(seen).toBe(1);
    gates[1]!.open();
    await Promise.all([second, third]);
    expect(seen).toBe(3); // the queued run started after the third call
    expect(log).toEqual(["start 1", "end 1", "start 3", "end 3"]);
    expect(runner.busy).toBe(false);
  });

  test("a failed run rejects its callers only", async () => {
    let runs = 0;
    const release = gate();
    const runner = new NextRun(async () => {
      const run = ++runs;
      await release.opened;
      if (run === 1) throw new Error("boom");
    });
    const failing = runner.request();
    const queued = runner.request();
    release.open();
    await expect(failing).rejects.toThrow("boom");
    await expect(queued).resolves.toBeUndefined();
    expect(runs).toBe(2);
  });

  test("with a minimum gap, a queued run starts no sooner than that after the one before; an idle runner starts at once", async () => {
    const starts: number[] = [];
    const runner = new NextRun(
      async () => {
        starts.push(performance.now());
      },
      { minGapMs: 60 },
    );
    const first = runner.request();
    const second = runner.request();
    await Promise.all([first, second]);
    expect(starts).toHaveLength(2);
    // A lower bound only: a loaded machine can make the gap longer, never shorter.
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(59);
    // Nothing going or queued: the next request starts its run synchronously, whatever the gap.
    expect(runner.busy).toBe(false);
    const third = runner.request();
    expect(starts).toHaveLength(3);
    await third;
  });
});
