import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createWalletClient, encodeFunctionData, http, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { chainTransactions, repositories, wallets } from "../../../db/schema/index.ts";
import { fixtureRepo } from "../../../testing/dev-tools.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { completeDueRefunds, executeDueOutflows } from "./refunds.ts";

/**
 * The server on RepoRewards v2 (issue 19), with caps small enough to reach:
 * Contribute records the claim on-chain through the outbox; a payout over
 * the daily cap is answered and mirrored as queued; the guardian's cancel
 * makes the bounty open again in the mirror.
 */
const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;
const UNIT = 10n ** 18n;
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession;
let bobWallet: Address;
let n = 0;
const key = () => `escrow-v2-${Date.now()}-${n++}`;

const money = (session: TestSession, path: string, body: Record<string, unknown>) =>
  call(stack.t, path, { as: session, body, headers: { "Idempotency-Key": key() } });
const settle = async () => {
  await stack.t.ctx.outbox.runOnce();
  for (const row of await stack.t.ctx.database.db.select().from(chainTransactions)) {
    if (row.status === "sent" || row.status === "signed" || row.status === "queued") await stack.t.ctx.outbox.waitForSettled(row.id, 10_000);
  }
  await stack.t.ctx.indexer.catchUp();
};
const rewards = () => stack.t.ctx.chain.config.contracts.rewards;

beforeAll(async () => {
  // 15 XDC per repository a day (the default is 10,000): the second 10 XDC payout of a day is over it.
  stack = await startTestStack({
    caps: {
      XDC: { perRepo: 15n * UNIT, total: 100n * UNIT },
      ROXN: { perRepo: 15n * UNIT, total: 100n * UNIT },
      USDC: { perRepo: 15_000_000n, total: 100_000_000n },
    },
  });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  bobWallet = (await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, bob.user.id)))[0]!.address as Address;
  await stack.chain.fund(alice.wallet, { xdc: "500" });
  await stack.t.ctx.database.db
    .insert(repositories)
    .values({ githubRepoId: REPO.id, fullName: FULL_NAME, fullNameKey: FULL_NAME.toLowerCase(), owner: REPO.owner, name: REPO.name, htmlUrl: `${stack.github.webUrl}/${FULL_NAME}` })
    .onConflictDoNothing();
  const funded = await money(alice, `/api/blockchain/repository/${REPO.id}/fund`, { amountXdc: "100", repositoryFullName: FULL_NAME });
  expect(funded.status).toBe(200);
  await settle();
}, 120_000);
afterAll(() => stack?.stop());

async function bountyOn(title: string, amount: string): Promise<number> {
  const issue = Number((await stack.github.controls.openIssue({ repo: FULL_NAME, title, author: "alice" })).issue.number);
  const res = await money(alice, `/api/blockchain/allocate-bounty/${REPO.id}/${issue}`, { githubRepoFullName: FULL_NAME, bountyAmount: amount, isRoxn: false });
  expect(res.status).toBe(200);
  return issue;
}

