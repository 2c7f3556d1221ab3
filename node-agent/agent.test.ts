/**
 * The node agent as people run it: a real `bun node-agent/index.ts`
 * process against the platform served on a real port. Pairing through the
 * Provider Hub's approval, answers from the demo backend and from an
 * OpenAI-compatible server (a local stub), a failing backend, the server
 * restarting under it, SIGTERM with a task running (finished, or given back
 * when it takes too long), Offline after the documented silence once
 * stopped (fake clock), revocation, and a restart that keeps its pairing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { Server } from "bun";
import { computeNodes, computeTasks } from "../db/schema/index.ts";
import { call, createTestUser, signInAs, type TestSession } from "../testing/auth.ts";
import { createTestContext, makeTempDir, type TestContext } from "../testing/context.ts";
import { serveApp, spawnAgent, walletOf, type AgentProcess } from "../testing/compute.ts";
import { startOpenAiStub, type OpenAiStub } from "../testing/openai-stub.ts";
import { eventually } from "../testing/stack.ts";
import { NETWORK_FAILED_MESSAGE } from "../lib/compute.ts";
import { demoAnswer } from "./backends.ts";

const HEARTBEAT_MS = 200;
const LEASE_MS = 1500;
const OFFLINE_AFTER_MS = 1000;
const DISPATCH_TIMEOUT_MS = 4 * LEASE_MS;

let t: TestContext;
let server: Server<unknown>;
let url: string;
let dir: string;
let owner: TestSession;
let wallet: string;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  dir = await makeTempDir("issuepool-agent-");
  t = await createTestContext({
    fileDatabase: true,
    env: {
      NODE_HEARTBEAT_MS: HEARTBEAT_MS,
      NODE_TASK_LEASE_MS: LEASE_MS,
      NODE_OFFLINE_AFTER_MS: OFFLINE_AFTER_MS,
      NODE_DISPATCH_TIMEOUT_MS: DISPATCH_TIMEOUT_MS,
      NODE_LONG_POLL_MS: 2000,
      NODE_DISPATCH_PER_MINUTE: 1000,
    },
  });
  server = serveApp(t);
  url = `http://127.0.0.1:${server.port}`;
  t.ctx.compute.start(100);
  owner = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  wallet = await walletOf(t, owner);
});
afterAll(async () => {
  for (const agent of agents) await agent.kill();
  await t.ctx.compute.stop();
  await server.stop(true);
  t.close();
});

let nextAgent = 0;
/** Starts an agent (its own state directory unless given) and pairs it through the hub's approval. */
async function startPairedAgent(extra: string[] = [], stateDir = join(dir, `state-${nextAgent}`)): Promise<{ agent: AgentProcess; nodeId: string; stateDir: string }> {
  const agent = spawnAgent({ server: url, wallet, stateDir, logFile: join(dir, `agent-${nextAgent++}.log`), extra });
  agents.push(agent);
  const { code } = (await agent.waitFor("pairing code")) as { code: string };
  const approved = await call(t, "/api/node/pairings/approve", { as: owner, body: { code } });
  expect(approved.status).toBe(200);
  const { nodeId } = (await agent.waitFor("node ready")) as { nodeId: string };
  return { agent, nodeId, stateDir };
}

const ask = (prompt: string) => call(t, "/api/node/dispatch-task", { as: owner, body: { prompt } });

/** Retires every node so each test's agents are the only ones that can answer. */
async function retireNodes(): Promise<void> {
  for (const agent of agents.splice(0)) await agent.kill();
  await t.ctx.database.client.execute("update compute_nodes set revoked_at = 1 where revoked_at is null");
}

