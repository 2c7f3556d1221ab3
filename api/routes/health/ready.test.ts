/**
 * Liveness and readiness (issue 41): /api/health/live answers whenever the
 * process does; /api/health/ready is 503 until the start-up check against
 * the chain has completed and the indexer is caught up, and again when the
 * chain goes away, so a load balancer sends money requests elsewhere.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { startTestChain, type TestChain } from "../../../testing/chain.ts";
import { eventually } from "../../../testing/stack.ts";

let chain: TestChain;
let t: TestContext;
let chainStopped = false;

beforeAll(async () => {
  chain = await startTestChain();
  t = await createTestContext({ fileDatabase: true, env: { ...chain.env, READY_MAX_LAG_BLOCKS: "0" } });
}, 60_000);
afterAll(async () => {
  t?.close();
  if (!chainStopped) await chain?.stop();
});

type Ready = { status: string; checks: Record<string, { ok: boolean; state?: string; lagBlocks?: number | null }> };
const ready = async () => {
  const res = await t.app.request("/api/health/ready");
  return { status: res.status, body: (await res.json()) as Ready };
};
/** The answer once it says `status` (a round of probes answers for a second). */
const readyWhen = (status: number, what: string) => eventually(async () => ((await ready()).status === status ? ready() : undefined), 10_000, what);

test("live always; ready only once repaired and caught up, and not while the chain is gone", async () => {
  const live = await t.app.request("/api/health/live");
  expect(live.status).toBe(200);
  expect(await live.json()).toEqual({ status: "live" });

  // The start-up repair has not run (begun as the server begins it): not ready, and it says why.
  t.ctx.startup.begin();
  const pending = await ready();
  expect(pending.status).toBe(503);
  expect(pending.body.status).toBe("not_ready");
  expect(pending.body.checks.database!.ok).toBe(true);
  expect(pending.body.checks.chain!.ok).toBe(true);
  expect(pending.body.checks.startupRepair).toMatchObject({ ok: false, state: "pending" });

  // Repaired, but the indexer has not read the contract's blocks yet.
  t.ctx.startup.done();
  const behind = await eventually(async () => {
    const r = await ready();
    return r.body.checks.startupRepair!.ok ? r : undefined;
  }, 10_000, "the repair seen");
  expect(behind.status).toBe(503);
  expect(behind.body.checks.indexer!.ok).toBe(false);
  expect(behind.body.checks.indexer!.lagBlocks).toBeGreaterThan(0);

  await t.ctx.indexer.catchUp();
  const ok = await readyWhen(200, "ready");
  expect(ok.body.status).toBe("ready");
  expect(Object.values(ok.body.checks).every((c) => c.ok)).toBe(true);

  // The chain goes away: not ready; liveness is untouched.
  await chain.stop();
  chainStopped = true;
  const gone = await readyWhen(503, "not ready without the chain");
  expect(gone.body.checks.chain!.ok).toBe(false);
  expect((await t.app.request("/api/health/live")).status).toBe(200);
}, 60_000);
