/**
 * The alert rules of docs/operations.md (docs/alerts/issuepool.rules.yml):
 * every figure they read is one the platform exports, and, when Debian's
 * promtool is installed (`apt-get install prometheus`), Prometheus accepts
 * the file (`promtool check rules`) and its unit tests pass (`promtool test
 * rules`: the payout, gas, indexer and backup alerts fire when they should).
 */
import { expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { PlatformMetrics } from "./metrics.ts";

const ALERTS = resolve(import.meta.dir, "../../docs/alerts");
const promtool = Bun.which("promtool");

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn([promtool!, ...args], { cwd: ALERTS, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out: out + err };
}

test("every figure the rules read is one /metrics exports", async () => {
  const rules = await Bun.file(join(ALERTS, "issuepool.rules.yml")).text();
  const used = new Set([...rules.matchAll(/\b(issuepool_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, "")));
  expect(used.size).toBeGreaterThan(10);
  const exported = new Set(new PlatformMetrics().registry.getMetricsAsArray().map((m) => m.name));
  expect([...used].filter((name) => !exported.has(name))).toEqual([]);
});

test.skipIf(!promtool)("promtool accepts the rules and their unit tests pass", async () => {
  const checked = await run(["check", "rules", "issuepool.rules.yml"]);
  expect(checked.out).toContain("SUCCESS");
  expect(checked.code).toBe(0);
  const tested = await run(["test", "rules", "issuepool.rules.test.yml"]);
  expect(tested.out).toContain("SUCCESS");
  expect(tested.code).toBe(0);
}, 60_000);
