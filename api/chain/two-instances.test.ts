/**
 * Two server processes on one database (issue 15, "Two instances, one
 * database"): the scale-out topology of docs/design.md on one machine. Both
 * run the API and every background worker on the same libSQL file (WAL);
 * a small round-robin proxy, used only here, stands for the load balancer
 * and is the origin users and GitHub see. 200 payouts and 200 fundings are
 * spread over both while one instance is SIGKILLed and started again. Then,
 * on the chain and in the database: every payout and every funding happened
 * exactly once, no nonce was skipped or reused, every mined transaction is
 * the one raw transaction stored when its row was signed (a row signed by
 * two workers would show as a second transaction or a failed row), and the
 * indexer's mirror equals the contract.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import { parseEther, parseEventLogs } from "viem";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { bounties, chainTransactions, repositoryPools, wallets } from "../../db/schema/index.ts";
import { fixtureRepo } from "../../testing/dev-tools.ts";
import { submitAllocation } from "../services/money/bounty-allocate.ts";
import { call, createTestUser, type TestSession } from "../../testing/auth.ts";
import { consecutive, countBy, retryUntilConfirmed, sentOnChain, settleInProcess } from "../../testing/crash.ts";
import { freePort, startProcessStack, type ProcessStack, type ServerProcess } from "../../testing/process-stack.ts";
import { eventually } from "../../testing/stack.ts";
import { SIGNER_LEASE_MS } from "./outbox.ts";

const PAYOUTS = 200;
const FUNDINGS = 200;
const PAY_REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FUND_REPO = fixtureRepo("issuepool-demo/contract-audit-tools")!;
const fullName = (repo: typeof PAY_REPO) => `${repo.owner}/${repo.name}`;
const FIRST_ISSUE = 3000;
const bountyAmount = (i: number) => `1.${String(i).padStart(3, "0")}`;
const fundingAmount = (i: number) => `2.${String(i).padStart(3, "0")}`;

let stack: ProcessStack;
let alice: TestSession & { wallet: `0x${string}` };
const contributors: `0x${string}`[] = [];
const instances: ServerProcess[] = [];
let proxy: ReturnType<typeof Bun.spawn> | undefined;
let setupMs = 0;

/** The proxy process on `port` in front of `backends`, once it listens. */
async function startProxy(port: number, backends: string[]) {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "testing", "round-robin-proxy.ts"), String(port), ...backends], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const { value } = await reader.read();
  if (!new TextDecoder().decode(value).includes("listening")) throw new Error("the proxy did not start");
  reader.releaseLock();
  return proc;
}

beforeAll(async () => {
  const started = Date.now();
  stack = await startProcessStack();
  const { t } = stack;
  alice = await stack.signUp("alice", "poolmanager");
  await stack.registerRepository(fullName(PAY_REPO), PAY_REPO.id);
  await stack.registerRepository(fullName(FUND_REPO), FUND_REPO.id);
  await stack.chain.fund(alice.wallet, { xdc: "2000" });
  // The payouts' pool, and a first funding of the other; with the 200 fundings below (~420 XDC) within alice's
  // 1000 XDC a day across pools.
  for (const [repo, amountXdc] of [[PAY_REPO, "300"], [FUND_REPO, "10"]] as const) {
    const res = await call(t, `/api/blockchain/repository/${repo.id}/fund`, {
      as: alice,
      body: { amountXdc, repositoryFullName: fullName(repo) },
      headers: { "Idempotency-Key": `two-instances-first-${repo.id}` },
    });
    expect(res.status).toBe(200);
  }
  await settleInProcess(stack);
  for (let i = 0; i < PAYOUTS; i++) {
    const user = await createTestUser(t, { role: "contributor" });
    const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, user.id));
    contributors.push(wallet!.address as `0x${string}`);
  }
  await Promise.all(
    consecutive(0, PAYOUTS).map((i) =>
      submitAllocation(t.ctx, {
        userId: alice.user.id,
        idempotencyKey: `two-instances-allocate-${i}`,
        request: { i },
        repoId: PAY_REPO.id,
        issueNumber: FIRST_ISSUE + i,
        currency: "XDC",
        amount: bountyAmount(i),
        issue: { title: `Two instances ${i}`, html_url: `${stack.github.webUrl}/${fullName(PAY_REPO)}/issues/${FIRST_ISSUE + i}` },
      }),
    ),
  );
  await settleInProcess(stack);
  setupMs = Date.now() - started;
}, 600_000);

