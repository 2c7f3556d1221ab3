import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { parseEther, type Address } from "viem";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { chainTransactions } from "../../../db/schema/index.ts";
import { startMailSink, type MailSink } from "../../../testing/dev-tools.ts";
import { refundDueBoosts } from "../funding/boosts.ts";

/**
 * Bounties awaiting the pool manager's decision (issue 11): an issue closed
 * as completed with no paying pull request, or closed as not planned while a
 * contributor is registered, is neither cancelled nor left advertised; the
 * pool manager is told (page, dashboard, e-mail) and releases or cancels.
 * Over HTTP, with the webhooks GitHub (the emulator) sends.
 */
let stack: TestStack;
let sink: MailSink;
let alice: TestSession & { wallet: Address }; // pool manager of LITE
let bob: TestSession & { wallet: Address }; // contributor
let n = 0;
const key = () => `awaiting-test-${n++}-${Date.now()}`;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };

const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });
const poolInfo = async () => (await call(stack.t, `/api/blockchain/pool-info/${LITE.id}`, { as: alice })).json();
const xdcPool = async () => parseEther((await poolInfo()).xdcPoolRewards);
const stateOf = async (issue: number) => ((await poolInfo()).issues as { issueId: number; state: string }[]).find((b) => b.issueId === issue)?.state;
const waitState = (issue: number, state: string) => eventually(async () => ((await stateOf(issue)) === state ? true : undefined), 20_000, `state ${state}`);
const payouts = (issue: number) =>
  stack.t.ctx.database.db
    .select()
    .from(chainTransactions)
    .where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, LITE.id), eq(chainTransactions.issueNumber, issue)));
async function botComment(issue: number) {
  const comments = (await (await fetch(`${stack.github.apiUrl}/repos/${LITE.fullName}/issues/${issue}/comments`)).json()) as { body: string; user: { type: string } }[];
  return comments.find((c) => c.user.type === "Bot")?.body ?? "";
}
const waitComment = (issue: number, text: string) => eventually(async () => ((await botComment(issue)).includes(text) ? true : undefined), 20_000, `comment: ${text}`);

