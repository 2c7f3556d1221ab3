import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { erc20Abi, parseEther, parseUnits, type Address } from "viem";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { chainTransactions, webhookDeliveries, type Currency } from "../../../db/schema/index.ts";

/**
 * Payouts on merged pull requests (issue 11's test list): in each of the
 * three currencies; none for a pull request closed without merging, none
 * for a reference to an issue of another repository, and one only when two
 * pull requests fix the same issue.
 */
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let grace: TestSession & { wallet: Address };
let n = 0;
const key = () => `merge-payouts-${n++}-${Date.now()}`;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
const KIT = "issuepool-demo/xdc-wallet-kit";
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });
const unitsOf = (amount: string, c: Currency) => (c === "USDC" ? parseUnits(amount, 6) : parseEther(amount));

async function balanceOf(address: Address, c: Currency): Promise<bigint> {
  const { client, config } = stack.t.ctx.chain;
  if (c === "XDC") return client.getBalance({ address });
  return client.readContract({ address: c === "ROXN" ? config.contracts.roxn : config.contracts.usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });
}
const payouts = (issue: number) =>
  stack.t.ctx.database.db
    .select()
    .from(chainTransactions)
    .where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, LITE.id), eq(chainTransactions.issueNumber, issue)));
const bountyOf = async (issue: number) => (await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).json();

async function bountiedIssue(title: string, currency: Currency = "XDC", amount = "2") {
  const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title, author: "alice" });
  const number = (opened.issue as { number: number }).number;
  const res = await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${number}`, { bountyAmount: amount, currency, githubRepoFullName: LITE.fullName });
  expect(res.status, await res.clone().text()).toBe(200);
  return number;
}
async function pullRequest(author: string, body: string) {
  const pr = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author, title: body, body, head: `${author}:${key()}` });
  return (pr.pull_request as { number: number }).number;
}
/** Every delivery the emulator sent so far processed. */
async function settled() {
  await stack.github.controls.settle();
  await eventually(async () => {
    await stack.t.ctx.webhooks.runOnce();
    const pending = await stack.t.ctx.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, "pending"));
    return pending.length === 0 ? true : undefined;
  }, 20_000, "deliveries processed");
}

beforeAll(async () => {
  stack = await startTestStack({ workers: true });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  grace = await stack.signUp("grace", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "200", roxn: "200", usdc: "200" });
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  expect((await (await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } })).json()).success).toBe(true);
  expect((await money(alice, `/api/blockchain/repository/${LITE.id}/fund`, { amountXdc: "50", repositoryFullName: LITE.fullName })).status).toBe(200);
  for (const token of ["roxn", "usdc"]) {
    expect((await money(alice, `/api/blockchain/approve-${token}`, { amount: "50" })).status).toBe(200);
    const funded = await money(alice, `/api/blockchain/fund-${token}/${LITE.id}`, { [`${token}Amount`]: "50", repositoryFullName: LITE.fullName });
    expect(funded.status, await funded.clone().text()).toBe(200);
  }
  await stack.t.ctx.indexer.catchUp();
}, 120_000);
afterAll(() => stack?.stop());

describe("a merged pull request that fixes a bountied issue", () => {
  for (const currency of ["XDC", "ROXN", "USDC"] as const) {
    test(`pays its author in ${currency}, once`, async () => {
      const issue = await bountiedIssue(`Paid in ${currency}`, currency, "2.5");
      const before = await balanceOf(bob.wallet, currency);
      await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: await pullRequest("bob", `Fixes #${issue}`), actor: "alice" });
      await eventually(async () => ((await balanceOf(bob.wallet, currency)) === before + unitsOf("2.5", currency) ? true : undefined), 20_000, `${currency} payout`);
      await settled();
      await eventually(async () => ((await bountyOf(issue)).status === "paid" ? true : undefined), 20_000, "mirrored");
      expect(await payouts(issue)).toHaveLength(1);
      expect(await bountyOf(issue)).toMatchObject({ status: "paid", state: "paid", currency });
    }, 60_000);
  }

  test("closed without merging pays nothing; the bounty stays open", async () => {
    const issue = await bountiedIssue("A pull request that is closed");
    const before = await balanceOf(bob.wallet, "XDC");
    await stack.github.controls.closePullRequest({ repo: LITE.fullName, number: await pullRequest("bob", `Fixes #${issue}`), actor: "alice" });
    await settled();
    expect(await payouts(issue)).toHaveLength(0);
    expect(await balanceOf(bob.wallet, "XDC")).toBe(before);
    expect(await bountyOf(issue)).toMatchObject({ status: "open", state: "open" });
  }, 60_000);

  test("a reference to an issue of another repository pays nothing here, even with the same number", async () => {
    // An issue of LITE and one of another repository with the same number.
    let here = await bountiedIssue("Same number, this repository");
    let there = Number(((await stack.github.controls.openIssue({ repo: KIT, title: "Same number, elsewhere", author: "alice" })).issue as { number: number }).number);
    while (here !== there) {
      if (here < there) here = await bountiedIssue("Same number, this repository");
      else there = Number(((await stack.github.controls.openIssue({ repo: KIT, title: "Same number, elsewhere", author: "alice" })).issue as { number: number }).number);
    }
    await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: await pullRequest("bob", `Fixes ${KIT}#${there}`), actor: "alice" });
    await settled();
    expect(await payouts(here)).toHaveLength(0);
    expect(await bountyOf(here)).toMatchObject({ status: "open" });
  }, 60_000);

  test("two pull requests for one issue: the first merged is paid, the second pays nothing", async () => {
    const issue = await bountiedIssue("Two fixes");
    const first = await pullRequest("bob", `Fixes #${issue}`);
    const second = await pullRequest("grace", `Closes #${issue}`);
    const graceBefore = await balanceOf(grace.wallet, "XDC");
    await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: first, actor: "alice" });
    await eventually(async () => ((await bountyOf(issue)).status === "paid" ? true : undefined), 20_000, "paid");
    await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: second, actor: "alice" });
    await settled();
    expect(await payouts(issue)).toHaveLength(1);
    expect(await bountyOf(issue)).toMatchObject({ status: "paid", recipient: expect.any(String) });
    expect(await balanceOf(grace.wallet, "XDC")).toBe(graceBefore);
    const paid = await stack.t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.issueNumber, issue)));
    expect(JSON.parse(paid[0]!.intent).contributor.toLowerCase()).toBe(bob.wallet.toLowerCase());
  }, 60_000);
});
