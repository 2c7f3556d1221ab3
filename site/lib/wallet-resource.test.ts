import { describe, expect, test } from "bun:test";
import { createResource, watchUntilSettled } from "./wallet-resource.ts";

type Row = { id: string; status: string };
const until = async (check: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe("watchUntilSettled", () => {
  test("re-reads while a row is pending, stops once it settles, and says so once", async () => {
    const answers: Row[][] = [[{ id: "a", status: "pending" }], [{ id: "a", status: "pending" }], [{ id: "a", status: "confirmed" }]];
    let reads = 0;
    const list = createResource(async () => answers[Math.min(reads++, answers.length - 1)]!, { freshMs: 60_000, retry: 0, fallbackError: "x" });
    let settled = 0;
    const stop = watchUntilSettled(list, (row) => row.status === "pending", () => settled++, [10, 20]);
    await list.load();
    await until(() => settled === 1);
    expect(reads).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(reads).toBe(3);
    expect(settled).toBe(1);
    stop();
  });

  test("backs off between reads, and a new pending row starts again from the first delay", async () => {
    let pendingIds = ["a"];
    const times: number[] = [];
    const list = createResource(
      async () => {
        times.push(Date.now());
        return pendingIds.map((id) => ({ id, status: "pending" }));
      },
      { freshMs: 60_000, retry: 0, fallbackError: "x" },
    );
    const stop = watchUntilSettled(list, (row: Row) => row.status === "pending", () => {}, [20, 60, 120]);
    await list.load();
    await until(() => times.length >= 4, 3000);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[1]).toBeGreaterThanOrEqual(55);
    expect(gaps[2]).toBeGreaterThanOrEqual(115);
    pendingIds = ["a", "b"];
    const before = times.length;
    await until(() => times.length >= before + 2, 3000);
    expect(times.at(-1)! - times.at(-2)!).toBeLessThan(110);
    stop();
    const stopped = times.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(times.length).toBe(stopped);
  });
});

describe("refetch on focus", () => {
  test("coming back to the window reads again though the data is fresh (issue 38), once for a focus and a visibility change together", async () => {
    const globals = globalThis as unknown as { window?: unknown; document?: unknown };
    const saved = { window: globals.window, document: globals.document };
    const win = new EventTarget();
    const doc = Object.assign(new EventTarget(), { visibilityState: "visible" });
    globals.window = win;
    globals.document = doc;
    let reads = 0;
    const balance = createResource(async () => ++reads, { freshMs: 30_000, retry: 0, fallbackError: "x", refetchOnFocus: true });
    const stop = balance.watch();
    try {
      await until(() => balance.$state.get().data === 1);
      // Fresh (well within 30 s), but older than the gap: the focus reads again.
      const { updatedAt } = balance.$state.get();
      (balance.$state as unknown as { set(v: unknown): void }).set({ ...balance.$state.get(), updatedAt: updatedAt - 2_500 });
      win.dispatchEvent(new Event("focus"));
      doc.dispatchEvent(new Event("visibilitychange"));
      await until(() => balance.$state.get().data === 2);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(reads).toBe(2);
      // Right after a read: a second focus does not read again.
      win.dispatchEvent(new Event("focus"));
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(reads).toBe(2);
    } finally {
      stop();
      globals.window = saved.window;
      globals.document = saved.document;
    }
  });
});