async function bountiedIssue(title: string, amount = "3") {
  const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title, author: "alice" });
  const number = (opened.issue as { number: number }).number;
  const res = await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${number}`, { bountyAmount: amount, isRoxn: false, githubRepoFullName: LITE.fullName });
  expect(res.status, await res.clone().text()).toBe(200);
  await waitState(number, "open");
  return number;
}
async function bobWorksOn(issue: number) {
  expect((await call(stack.t, "/api/blockchain/register", { as: bob, body: { issueId: issue, repoId: LITE.id } })).status).toBe(200);
}

beforeAll(async () => {
  sink = await startMailSink();
  stack = await startTestStack({ workers: true, env: { SMTP_URL: sink.smtpUrl } });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "200" });
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  expect((await (await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } })).json()).success).toBe(true);
  expect((await money(alice, `/api/blockchain/repository/${LITE.id}/fund`, { amountXdc: "100", repositoryFullName: LITE.fullName })).status).toBe(200);
  await eventually(async () => ((await xdcPool()) === parseEther("99.5") ? true : undefined), 15_000, "pool");
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await sink?.stop();
});

describe("closed as completed without a paying pull request", () => {
  test("awaits the decision (not advertised, e-mail, bot comment), then released by login to someone without a wallet: held, paid once when they register", async () => {
    const issue = await bountiedIssue("Fixed outside a pull request", "4");
    const since = Date.now();
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "completed", actor: "alice" });
    await waitState(issue, "awaiting");
    // Not advertised: the public figures leave it out and show it apart.
    const unified = await (await call(stack.t, `/api/public/unified-repo/${LITE.fullName}`)).json();
    expect(unified.bounties.map((b: { issueNumber: number }) => b.issueNumber)).not.toContain(issue);
    expect(unified.blockchain.awaiting.XDC).toBe("4");
    expect(((await (await call(stack.t, `/api/repos/${LITE.id}/rewards`)).json()).rewards as { issueNumber: number }[]).map((r) => r.issueNumber)).not.toContain(issue);
    // The pool manager hears of it: the dashboard's list, one e-mail, the bot's comment.
    const mine = await (await call(stack.t, "/api/blockchain/awaiting-decisions", { as: alice })).json();
    expect(mine.bounties).toContainEqual(expect.objectContaining({ repoId: LITE.id, issueNumber: issue, reason: "closed_completed", amount: "4", currency: "XDC" }));
    expect((await call(stack.t, "/api/blockchain/awaiting-decisions", { as: bob })).status).toBe(200);
    expect((await (await call(stack.t, "/api/blockchain/awaiting-decisions", { as: bob })).json()).bounties).toEqual([]);
    const mail = await sink.waitFor((m) => m.to.includes("alice@example.com") && m.subject === `A bounty of ${LITE.fullName} awaits your decision` && Date.parse(m.receivedAt) >= since);
    expect(mail.text).toContain(`Issue #${issue} "Fixed outside a pull request" of ${LITE.fullName} was closed as completed`);
    await waitComment(issue, "**Awaiting decision**");
    expect(await botComment(issue)).not.toContain("Nobody yet");

    // Released to erin, who has never signed in: held for her.
    const notAPerson = await money(alice, `/api/blockchain/distribute-bounty/${LITE.id}/${issue}`, { contributorLogin: "issuepool-demo", githubRepoFullName: LITE.fullName });
    expect(notAPerson.status).toBe(400);
    expect((await money(alice, `/api/blockchain/distribute-bounty/${LITE.id}/${issue}`, { contributorLogin: "nobody-here", githubRepoFullName: LITE.fullName })).status).toBe(404);
    expect((await money(bob, `/api/blockchain/distribute-bounty/${LITE.id}/${issue}`, { contributorLogin: "erin", githubRepoFullName: LITE.fullName })).status).toBe(403);
    const held = await money(alice, `/api/blockchain/distribute-bounty/${LITE.id}/${issue}`, { contributorLogin: "erin", githubRepoFullName: LITE.fullName });
    expect(await held.json()).toMatchObject({ status: "held", heldFor: "erin" });
    expect(await stateOf(issue)).toBe("held");
    await waitComment(issue, "**Held for @erin**");
    // Owed to erin now: neither another release nor a cancellation.
    expect((await money(alice, `/api/blockchain/distribute-bounty/${LITE.id}/${issue}`, { contributorAddress: bob.wallet, githubRepoFullName: LITE.fullName })).status).toBe(409);
    expect((await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName })).status).toBe(409);

    const erin = await stack.signUp("erin", "contributor");
    await eventually(async () => ((await stack.t.ctx.chain.client.getBalance({ address: erin.wallet })) === parseEther("4") ? true : undefined), 20_000, "erin paid");
    await waitState(issue, "paid");
    await waitComment(issue, "**Paid** 4.0000 XDC to @erin");
    await stack.t.ctx.webhooks.runOnce();
    expect(await payouts(issue)).toHaveLength(1);
    expect(await botComment(issue)).not.toContain("Nobody yet");
  }, 120_000);

  test("a bounty whose merged pull request pays it never awaits", async () => {
    const issue = await bountiedIssue("Fixed by bob's pull request", "2");
    const pr = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author: "bob", title: "Fix", body: `Fixes #${issue}`, head: "bob:fix" });
    await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: (pr.pull_request as { number: number }).number, actor: "alice" });
    await waitState(issue, "paid");
    await stack.github.controls.settle();
    await stack.t.ctx.webhooks.runOnce();
    expect((await (await call(stack.t, "/api/blockchain/awaiting-decisions", { as: alice })).json()).bounties.map((b: { issueNumber: number }) => b.issueNumber)).not.toContain(issue);
  }, 60_000);
});

