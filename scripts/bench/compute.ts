/**
 * Compute network benchmark (not a test): `bun scripts/bench/compute.ts [latencyRounds] [tasks] [workRounds]`.
 *
 * The platform (API server in its own process, workers on, as in
 * production), node agents as their own processes, and this process as the
 * chat users. Two figures, each against a baseline measured in the same run:
 *
 * 1. Latency the platform adds to a chat task: `latencyRounds` (default 300)
 *    prompts one at a time through POST /api/node/dispatch-task to one warm
 *    agent whose backend is a local OpenAI-compatible server, alternating with
 *    the same request sent straight to that backend. Added = platform minus
 *    direct, at p50 and p99 (target: <= 20 ms at p50).
 * 2. Tasks per second through 1, 2 and 4 agents with the demo backend doing
 *    `workRounds` (default 20000, about 15-20 ms) SHA-256 rounds of simulated work per task:
 *    `tasks` (default 400) prompts, closed loop, 4 in flight per agent. The
 *    baseline is one agent; it should scale with agents until the CPU is full
 *    (these machines have 2 cores shared by the server, the agents and this
 *    process).
 *
 * Everything (database, server, agents, the stub backend) is started here
 * and removed at the end.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { rm } from "node:fs/promises";
import { eq } from "drizzle-orm";
import { computeNodes } from "../../db/schema/index.ts";
import { createTestUser, signInAs, type TestSession } from "../../testing/auth.ts";
import { createTestContext, makeTempDir, NO_CHAIN, NO_EXTERNALS } from "../../testing/context.ts";
import { freePort, spawnServer, type ServerProcess } from "../../testing/process-stack.ts";
import { spawnAgent, walletOf, type AgentProcess } from "../../testing/compute.ts";
import { startOpenAiStub } from "../../testing/openai-stub.ts";
import { sharedTestSecrets } from "../lib/dev-secrets.ts";
import { pairNodeDirectly } from "../../api/services/compute/pairing.ts";
import { saveToken } from "../../node-agent/state.ts";
import { percentile, table } from "./lib.ts";

const LATENCY_ROUNDS = Number(process.argv[2] ?? 300);
const TASKS = Number(process.argv[3] ?? 400);
const WORK_ROUNDS = Number(process.argv[4] ?? 20000);
const AGENT_COUNTS = [1, 2, 4];
const IN_FLIGHT_PER_AGENT = 4;

const dir = await makeTempDir("issuepool-bench-compute-");
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const { GITHUB_APP_PUBLIC_KEY: _public, ...secrets } = await sharedTestSecrets();
const env: Record<string, string> = {
  ...NO_EXTERNALS,
  ...NO_CHAIN,
  ...secrets,
  NODE_ENV: "test",
  // As in production: one line per request (and spawnServer waits for the "listening" line).
  LOG_LEVEL: "info",
  LOG_FORMAT: "json",
  HOST: "127.0.0.1",
  PORT: String(port),
  PUBLIC_URL: origin,
  DATA_DIR: dir,
  DATABASE_URL: `file:${dir}/app.db`,
  NODE_DISPATCH_PER_MINUTE: "1000000",
};
const t = await createTestContext({ env });
const stub = startOpenAiStub(() => ({ content: "The platform adds little to this." }));
const agents: AgentProcess[] = [];
let server: ServerProcess | undefined;

try {
  const owner = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  const asker = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  const wallet = await walletOf(t, owner);
  server = await spawnServer(env, join(dir, "server.log"));
  const dispatch = async (prompt: string) => {
    const res = await fetch(`${origin}/api/node/dispatch-task`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", Cookie: asker.cookie, Origin: origin, "X-CSRF-Token": asker.csrfToken, "X-Forwarded-For": asker.ip },
      body: JSON.stringify({ prompt }),
    });
    const body = (await res.json()) as { message?: string };
    if (res.status !== 200) throw new Error(`dispatch: ${res.status} ${JSON.stringify(body)}`);
    return body.message!;
  };

  let nextAgent = 0;
  /** k agents, paired directly (no approval step: this measures work, not pairing). */
  const startAgents = async (k: number, extra: string[]) => {
    for (const agent of agents.splice(0)) await agent.stop();
    await t.ctx.database.db.update(computeNodes).set({ revokedAt: new Date() }).where(eq(computeNodes.userId, owner.user.id));
    const started: AgentProcess[] = [];
    for (let i = 0; i < k; i++) {
      const n = nextAgent++;
      const stateDir = join(dir, `agent-${n}`);
      const paired = await pairNodeDirectly(t.ctx.database.db, { userId: owner.user.id, walletAddress: `0x${wallet.slice(3)}`, name: `bench ${n}`, backend: "demo", now: Date.now() });
      await saveToken(stateDir, origin, wallet, { nodeId: paired.nodeId, token: paired.token });
      started.push(spawnAgent({ server: origin, wallet, stateDir, logFile: join(dir, `agent-${n}.log`), extra }));
    }
    agents.push(...started);
    await Promise.all(started.map((a) => a.waitFor("node ready", 30_000)));
  };

  // ---- 1. Latency added over calling the backend directly ----
  await startAgents(1, ["--backend", stub.baseUrl, "--model", "bench"]);
  const direct = async () => {
    const res = await fetch(`${stub.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ model: "bench", messages: [{ role: "user", content: "How much does the platform add?" }], stream: false }),
    });
    return ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
  };
  const timed = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  for (let i = 0; i < 30; i++) {
    await direct();
    await dispatch("warm-up");
  }
  const directMs: number[] = [];
  const platformMs: number[] = [];
  for (let i = 0; i < LATENCY_ROUNDS; i++) {
    directMs.push(await timed(direct));
    platformMs.push(await timed(() => dispatch("How much does the platform add?")));
  }
  directMs.sort((a, b) => a - b);
  platformMs.sort((a, b) => a - b);
  const ms = (v: number) => v.toFixed(2);
  console.log(`\nLatency, ${LATENCY_ROUNDS} chat tasks one at a time, one warm agent, OpenAI-compatible backend (local stub):\n`);
  console.log(
    table([
      ["path", "p50 ms", "p99 ms"],
      ["backend directly", ms(percentile(directMs, 50)), ms(percentile(directMs, 99))],
      ["through the platform (dispatch -> agent -> backend -> answer)", ms(percentile(platformMs, 50)), ms(percentile(platformMs, 99))],
      ["added by the platform", ms(percentile(platformMs, 50) - percentile(directMs, 50)), ms(percentile(platformMs, 99) - percentile(directMs, 99))],
    ]),
  );

  // ---- 2. Tasks per second through 1, 2 and 4 agents (demo backend) ----
  const workStarted = performance.now();
  let digest = Buffer.from("How much work is one task?");
  for (let i = 0; i < WORK_ROUNDS; i++) digest = createHash("sha256").update(digest).digest();
  const workMs = performance.now() - workStarted;
  const rows: (string | number)[][] = [["agents", "in flight", "tasks/s", "vs 1 agent", "p50 ms", "p99 ms"]];
  let oneAgent = 0;
  for (const k of AGENT_COUNTS) {
    await startAgents(k, ["--demo-work-rounds", String(WORK_ROUNDS)]);
    const inFlight = IN_FLIGHT_PER_AGENT * k;
    for (let i = 0; i < inFlight * 2; i++) await dispatch(`warm-up ${i}`);
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < TASKS) {
          const i = next++;
          latencies.push(await timed(() => dispatch(`task ${k}-${i}: what is ${i} squared?`)));
        }
      }),
    );
    const perSecond = TASKS / ((performance.now() - started) / 1000);
    if (k === 1) oneAgent = perSecond;
    latencies.sort((a, b) => a - b);
    rows.push([k, inFlight, perSecond.toFixed(1), `${(perSecond / oneAgent).toFixed(2)}x`, ms(percentile(latencies, 50)), ms(percentile(latencies, 99))]);
  }
  console.log(`\nThroughput, ${TASKS} chat tasks per row, demo backend with ${WORK_ROUNDS} SHA-256 rounds of work per task (${workMs.toFixed(1)} ms here, so one agent tops out near ${(1000 / workMs).toFixed(0)} tasks/s):\n`);
  console.log(table(rows));
} finally {
  for (const agent of agents) await agent.stop();
  await server?.stop();
  await stub.stop();
  t.close();
  await rm(dir, { recursive: true, force: true });
}