afterAll(async () => {
  proxy?.kill("SIGKILL");
  await stack?.stop();
});

describe("two instances on one database", () => {
  test("200 payouts and 200 fundings over both while one is SIGKILLed: each once, nonces contiguous, mirror equals chain", async () => {
    const { t } = stack;
    const client = t.ctx.chain.client;
    const rewards = t.ctx.chain.config.contracts.rewards;
    const operator = t.ctx.chain.operator.address;
    const firstBlock = (await client.getBlockNumber({ cacheTime: 0 })) + 1n;
    const operatorNonce = await client.getTransactionCount({ address: operator });
    const aliceNonce = await client.getTransactionCount({ address: alice.wallet });
    const [fundPoolBefore] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getPool", args: [BigInt(FUND_REPO.id)] });
    const contributorBefore = await Promise.all(contributors.map((address) => client.getBalance({ address })));

    // The proxy answers at the origin everyone knows; the two instances behind it on ports of their own.
    const ports = [await freePort(), await freePort()];
    const urls = ports.map((p) => `http://127.0.0.1:${p}`);
    proxy = await startProxy(Number(new URL(stack.origin).port), urls);
    const startInstance = async (i: number) => {
      const server = await stack.spawn({ PORT: String(ports[i]) });
      instances[i] = server;
      return server;
    };
    try {
      await Promise.all([startInstance(0), startInstance(1)]);
      const front = { url: stack.origin };
      const payKey = (i: number) => `two-instances-pay-${i}`;
      const fundKey = (i: number) => `two-instances-fund-${i}`;
      const pay = (i: number) =>
        stack.post(front, alice, `/api/blockchain/distribute-bounty/${PAY_REPO.id}/${FIRST_ISSUE + i}`, { contributorAddress: contributors[i], githubRepoFullName: fullName(PAY_REPO) }, payKey(i));
      const fund = (i: number) =>
        stack.post(front, alice, `/api/blockchain/repository/${FUND_REPO.id}/fund`, { amountXdc: fundingAmount(i), repositoryFullName: fullName(FUND_REPO) }, fundKey(i));

      // Everything at once, with retries as the site does them; one instance dies in the middle and comes back.
      // 400 transactions from two signers through two processes, one of them killed: the dead one's signer leases
      // lapse (twice, for both keys) and the work is many times the setup's, which measured this machine's pace now.
      const deadline = Date.now() + 2 * SIGNER_LEASE_MS + 10 * setupMs + 60_000;
      const work = Promise.all([
        ...consecutive(0, PAYOUTS).map((i) => retryUntilConfirmed(`payout ${i}`, () => pay(i), deadline, 500)),
        ...consecutive(0, FUNDINGS).map((i) => retryUntilConfirmed(`funding ${i}`, () => fund(i), deadline, 500)),
      ]);
      const rowsSoFar = () => t.ctx.database.db.select({ status: chainTransactions.status }).from(chainTransactions).where(inArray(chainTransactions.idempotencyKey, [payKey(0), fundKey(0), ...consecutive(1, PAYOUTS - 1).map(payKey)]));
      // (A failure of the work itself, a refused request say, ends the wait at once.)
      await Promise.race([
        eventually(async () => ((await rowsSoFar()).some((r) => r.status === "confirmed") ? true : undefined), deadline - Date.now(), "a first payout confirmed"),
        work.then(() => undefined),
      ]);
      await instances[0]!.kill();
      const killedAt = Date.now();
      const atKill = await t.ctx.database.db.select().from(chainTransactions).where(inArray(chainTransactions.kind, ["pay_bounty", "fund_xdc"]));
      const restarted = await startInstance(0);
      expect(restarted.pid).not.toBe(0);
      await work;
      console.log(
        `two instances (setup took ${setupMs} ms): SIGKILL of one with ${JSON.stringify(countBy(atKill.filter((r) => /^two-instances-(pay|fund)-/.test(r.idempotencyKey))))} rows of the batch; ` +
          `all ${PAYOUTS} payouts and ${FUNDINGS} fundings confirmed ${Date.now() - killedAt} ms after the kill`,
      );

      // Exactly once, on both sides of the database.
      const payRows = await t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, PAY_REPO.id), inArray(chainTransactions.idempotencyKey, consecutive(0, PAYOUTS).map(payKey))));
      const fundRows = await t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.kind, "fund_xdc"), inArray(chainTransactions.idempotencyKey, consecutive(0, FUNDINGS).map(fundKey))));
      expect(countBy(payRows)).toEqual({ confirmed: PAYOUTS });
      expect(countBy(fundRows)).toEqual({ confirmed: FUNDINGS });
      const unsettled = await t.ctx.database.db.select({ id: chainTransactions.id }).from(chainTransactions).where(inArray(chainTransactions.status, ["queued", "signed", "sent", "failed", "reverted"]));
      expect(unsettled).toHaveLength(0);

      // No nonce skipped or reused, for the operator (payouts) and the pool manager (fundings); each mined
      // transaction is the raw transaction stored when its row was signed.
      const byOperator = await sentOnChain(client, operator, firstBlock);
      const byAlice = await sentOnChain(client, alice.wallet, firstBlock);
      expect(byOperator.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(consecutive(operatorNonce, PAYOUTS));
      expect(byAlice.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(consecutive(aliceNonce, FUNDINGS));
      for (const { nonce, hash } of byOperator) expect(payRows.find((r) => r.nonce === nonce)?.txHash).toBe(hash);
      for (const { nonce, hash } of byAlice) expect(fundRows.find((r) => r.nonce === nonce)?.txHash).toBe(hash);

      // The money: each contributor got exactly their bounty, the pool exactly the net of every funding.
      const logs = await client.getLogs({ address: rewards, fromBlock: firstBlock });
      const paid = parseEventLogs({ abi: RepoRewardsAbi, logs, eventName: "BountyPaid" });
      expect(new Set(paid.map((e) => e.args.issueNumber)).size).toBe(PAYOUTS);
      expect(paid).toHaveLength(PAYOUTS);
      for (let i = 0; i < PAYOUTS; i++) {
        expect((await client.getBalance({ address: contributors[i]! })) - contributorBefore[i]!).toBe(parseEther(bountyAmount(i)));
      }
      const [fundPoolAfter] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getPool", args: [BigInt(FUND_REPO.id)] });
      const net = consecutive(0, FUNDINGS).reduce((sum, i) => sum + (parseEther(fundingAmount(i)) * 9950n) / 10_000n, 0n);
      expect(fundPoolAfter - fundPoolBefore).toBe(net);

      // The indexer's mirror (kept by whichever instance's worker held its lease) equals the contract.
      const mirrorMatches = async () => {
        const rows = await t.ctx.database.db.select().from(bounties).where(eq(bounties.githubRepoId, PAY_REPO.id));
        const paidRows = rows.filter((b) => b.issueNumber >= FIRST_ISSUE && b.status === "paid");
        const [pool] = await t.ctx.database.db.select().from(repositoryPools).where(and(eq(repositoryPools.githubRepoId, FUND_REPO.id), eq(repositoryPools.currency, "XDC")));
        return paidRows.length === PAYOUTS && pool?.balance === fundPoolAfter ? rows : undefined;
      };
      const mirrored = await eventually(mirrorMatches, deadline - Date.now() + 30_000, "the indexer's mirror");
      for (let i = 0; i < PAYOUTS; i += 1) {
        const row = mirrored.find((b) => b.issueNumber === FIRST_ISSUE + i)!;
        const [, amount, status, recipient] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getBounty", args: [BigInt(PAY_REPO.id), BigInt(FIRST_ISSUE + i)] });
        expect(status).toBe(2);
        expect({ amount: row.amount, status: row.status, recipient: row.recipient?.toLowerCase() }).toEqual({ amount, status: "paid", recipient: recipient.toLowerCase() });
      }
      const [payPool] = await t.ctx.database.db.select().from(repositoryPools).where(and(eq(repositoryPools.githubRepoId, PAY_REPO.id), eq(repositoryPools.currency, "XDC")));
      const [payPoolOnChain] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getPool", args: [BigInt(PAY_REPO.id)] });
      expect(payPool?.balance).toBe(payPoolOnChain);
    } catch (err) {
      const rows = await t.ctx.database.db.select().from(chainTransactions);
      console.error(`outbox rows by status: ${JSON.stringify(countBy(rows))}; errors: ${JSON.stringify([...new Set(rows.map((r) => r.error).filter(Boolean))].slice(0, 3))}`);
      const log = await Bun.file(stack.logFile).text().catch(() => "");
      console.error(`server log (tail):\n${log.split("\n").slice(-30).join("\n")}`);
      throw err;
    } finally {
      for (const server of instances) await server?.kill();
      proxy?.kill("SIGKILL");
      await proxy?.exited;
      proxy = undefined;
    }
  }, 900_000);
});