describe("closed as not planned while a contributor works on it", () => {
  test("awaits the decision instead of being cancelled; reopening makes it claimed again; then released to the claimant, once", async () => {
    const issue = await bountiedIssue("Dropped while bob works on it");
    await bobWorksOn(issue);
    await waitState(issue, "claimed");
    const before = await xdcPool();
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "not_planned", actor: "alice" });
    await waitState(issue, "awaiting");
    expect(await xdcPool()).toBe(before);

    await stack.github.controls.reopenIssue({ repo: LITE.fullName, number: issue, actor: "alice" });
    await waitState(issue, "claimed");
    // While open and claimed, the old rule holds: no cancelling once someone works on it.
    const refused = await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName });
    expect(refused.status).toBe(409);

    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "completed", actor: "alice" });
    await waitState(issue, "awaiting");
    const bobBefore = await stack.t.ctx.chain.client.getBalance({ address: bob.wallet });
    const paid = await money(alice, `/api/blockchain/distribute-bounty/${LITE.id}/${issue}`, { contributorLogin: "bob", githubRepoFullName: LITE.fullName });
    expect(paid.status, await paid.clone().text()).toBe(200);
    await waitState(issue, "paid");
    expect(await stack.t.ctx.chain.client.getBalance({ address: bob.wallet })).toBe(bobBefore + parseEther("3"));
    // In bob's wallet history: the reward, with the repository, the issue's title and the transaction.
    await stack.t.ctx.indexer.catchUp();
    const { entries } = await (await call(stack.t, "/api/wallet/bounty-history", { as: bob })).json();
    expect(entries).toContainEqual(
      expect.objectContaining({ kind: "reward", currency: "XDC", amount: "3", repository: LITE.fullName, issueNumber: issue, issueTitle: "Dropped while bob works on it", transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) }),
    );
    expect((await (await call(stack.t, "/api/wallet/bounty-history", { as: alice })).json()).entries.some((e: { kind: string }) => e.kind === "reward")).toBe(false);
    const again = await money(alice, `/api/blockchain/distribute-bounty/${LITE.id}/${issue}`, { contributorLogin: "bob", githubRepoFullName: LITE.fullName });
    expect(again.status).toBe(409);
    expect(await payouts(issue)).toHaveLength(1);
  }, 120_000);

  test("cancelled by the pool manager although someone registered: bob's on-chain claim makes it a refund request, carried out once due; then there is no open bounty", async () => {
    const issue = await bountiedIssue("Dropped, bob's attempt not wanted");
    await bobWorksOn(issue);
    const { client, config } = stack.t.ctx.chain;
    const claimants = () => client.readContract({ address: config.contracts.rewards, abi: RepoRewardsAbi, functionName: "claimants", args: [BigInt(LITE.id), BigInt(issue)] });
    await eventually(async () => ((await claimants()).length > 0 ? true : undefined), 20_000, "bob's claim on-chain");
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "not_planned", actor: "alice" });
    await waitState(issue, "awaiting");
    const before = await xdcPool();
    // RepoRewards v2: a claimed bounty is refunded only CLAIM_CANCEL_DELAY after a visible request.
    const requested = await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName });
    expect(requested.status, await requested.clone().text()).toBe(200);
    expect((await requested.json()).message).toStartWith("Refund requested");
    expect(await xdcPool()).toBe(before);
    const early = await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName });
    expect(early.status).toBe(409);
    expect((await early.json()).message).toStartWith("The refund is already requested: the bounty returns to the pool after ");
    const delay = (await client.readContract({ address: config.contracts.rewards, abi: RepoRewardsAbi, functionName: "CLAIM_CANCEL_DELAY" })) as bigint;
    await stack.chain.rpc("evm_increaseTime", [Number(delay) + 1]);
    await stack.chain.rpc("evm_mine");
    // Due: the pool manager's cancel carries it out (the hourly pass would too: refunds.ts).
    const cancelled = await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName });
    expect(cancelled.status, await cancelled.clone().text()).toBe(200);
    expect((await cancelled.json()).message).toBe("Bounty cancelled; the amount is back in the pool");
    await eventually(async () => ((await xdcPool()) === before + parseEther("3") ? true : undefined), 20_000, "back in the pool");
    expect((await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).status).toBe(404);
    await waitComment(issue, "**Cancelled**");
    // In the pool manager's history: the refund to the pool.
    const { entries } = await (await call(stack.t, "/api/wallet/bounty-history", { as: alice })).json();
    expect(entries).toContainEqual(expect.objectContaining({ kind: "refund", amount: "3", repository: LITE.fullName, issueNumber: issue, issueTitle: "Dropped, bob's attempt not wanted" }));
    const second = await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName });
    expect(second.status).toBe(409);
    expect((await second.json()).message).toBe("There is no open bounty on this issue.");
  }, 90_000);

  test("with a funder on it: the pool manager's cancel of the closed issue's bounty ends it as a whole (not the pool's share only), and the funder gets exactly their share back", async () => {
    const issue = await bountiedIssue("Dropped with a funder on it");
    const carol = await stack.signUp("carol", "contributor");
    await stack.chain.fund(carol.wallet, { xdc: "20" });
    const boosted = await call(stack.t, `/api/funding/issues/alice/xdc-explorer-lite/${issue}/boosts`, { as: carol, body: { currency: "XDC", amount: "2" }, headers: { "Idempotency-Key": key() } });
    expect(boosted.status, await boosted.clone().text()).toBe(200);
    const { client, config } = stack.t.ctx.chain;
    const details = () => client.readContract({ address: config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(LITE.id), BigInt(issue)] });
    await eventually(async () => ((await details()).boosted > 0n ? true : undefined), 20_000, "carol's boost on-chain");
    await bobWorksOn(issue);
    await eventually(async () => ((await client.readContract({ address: config.contracts.rewards, abi: RepoRewardsAbi, functionName: "claimants", args: [BigInt(LITE.id), BigInt(issue)] })).length > 0 ? true : undefined), 20_000, "bob's claim on-chain");
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "not_planned", actor: "alice" });
    await waitState(issue, "awaiting");
    const before = await xdcPool();
    const requested = await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName });
    expect(requested.status, await requested.clone().text()).toBe(200);
    expect((await details()).cancelWhole).toBe(true);
    const delay = (await client.readContract({ address: config.contracts.rewards, abi: RepoRewardsAbi, functionName: "CLAIM_CANCEL_DELAY" })) as bigint;
    await stack.chain.rpc("evm_increaseTime", [Number(delay) + 1]);
    await stack.chain.rpc("evm_mine");
    const cancelled = await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName });
    expect(cancelled.status, await cancelled.clone().text()).toBe(200);
    expect((await cancelled.json()).message).toBe("Bounty cancelled; the amount is back in the pool");
    expect((await details()).status).toBe(3);
    await eventually(async () => ((await xdcPool()) === before + parseEther("3") ? true : undefined), 20_000, "back in the pool");
    // The hourly pass refunds carol exactly her share, once.
    const carolBefore = await client.getBalance({ address: carol.wallet });
    await refundDueBoosts(stack.t.ctx);
    await eventually(async () => ((await client.getBalance({ address: carol.wallet })) - carolBefore === parseEther("1.99") ? true : undefined), 20_000, "carol refunded");
    await refundDueBoosts(stack.t.ctx);
    expect((await client.getBalance({ address: carol.wallet })) - carolBefore).toBe(parseEther("1.99"));
  }, 120_000);

  test("with nobody on it, it goes straight back to the pool", async () => {
    const issue = await bountiedIssue("Dropped, nobody on it");
    const before = await xdcPool();
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "not_planned", actor: "alice" });
    await eventually(async () => ((await xdcPool()) === before + parseEther("3") ? true : undefined), 20_000, "refund");
  }, 60_000);
});