describe("the server on RepoRewards v2", () => {
  test("Contribute records the contributor's claim on the bounty on-chain", async () => {
    const issue = await bountyOn("Claimed on-chain", "2");
    const res = await call(stack.t, "/api/blockchain/register", { as: bob, body: { role: "contributor", issueId: issue, repoId: REPO.id } });
    expect(res.status).toBe(200);
    await settle();
    const claimants = await stack.t.ctx.chain.client.readContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "claimants", args: [BigInt(REPO.id), BigInt(issue)] });
    expect(claimants).toEqual([bobWallet]);
    // Registering again sends nothing more.
    await call(stack.t, "/api/blockchain/register", { as: bob, body: { role: "contributor", issueId: issue, repoId: REPO.id } });
    const claimRows = (await stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.kind, "claim_bounty"))).filter((r) => r.issueNumber === issue);
    expect(claimRows).toHaveLength(1);
  }, 60_000);

  test("a payout over the daily cap is answered and shown as queued; the guardian's cancel opens the bounty again", async () => {
    const first = await bountyOn("Paid at once", "10");
    const second = await bountyOn("Over the cap", "10");
    const paid = await money(alice, `/api/blockchain/distribute-bounty/${REPO.id}/${first}`, { contributorAddress: bobWallet });
    expect(await paid.json()).toMatchObject({ status: "confirmed", message: "Bounty paid" });

    const before = await stack.t.ctx.chain.client.getBalance({ address: bobWallet });
    const queued = await money(alice, `/api/blockchain/distribute-bounty/${REPO.id}/${second}`, { contributorAddress: bobWallet });
    const body = await queued.json();
    expect(queued.status).toBe(200);
    expect(body.status).toBe("confirmed");
    expect(body.message).toMatch(/^Bounty payment queued: it is over the contract's daily limit/);
    expect(Date.parse(body.queuedUntil) - Date.now()).toBeGreaterThan(47 * 3600 * 1000);
    expect(await stack.t.ctx.chain.client.getBalance({ address: bobWallet })).toBe(before);
    const mirrored = await (await call(stack.t, `/api/blockchain/issue-bounty/${REPO.id}/${second}`)).json();
    expect(mirrored).toMatchObject({ status: "queued", xdcAmount: "10" });

    // The guardian stops it: the bounty is open again, in the contract and in the mirror.
    const id = await stack.t.ctx.chain.client.readContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "nextOutflowId" });
    const guardian = createWalletClient({ account: privateKeyToAccount(stack.chain.guardianKey), chain: stack.t.ctx.chain.config.chain, transport: http(stack.chain.anvil.rpcUrl) });
    await stack.t.ctx.chain.client.waitForTransactionReceipt({ hash: await guardian.writeContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "cancelOutflow", args: [id] }) });
    await stack.t.ctx.indexer.catchUp();
    expect(await (await call(stack.t, `/api/blockchain/issue-bounty/${REPO.id}/${second}`)).json()).toMatchObject({ status: "open", xdcAmount: "10" });
  }, 60_000);

  test("a claimed bounty's refund (an issue closed as not planned) is only requested, and completed once its 3 days are over", async () => {
    const issue = await bountyOn("Claimed, then not planned", "3");
    expect((await call(stack.t, "/api/blockchain/register", { as: bob, body: { role: "contributor", issueId: issue, repoId: REPO.id } })).status).toBe(200);
    await settle();
    // What the issues webhook sends for an issue closed as not planned.
    const { tx } = await stack.t.ctx.outbox.submitOnce({
      userId: null,
      idempotencyKey: `not-planned-test:${issue}`,
      request: { issue },
      kind: "cancel_bounty",
      githubRepoId: REPO.id,
      issueNumber: issue,
      intent: { repoId: REPO.id, issueNumber: issue, reason: "issue closed as not planned" },
      signer: { kind: "operator" },
      to: rewards(),
      data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "cancelBounty", args: [BigInt(REPO.id), BigInt(issue)] }),
    });
    expect((await stack.t.ctx.outbox.waitForSettled(tx, 10_000)).status).toBe("confirmed");
    await settle();
    expect(await (await call(stack.t, `/api/blockchain/issue-bounty/${REPO.id}/${issue}`)).json()).toMatchObject({ status: "open" });
    expect(await completeDueRefunds(stack.t.ctx)).toBe(0);

    await stack.chain.rpc("evm_increaseTime", [3 * 24 * 3600 + 1]);
    await stack.chain.rpc("evm_mine");
    expect(await completeDueRefunds(stack.t.ctx)).toBe(1);
    await settle();
    expect((await call(stack.t, `/api/blockchain/issue-bounty/${REPO.id}/${issue}`)).status).toBe(404); // cancelled: back in the pool
  }, 60_000);

  test("a queued payout the platform sent is run by it once its 2 days are over, and paid exactly once", async () => {
    const issue = await bountyOn("Over the cap, then due", "20");
    const queued = await money(alice, `/api/blockchain/distribute-bounty/${REPO.id}/${issue}`, { contributorAddress: bobWallet });
    expect((await queued.json()).message).toMatch(/^Bounty payment queued/);
    expect(await executeDueOutflows(stack.t.ctx)).toBe(0);
    const before = await stack.t.ctx.chain.client.getBalance({ address: bobWallet });
    await stack.chain.rpc("evm_increaseTime", [2 * 24 * 3600 + 1]);
    await stack.chain.rpc("evm_mine");
    expect(await executeDueOutflows(stack.t.ctx)).toBe(1);
    await settle();
    expect((await stack.t.ctx.chain.client.getBalance({ address: bobWallet })) - before).toBe(20n * UNIT);
    expect(await (await call(stack.t, `/api/blockchain/issue-bounty/${REPO.id}/${issue}`)).json()).toMatchObject({ status: "paid" });
    // Run again: nothing more is sent.
    expect(await executeDueOutflows(stack.t.ctx)).toBe(0);
  }, 60_000);
});
