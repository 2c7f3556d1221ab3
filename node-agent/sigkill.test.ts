/**
 * 100 chat tasks over two real agent processes while one of them is
 * SIGKILLed at a random moment: every task is answered (with its own
 * prompt's answer) or fails with the spec's text, every completed task has
 * exactly one ledger row, and no task is answered twice. The killed node's
 * tasks go to the other node once their leases run out; deadlines derive
 * from the configured lease.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { Server } from "bun";
import { computeLedger, computeTasks } from "../db/schema/index.ts";
import { call, createTestUser, signInAs, type TestSession } from "../testing/auth.ts";
import { createTestContext, makeTempDir, type TestContext } from "../testing/context.ts";
import { serveApp, spawnAgent, walletOf, type AgentProcess } from "../testing/compute.ts";
import { eventually } from "../testing/stack.ts";
import { NETWORK_FAILED_MESSAGE } from "../lib/compute.ts";
import { demoAnswer } from "./backends.ts";

const TASKS = 100;
const IN_FLIGHT = 12;
const LEASE_MS = 1000;
const HEARTBEAT_MS = 250;
/** Room for a lease to lapse, a pass to requeue the task, and the other node to answer, twice over. */
const DISPATCH_TIMEOUT_MS = 6 * LEASE_MS;

let t: TestContext;
let server: Server<unknown>;
let dir: string;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  dir = await makeTempDir("issuepool-sigkill-");
  t = await createTestContext({
    fileDatabase: true,
    env: {
      NODE_HEARTBEAT_MS: HEARTBEAT_MS,
      NODE_TASK_LEASE_MS: LEASE_MS,
      NODE_OFFLINE_AFTER_MS: 4 * HEARTBEAT_MS,
      NODE_DISPATCH_TIMEOUT_MS: DISPATCH_TIMEOUT_MS,
      NODE_LONG_POLL_MS: 2000,
      NODE_DISPATCH_PER_MINUTE: 1000,
      LOG_LEVEL: "info",
    },
  });
  server = serveApp(t);
  t.ctx.compute.start(LEASE_MS / 10);
});
afterAll(async () => {
  for (const agent of agents) await agent.kill();
  await t.ctx.compute.stop();
  await server.stop(true);
  t.close();
});

async function pairedAgent(owner: TestSession, n: number): Promise<{ agent: AgentProcess; nodeId: string }> {
  const agent = spawnAgent({
    server: `http://127.0.0.1:${server.port}`,
    wallet: await walletOf(t, owner),
    stateDir: join(dir, `state-${n}`),
    logFile: join(dir, `agent-${n}.log`),
    // Enough simulated work per task that the killed agent is likely caught holding one.
    extra: ["--demo-work-rounds", "6000", "--concurrency", "2"],
  });
  agents.push(agent);
  const { code } = (await agent.waitFor("pairing code")) as { code: string };
  expect((await call(t, "/api/node/pairings/approve", { as: owner, body: { code } })).status).toBe(200);
  const { nodeId } = (await agent.waitFor("node ready")) as { nodeId: string };
  return { agent, nodeId };
}

