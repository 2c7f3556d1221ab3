/**
 * The embedded default's compute node: one node agent with the demo
 * backend, paired to the demo pool manager (alice) without anyone having to
 * approve it, so the decentralized chat answers and the network card reads
 * "1 / 1 online" on a fresh `npm start`. It is a real agent process
 * (node-agent/index.ts), pulling work like any other node; its log goes to
 * DATA_DIR/demo-node/agent.log. Its token is kept in DATA_DIR/demo-node and
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

export interface DemoNode {
  nodeId: string;
  stop(): Promise<void>;
}

export async function startDemoNode(ctx: AppContext, options: { serverUrl: string; dataDir: string; log: (m: string) => void }): Promise<DemoNode | undefined> {
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
  const fd = openSync(join(stateDir, "agent.log"), "a");
  const proc = Bun.spawn(
    [process.execPath, AGENT, "--server", options.serverUrl, "--wallet", wallet.address, "--state-dir", stateDir, "--name", DEMO_NODE_NAME, "--exit-with-parent"],
    { stdin: "ignore", stdout: fd, stderr: fd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" } },
  );
  closeSync(fd);
  options.log(`demo compute node ${stored.nodeId} started (pid ${proc.pid}; log ${join(stateDir, "agent.log")})`);
  return {
    nodeId: stored.nodeId,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await proc.exited;
      clearTimeout(timer);
    },
  };
}