describe("the agent process", () => {
  test("pairs through the owner's approval and answers with the demo backend", async () => {
    await retireNodes();
    const { nodeId } = await startPairedAgent();
    const res = await ask("What does a compute node do?");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: demoAnswer("What does a compute node do?") });
    const status = (await (await call(t, "/api/nodes/network")).json()) as { nodes: { id: string; status: string }[] };
    expect(status.nodes.find((n) => n.id === nodeId)?.status).toBe("Online");
  }, 30_000);

  describe("with an OpenAI-compatible backend", () => {
    let stub: OpenAiStub;
    beforeAll(() => {
      stub = startOpenAiStub();
    });
    afterAll(() => stub.stop());

    test("asks the backend's model with the prompt and returns its answer", async () => {
      await retireNodes();
      stub.answer = (request) => ({ content: `model ${request.model} says: ${request.messages.at(-1)!.content.toUpperCase()}` });
      await startPairedAgent(["--backend", stub.baseUrl, "--model", "llama-test"]);
      const res = await ask("hello there");
      expect(await res.json()).toEqual({ message: "model llama-test says: HELLO THERE" });
      const request = stub.requests.at(-1)!.body;
      expect(request).toMatchObject({ model: "llama-test", messages: [{ role: "user", content: "hello there" }], stream: false });
    }, 30_000);

    test("a backend that fails: the task fails on this node and the asker gets the spec's text", async () => {
      await retireNodes();
      stub.answer = () => ({ status: 500 });
      const { agent, nodeId } = await startPairedAgent(["--backend", stub.baseUrl, "--model", "m"]);
      const res = await ask("will fail");
      expect([503, 504]).toContain(res.status);
      expect(((await res.json()) as { message: string }).message).toBe(NETWORK_FAILED_MESSAGE);
      expect((await agent.lines()).some((l) => l.msg === "task failed on the backend")).toBe(true);
      const [node] = await t.ctx.database.db.select().from(computeNodes).where(eq(computeNodes.id, nodeId));
      expect(node!.lastFailureAt).not.toBeNull();
    }, 30_000);

    test("SIGTERM while a task runs: a task that finishes within the grace is answered, then the agent exits 0", async () => {
      await retireNodes();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      stub.answer = async () => {
        await gate;
        return { content: "finished before stopping" };
      };
      const { agent } = await startPairedAgent(["--backend", stub.baseUrl, "--model", "m", "--stop-grace-ms", String(DISPATCH_TIMEOUT_MS)]);
      const seen = stub.requests.length;
      const reply = ask("finish me");
      await stub.received(seen + 1);
      const exited = agent.stop();
      await agent.waitFor("stopping");
      release();
      expect(await (await reply).json()).toEqual({ message: "finished before stopping" });
      expect(await exited).toBe(0);
    }, 30_000);

    test("SIGTERM while a task runs too long: the agent gives it back at once and another node answers it", async () => {
      await retireNodes();
      stub.answer = () => "hang";
      const { agent } = await startPairedAgent(["--backend", stub.baseUrl, "--model", "m", "--stop-grace-ms", "0"]);
      const seen = stub.requests.length;
      const reply = ask("hand me over");
      await stub.received(seen + 1);
      const [task] = await t.ctx.database.db.select().from(computeTasks).where(eq(computeTasks.prompt, "hand me over"));
      expect(task!.status).toBe("leased");
      const stoppedAt = Date.now();
      expect(await agent.stop()).toBe(0);
      expect((await agent.lines()).some((l) => l.msg === "task given back (stopping)" && l.taskId === task!.id)).toBe(true);
      const [back] = await t.ctx.database.db.select().from(computeTasks).where(eq(computeTasks.id, task!.id));
      // Given back, not left to its lease: queued again with the attempt not counted.
      expect(back).toMatchObject({ status: "queued", attempts: 0 });
      expect(Date.now() - stoppedAt).toBeLessThan(LEASE_MS + 5000);
      await startPairedAgent();
      expect(await (await reply).json()).toEqual({ message: demoAnswer("hand me over") });
    }, 30_000);
  });

  test("a stopped agent shows Offline once it has been silent for NODE_OFFLINE_AFTER_MS (fake clock)", async () => {
    await retireNodes();
    const { agent, nodeId } = await startPairedAgent();
    expect(await agent.stop()).toBe(0);
    const [node] = await t.ctx.database.db.select().from(computeNodes).where(eq(computeNodes.id, nodeId));
    const lastSeen = node!.lastSeenAt!.getTime();
    const real = t.ctx.compute.now;
    const statusAt = async (ms: number) => {
      t.ctx.compute.now = () => lastSeen + ms;
      try {
        const all = (await (await call(t, "/api/nodes/network")).json()) as { nodes: { id: string; status: string }[] };
        const own = (await (await call(t, `/api/node/status?walletAddress=${wallet}`, { as: owner })).json()) as { status: string };
        return [all.nodes.find((n) => n.id === nodeId)!.status, own.status];
      } finally {
        t.ctx.compute.now = real;
      }
    };
    expect(await statusAt(OFFLINE_AFTER_MS - 1)).toEqual(["Online", "Online"]);
    expect(await statusAt(OFFLINE_AFTER_MS)).toEqual(["Offline", "Offline"]);
  }, 30_000);

  test("the server restarts under a running agent: it reconnects with backoff and answers again, same node", async () => {
    await retireNodes();
    const { agent, nodeId } = await startPairedAgent();
    const port = server.port;
    await t.ctx.compute.stop();
    await server.stop(true);
    await eventually(async () => (await agent.lines()).some((l) => l.msg === "polling for tasks failed, retrying"), 10_000, "the agent to notice");
    server = serveApp(t, port);
    t.ctx.compute.start(100);
    await agent.waitFor("server reachable again", 20_000);
    const res = await ask("still there?");
    expect(await res.json()).toEqual({ message: demoAnswer("still there?") });
    expect((await agent.lines()).filter((l) => l.msg === "paired" || l.msg === "pairing code")).toHaveLength(2);
    const [task] = await t.ctx.database.db.select().from(computeTasks).where(eq(computeTasks.prompt, "still there?"));
    expect(task!.nodeId).toBe(nodeId);
  }, 40_000);

  test("restarted, the agent keeps its pairing; revoked, it forgets its token and exits 3", async () => {
    await retireNodes();
    const first = await startPairedAgent();
    expect(await first.agent.stop()).toBe(0);
    const again = spawnAgent({ server: url, wallet, stateDir: first.stateDir, logFile: join(dir, `agent-${nextAgent++}.log`) });
    agents.push(again);
    expect(((await again.waitFor("node ready")) as { nodeId: string }).nodeId).toBe(first.nodeId);
    expect((await again.lines()).some((l) => l.msg === "pairing code")).toBe(false);
    expect((await call(t, `/api/node/nodes/${first.nodeId}`, { method: "DELETE", as: owner })).status).toBe(200);
    await again.proc.exited;
    expect(again.proc.exitCode).toBe(3);
    expect(await Array.fromAsync(new Bun.Glob("node-*.json").scan(first.stateDir))).toEqual([]);
  }, 30_000);
});
