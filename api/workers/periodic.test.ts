import { expect, test } from "bun:test";
import { LibsqlError } from "@libsql/client";
import { Periodic } from "./periodic.ts";

/** A promise the test settles by hand: passes wait on these instead of on the clock. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Nudges until `done()`: a nudge that lands before the loop has begun its wait is a no-op, so one may not be enough. */
async function nudgeUntil(worker: Periodic, done: () => boolean): Promise<void> {
  while (!done()) {
    worker.nudge();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test("passes repeat, a nudge cuts the wait, a failed pass is reported and the loop goes on, stop waits for the pass", async () => {
  let passes = 0;
  const errors: unknown[] = [];
  let finishedLast = false;
  // started[n] opens when pass n+1 begins; pass 3 waits on `release` before it finishes.
  const started = [gate(), gate(), gate(), gate()];
  const release = gate();
  const worker = new Periodic("test", async () => {
    passes++;
    started[passes - 1]?.open();
    if (passes === 2) throw new Error("boom");
    if (passes === 3) {
      await release.opened;
      finishedLast = true;
    }
  }, (err) => errors.push(err));

  worker.start(3_600_000); // an hour between passes: only nudges move it on
  await started[0]!.opened;
  expect(passes).toBe(1);
  await nudgeUntil(worker, () => passes >= 2);
  await started[1]!.opened;
  expect(passes).toBe(2);
  // The failure is reported before the loop waits again; a nudge during that wait starts pass 3.
  while (errors.length === 0) await Promise.resolve();
  expect((errors[0] as Error).message).toBe("boom");
  await nudgeUntil(worker, () => passes >= 3);
  await started[2]!.opened;
  const stopping = worker.stop(); // pass 3 is in progress: stop returns once it has finished
  let stopped = false;
  void stopping.then(() => (stopped = true));
  await new Promise((resolve) => setImmediate(resolve));
  expect(stopped).toBe(false);
  release.open();
  await stopping;
  expect(finishedLast).toBe(true);
  // Stopped: a nudge runs nothing.
  worker.nudge();
  await new Promise((resolve) => setImmediate(resolve));
  expect(passes).toBe(3);
});

test("a pass that failed for a full storage is not reported each time (the database layer says it once per episode)", async () => {
  const errors: unknown[] = [];
  let passes = 0;
  const done = gate();
  const worker = new Periodic("test", async () => {
    passes++;
    if (passes <= 3) throw new Error("Failed query", { cause: new LibsqlError("SQLITE_FULL: database or disk is full", "SQLITE_FULL") });
    if (passes === 4) throw new Error("boom");
    done.open();
  }, (err) => errors.push(err));
  worker.start(3_600_000);
  await nudgeUntil(worker, () => passes >= 5);
  await done.opened;
  await worker.stop();
  expect(errors.map((e) => (e as Error).message)).toEqual(["boom"]);
});

test("a nudge during a pass starts the next pass when it ends, not after the interval (work that arrived mid-pass)", async () => {
  let passes = 0;
  const first = gate();
  const release = gate();
  const second = gate();
  const worker = new Periodic("test", async () => {
    passes++;
    if (passes === 1) {
      first.open();
      await release.opened;
    }
    if (passes === 2) second.open();
  }, () => {});
  worker.start(3_600_000); // an hour between passes: only the nudge can start pass 2
  try {
    await first.opened;
    worker.nudge(); // while pass 1 runs
    release.open();
    await second.opened;
    expect(passes).toBe(2);
  } finally {
    await worker.stop();
  }
});
