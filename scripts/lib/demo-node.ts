/**
 * The embedded default's compute node: one node agent with the demo
 * backend, paired to the demo pool manager (alice) without anyone having to
 * approve it, so the decentralized chat answers and the network card reads
 * "1 / 1 online" on a fresh `npm start`. It is a real agent process
 * (node-agent/index.ts), pulling work like any other node; its log goes to
 * DATA_DIR/demo-node/agent.log. When it dies it is started again, with
 * backoff (1 s, doubling up to a minute). Its token is kept in DATA_DIR/demo-node and
 * reused on the next start while it still works.
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join, resolve } from "node:path";
import { and, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../api/context.ts";
import { computeNodes, users } from "../../db/schema/index.ts";
import { walletOfUser } from "../../api/services/wallets/custodial.ts";
import { authenticateNode } from "../../api/services/compute/nodes.ts";
import { pairNodeDirectly } from "../../api/services/compute/pairing.ts";
import { loadToken, saveToken } from "../../node-agent/state.ts";

export const DEMO_NODE_NAME = "Issuepool demo node";
const DEMO_NODE_OWNER_GITHUB_ID = 1001; // alice (scripts/github-emulator/fixture.ts)
const AGENT = resolve(import.meta.dir, "..", "..", "node-agent", "index.ts");

const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 60_000;
/** An agent that ran this long before dying is restarted after the first delay again. */
const STABLE_AFTER_MS = 60_000;

export interface DemoNode {
  nodeId: string;
  /** DATA_DIR/demo-node/agent.log: the agent's output, across restarts. */
  logFile: string;
  /** The running agent's process id (a new one after each restart). */
  pid(): number;
  stop(): Promise<void>;
}

export async function startDemoNode(ctx: AppContext, options: { serverUrl: string; dataDir: string; log: (m: string) => void; restartDelayMs?: number; onRestart?: (pid: number) => void }): Promise<DemoNode | undefined> {
  const db = ctx.database.db;
  const [owner] = await db.select().from(users).where(eq(users.githubId, DEMO_NODE_OWNER_GITHUB_ID));
  const wallet = owner && (await walletOfUser(db, owner.id));
  if (!owner || !wallet) {
    options.log("demo compute node: not started (the demo users are not seeded)");
    return undefined;
  }
  const stateDir = join(options.dataDir, "demo-node");
  let stored = await loadToken(stateDir, options.serverUrl, wallet.address);
  if (!stored || !(await authenticateNode(db, stored.token))) {
    // A new pairing replaces earlier demo nodes, so restarts do not pile up offline nodes in the network card.
    await db
      .update(computeNodes)
      .set({ revokedAt: new Date() })
      .where(and(eq(computeNodes.userId, owner.id), eq(computeNodes.name, DEMO_NODE_NAME), isNull(computeNodes.revokedAt)));
    const paired = await pairNodeDirectly(db, { userId: owner.id, walletAddress: wallet.address, name: DEMO_NODE_NAME, backend: "demo", now: Date.now() });
    stored = { nodeId: paired.nodeId, token: paired.token };
    await saveToken(stateDir, options.serverUrl, wallet.address, stored);
  }
  mkdirSync(stateDir, { recursive: true });
  const logFile = join(stateDir, "agent.log");
  const spawnAgent = () => {
    const fd = openSync(logFile, "a");
    try {
      return Bun.spawn(
        [process.execPath, AGENT, "--server", options.serverUrl, "--wallet", wallet.address, "--state-dir", stateDir, "--name", DEMO_NODE_NAME, "--exit-with-parent"],
        // In its own process group: a terminal's Ctrl-C stops the platform, which stops the agent (not the supervisor
        // restarting an agent the signal ended first). --exit-with-parent ends it when the platform dies (kill -9).
        { stdin: "ignore", stdout: fd, stderr: fd, detached: true, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" } },
      );
    } finally {
      closeSync(fd);
    }
  };
  // Supervised (issue 24): an agent that dies is started again, after a pause that doubles while it keeps dying
  // soon after its start (up to a minute) and is back to the first once it has run for a while.
  let proc = spawnAgent();
  let stopping = false;
  let backoff = options.restartDelayMs ?? FIRST_RESTART_DELAY_MS;
  let wake: (() => void) | undefined;
  const supervised = (async () => {
    for (;;) {
      const startedAt = Date.now();
      const code = await proc.exited;
      if (stopping) return;
      if (Date.now() - startedAt > STABLE_AFTER_MS) backoff = options.restartDelayMs ?? FIRST_RESTART_DELAY_MS;
      options.log(`demo compute node exited (${proc.signalCode ?? `code ${code}`}); starting it again in ${backoff} ms (log ${logFile})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoff);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      if (stopping) return;
      backoff = Math.min(backoff * 2, MAX_RESTART_DELAY_MS);
      try {
        proc = spawnAgent();
        options.onRestart?.(proc.pid);
      } catch (err) {
        options.log(`demo compute node could not be started: ${(err as Error).message}`); // the loop waits and tries again
      }
    }
  })();
  options.log(`demo compute node ${stored.nodeId} started (pid ${proc.pid}; log ${logFile})`);
  return {
    nodeId: stored.nodeId,
    logFile,
    pid: () => proc.pid,
    async stop() {
      stopping = true;
      wake?.();
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill("SIGTERM");
        const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
        await proc.exited;
        clearTimeout(timer);
      }
      await supervised;
    },
  };
}
