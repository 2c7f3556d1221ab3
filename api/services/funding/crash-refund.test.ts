/**
 * SIGKILL in the middle of the refunds of expired multi-funder bounties (issue 29): several issues, each boosted
 * by three funders with an expiry; the chain's clock passes the expiry; a server process starts, its hourly pass
 * sends the refunds, and it is killed with SIGKILL while they are on their way; a new process on the same
 * database and chain finishes them. Then, on the chain: every funder got exactly their shares back, once (one
 * BoostRefunded per funder and issue), and the database says so.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { parseEther, parseEventLogs, type Address } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { bountyBoosts, chainTransactions, repositories } from "../../../db/schema/index.ts";
import { fixtureRepo } from "../../../testing/dev-tools.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { countBy, killMidFlight, settleInProcess } from "../../../testing/crash.ts";
import { startProcessStack, type ProcessStack, type ServerProcess } from "../../../testing/process-stack.ts";
import { eventually } from "../../../testing/stack.ts";
import { SIGNER_LEASE_MS } from "../../chain/outbox.ts";
import { settleBoosts } from "./boost-mirror.ts";

const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;
const ISSUES = 4;
const DAY = 24 * 3600_000;

let stack: ProcessStack;
let server: ServerProcess | undefined;
let funders: (TestSession & { wallet: Address })[] = [];
let setupMs = 0;

beforeAll(async () => {
  const started = Date.now();
  stack = await startProcessStack();
  await stack.signUp("alice", "poolmanager");
  funders = [await stack.signUp("bob", "contributor"), await stack.signUp("carol", "contributor"), await stack.signUp("erin", "contributor")];
  await stack.registerRepository(FULL_NAME, REPO.id);
  const installed = await stack.github.controls.install({ account: REPO.owner, repositories: "all", sender: "alice" });
  await stack.t.ctx.database.db.update(repositories).set({ installationId: (installed.installation as { id: number }).id }).where(eq(repositories.githubRepoId, REPO.id));
  for (const f of funders) await stack.chain.fund(f.wallet, { xdc: "100" });
  setupMs = Date.now() - started;
}, 300_000);

afterAll(async () => {
  await server?.kill();
  await stack?.stop();
});

test("refunds of expired multi-funder bounties are paid exactly once across a SIGKILL", async () => {
  const started = Date.now();
  const issues: number[] = [];
  for (let i = 0; i < ISSUES; i++) {
    const opened = await stack.github.controls.openIssue({ repo: FULL_NAME, title: `Expiring ${i}`, author: "alice" });
    issues.push(Number((opened.issue as { number: number }).number));
  }
  // Each funder boosts each issue (community bounties), in-process: no server process runs yet.
  const expiresAt = new Date(Date.now() + 2 * DAY).toISOString();
  for (const issue of issues) {
    for (const [k, f] of funders.entries()) {
      const res = await call(stack.t, `/api/funding/issues/${FULL_NAME}/${issue}/boosts`, {
        as: f,
        body: { currency: "XDC", amount: String(2 + k), expiresAt },
        headers: { "Idempotency-Key": `crash-boost-${issue}-${k}` },
      });
      expect(res.status).toBe(200);
    }
  }
  await settleInProcess(stack);
  await settleBoosts(stack.t.ctx);
  const rows = await stack.t.ctx.database.db.select().from(bountyBoosts).where(inArray(bountyBoosts.issueNumber, issues));
  expect(rows.filter((r) => r.githubRepoId === REPO.id && r.status === "active")).toHaveLength(ISSUES * funders.length);
  setupMs = Math.max(setupMs, Date.now() - started);

  // Past the expiry on the chain's clock; the database's copy of the expiry is moved too (the server's pass asks
  // the chain before refunding anything).
  await stack.chain.rpc("evm_increaseTime", [3 * 24 * 3600]);
  await stack.chain.rpc("evm_mine", []);
  await stack.t.ctx.database.db.update(bountyBoosts).set({ expiresAt: new Date(Date.now() - 1000) }).where(inArray(bountyBoosts.issueNumber, issues));
  const before = await Promise.all(funders.map((f) => stack.t.ctx.chain.client.getBalance({ address: f.wallet })));
  const fromBlock = await stack.t.ctx.chain.client.getBlockNumber();

  const refunds = () =>
    stack.t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.kind, "refund_boost"), eq(chainTransactions.githubRepoId, REPO.id)));
  server = await stack.spawn();
  // Killed once the hourly pass has put refunds on their way (signed or sent), or one has confirmed, at the latest after 30 s.
  const atKill = await killMidFlight(server, refunds, ISSUES, 30_000, (now) => now.some((r) => r.status === "signed" || r.status === "sent" || r.status === "confirmed"));
  server = undefined;
  expect(atKill.length).toBeGreaterThan(0);
  if (process.env.SHOW_KILL) console.log(`refunds at the kill: ${JSON.stringify(countBy(atKill))}`);

  server = await stack.spawn();
  const deadline = SIGNER_LEASE_MS + 3 * setupMs + 30_000;
  await eventually(async () => {
    const now = await stack.t.ctx.database.db.select({ status: bountyBoosts.status }).from(bountyBoosts).where(and(eq(bountyBoosts.githubRepoId, REPO.id), inArray(bountyBoosts.issueNumber, issues)));
    return now.every((r) => r.status === "refunded") ? true : undefined;
  }, deadline, "every share refunded");
  await server.kill();
  server = undefined;

  // Exactly once, on the chain: each funder's balance grew by exactly their shares (the refunds are the operator's
  // transactions: the funders pay no gas), and one BoostRefunded per funder and issue.
  for (const [k, f] of funders.entries()) {
    const share = parseEther(String(2 + k)) - (parseEther(String(2 + k)) * 50n) / 10_000n;
    expect((await stack.t.ctx.chain.client.getBalance({ address: f.wallet })) - before[k]!).toBe(share * BigInt(ISSUES));
  }
  const logs = await stack.t.ctx.chain.client.getLogs({ address: stack.t.ctx.chain.config.contracts.rewards, fromBlock });
  const refunded = parseEventLogs({ abi: RepoRewardsAbi, logs, eventName: "BoostRefunded" });
  const perShare = new Map<string, number>();
  for (const e of refunded) {
    const key = `${e.args.issueNumber}:${e.args.funder.toLowerCase()}`;
    perShare.set(key, (perShare.get(key) ?? 0) + 1);
  }
  expect(perShare.size).toBe(ISSUES * funders.length);
  expect([...perShare.values()].every((n) => n === 1)).toBe(true);
}, 300_000);
