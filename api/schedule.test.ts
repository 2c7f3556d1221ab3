import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { PASS_NAMES, declareSchedule, startSchedule } from "./schedule.ts";
import { createTestContext } from "../testing/context.ts";

const root = join(import.meta.dir, "..");
function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return name === "node_modules" ? [] : sources(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

describe("the schedule (issue 37, item 5)", () => {
  test("every Periodic in the platform's code is a pass declared in api/schedule.ts", () => {
    const undeclared: string[] = [];
    let found = 0;
    for (const file of sources("api")) {
      const text = readFileSync(join(root, file), "utf8");
      for (const m of text.matchAll(/new Periodic\(\s*("([^"]*)"|[A-Za-z_]+)/g)) {
        if (file === "api/schedule.ts" && m[1] === "name") continue; // its own loops, named by the declaration
        found++;
        if (!m[2] || !(PASS_NAMES as readonly string[]).includes(m[2])) undeclared.push(`${file}: ${m[1]}`);
      }
    }
    expect(found).toBeGreaterThan(5);
    expect(undeclared).toEqual([]);
  });

  test("nothing starts a pass but the schedule: the server, the development stack and the test stack start it", () => {
    const starts = /\b(ctx|t\.ctx|server\.ctx)\.(outbox|indexer|webhooks|outbound|digest|scoping|compute|reconciler)\.start\(|(?<!function )keepBountyCommentsInStep\(|\.start\(\s*3_?600_?000\s*\)/;
    // Benchmarks start what they measure, by hand.
    const offenders = [...sources("api"), ...sources("scripts"), ...sources("testing")].filter(
      (file) => file !== "api/schedule.ts" && !file.startsWith("scripts/bench/") && starts.test(readFileSync(join(root, file), "utf8")),
    );
    expect(offenders).toEqual([]);
    for (const file of ["api/server.ts", "testing/stack.ts"]) expect(readFileSync(join(root, file), "utf8")).toContain("startSchedule(");
    expect(readFileSync(join(root, "scripts/dev.ts"), "utf8")).toContain("startServer(");
  });

  test("the declaration names each pass once, in PASS_NAMES's order, with what it runs under", async () => {
    const t = await createTestContext();
    try {
      const passes = declareSchedule(t.ctx);
      const names = passes.map((p) => p.name);
      expect(new Set(names).size).toBe(names.length);
      // The escrow watcher runs only where the guardian key is, backups only of an embedded file (neither here).
      expect(names).toEqual(PASS_NAMES.filter((n) => n !== "watcher" && n !== "backup"));
      for (const p of passes) expect(p.every.length).toBeGreaterThan(0);
      // What moves money waits for the start-up check; mail, scoping and compute do not.
      const waits = passes.filter((p) => p.afterRepair).map((p) => p.name);
      expect(waits).toContain("outbox");
      expect(waits).toContain("webhooks");
      expect(waits).toContain("split-release");
      expect(waits).not.toContain("reconciler");
      expect(waits).not.toContain("digest");
    } finally {
      t.close();
    }
  });

  test("the passes that move money start only once the start-up check is done, and never when stopped before it", async () => {
    const t = await createTestContext();
    try {
      let done!: () => void;
      const repaired = new Promise<void>((resolve) => (done = resolve));
      const schedule = startSchedule(t.ctx, { only: ["recent-totals", "boost-mirror", "outbound"], repaired });
      expect(schedule.started()).toEqual(["recent-totals", "outbound"]);
      done();
      await repaired;
      await Promise.resolve();
      expect(schedule.started()).toEqual(["recent-totals", "outbound", "boost-mirror"]);
      await schedule.stop();

      let never!: () => void;
      const late = new Promise<void>((resolve) => (never = resolve));
      const other = startSchedule(t.ctx, { only: ["boost-mirror"], repaired: late });
      await other.stop();
      never();
      await late;
      await Promise.resolve();
      expect(other.started()).toEqual([]);
      expect(() => other.runOnce("digest")).toThrow("no pass named digest");
    } finally {
      t.close();
    }
  });
});
