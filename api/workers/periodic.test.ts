import { expect, test } from "bun:test";
import { Periodic } from "./periodic.ts";

test("passes repeat, a nudge cuts the wait, a failed pass is reported and the loop goes on, stop waits for the pass", async () => {
  let passes = 0;
  const errors: unknown[] = [];
  let finishedLast = false;
  const worker = new Periodic(async () => {
    passes++;
    if (passes === 2) throw new Error("boom");
    if (passes === 3) {
      await Bun.sleep(30);
      finishedLast = true;
    }
  }, (err) => errors.push(err));

  worker.start(60_000); // only nudges move it on
  await Bun.sleep(10);
  expect(passes).toBe(1);
  worker.nudge();
  await Bun.sleep(10);
  expect(passes).toBe(2);
  expect((errors[0] as Error).message).toBe("boom");
  worker.nudge();
  await Bun.sleep(5);
  await worker.stop(); // pass 3 is in progress: stop returns once it has finished
  expect(finishedLast).toBe(true);
  worker.nudge();
  await Bun.sleep(10);
  expect(passes).toBe(3);
});