test(
  `${TASKS} tasks over two agents, one SIGKILLed at random: each answered once or failed with the spec's text, one ledger row per answer`,
  async () => {
    const providers = [await signInAs(t, await createTestUser(t, { role: "contributor" })), await signInAs(t, await createTestUser(t, { role: "contributor" }))];
    const { agent: survivor } = await pairedAgent(providers[0]!, 0);
    const { agent: victim, nodeId: victimId } = await pairedAgent(providers[1]!, 1);
    const askers = await Promise.all(Array.from({ length: 4 }, async () => signInAs(t, await createTestUser(t, { role: "contributor" }))));
    const killAfter = 10 + Math.floor(Math.random() * 50);
    let heldAtDeath: string[] = [];
    console.log(`killing the second agent after ${killAfter} answers, while it holds a task`);

    const prompts = Array.from({ length: TASKS }, (_, i) => `prompt ${i}: what is ${i} squared? (${crypto.randomUUID()})`);
    const results: { prompt: string; status: number; message: string }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < TASKS) {
        const i = next++;
        const res = await call(t, "/api/node/dispatch-task", { as: askers[i % askers.length], body: { prompt: prompts[i] } });
        results.push({ prompt: prompts[i]!, status: res.status, message: ((await res.json()) as { message: string }).message });
      }
    };
    const killer = (async () => {
      await eventually(async () => results.filter((r) => r.status === 200).length >= killAfter, DISPATCH_TIMEOUT_MS * 10, "answers before the kill");
      // Caught working: the task it holds has to reach the other node through its lease running out.
      await eventually(
        async () => (await t.ctx.database.db.select({ id: computeTasks.id }).from(computeTasks).where(sql`${computeTasks.nodeId} = ${victimId} and ${computeTasks.status} = 'leased'`)).length > 0,
        DISPATCH_TIMEOUT_MS * 10,
        "the second agent to hold a task",
      );
      await victim.kill();
      // What it held when it died (it may have finished the task it was seen holding just before the kill).
      heldAtDeath = (
        await t.ctx.database.db.select({ id: computeTasks.id }).from(computeTasks).where(sql`${computeTasks.nodeId} = ${victimId} and ${computeTasks.status} = 'leased'`)
      ).map((row) => row.id);
    })();
    await Promise.all([...Array.from({ length: IN_FLIGHT }, worker), killer]);
    expect(victim.proc.signalCode).toBe("SIGKILL");

    // Every task answered with its own prompt's answer, or failed with the spec's text.
    expect(results).toHaveLength(TASKS);
    for (const r of results) {
      if (r.status === 200) expect(r.message).toBe(demoAnswer(r.prompt));
      else {
        expect([503, 504]).toContain(r.status);
        expect(r.message).toBe(NETWORK_FAILED_MESSAGE);
      }
    }
    const answered = results.filter((r) => r.status === 200).length;
    console.log(`${answered} of ${TASKS} answered, ${TASKS - answered} failed with the spec's text`);
    expect(answered).toBeGreaterThan(killAfter);

    // One ledger row per completed task, none for anything else.
    const done = await t.ctx.database.db.select({ id: computeTasks.id }).from(computeTasks).where(sql`${computeTasks.status} = 'done'`);
    expect(done).toHaveLength(answered);
    const ledger = await t.ctx.database.db.select({ taskId: computeLedger.taskId }).from(computeLedger);
    expect(ledger.map((l) => l.taskId).sort()).toEqual(done.map((d) => d.id).sort());

    // Nothing answered twice: the server took one answer per task, however many agents worked on it.
    const completions = t.log.lines.filter((l) => l.includes('"msg":"compute task completed"')).map((l) => (JSON.parse(l) as { taskId: string }).taskId);
    expect(completions).toHaveLength(new Set(completions).size);
    expect(completions.sort()).toEqual(done.map((d) => d.id).sort());
    const answeredByAgents = [...(await survivor.lines()), ...(await victim.lines())].filter((l) => l.msg === "task answered").map((l) => l.taskId as string);
    expect(answeredByAgents).toHaveLength(new Set(answeredByAgents).size);
    const takenBack = (await victim.lines()).filter((l) => l.msg === "task answered").length;
    const moved = await t.ctx.database.db.select({ id: computeTasks.id, status: computeTasks.status }).from(computeTasks).where(sql`${computeTasks.excludedNodeIds} = ${victimId}`);
    console.log(`the killed agent answered ${takenBack} before it died; it held ${heldAtDeath.length} then; ${moved.length} tasks went back to the queue after their lease`);
    // Every task it held at its death went back after its lease and ended (answered elsewhere, or failed with the text).
    expect(moved.map((task) => task.id)).toEqual(expect.arrayContaining(heldAtDeath));
    for (const task of moved) expect(["done", "failed", "expired"]).toContain(task.status);
  },
  30 * DISPATCH_TIMEOUT_MS + 60_000,
);
