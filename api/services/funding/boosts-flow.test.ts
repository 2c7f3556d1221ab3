import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { parseEther, type Address } from "viem";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { bountyBoosts, chainTransactions, communityBounties, wallets } from "../../../db/schema/index.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { refundDueBoosts, settleBoosts } from "./boosts.ts";

/**
 * Issue 29 over HTTP, webhooks and a real chain: bob and carol boost alice's bounty; the totals and funders
 * show; an expired boost returns exactly to its funder; a not-planned closure refunds every funder exactly;
 * nothing is paid twice; the mirror equals the chain.
 */
let stack: TestStack;
let alice: TestSession;
let bob: TestSession;
let carol: TestSession;
let n = 0;
const key = () => `boost-test-${n++}-${Date.now()}`;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
const DAY = 24 * 3600_000;

async function register(session: TestSession, role: "poolmanager" | "contributor") {
  const res = await call(stack.t, "/api/auth/register", { as: session, body: { role, email: `${session.user.username}@example.com` } });
  expect(res.status).toBe(200);
  session.user.role = role;
}
const walletOf = async (s: TestSession) => (await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, s.user.id)))[0]!.address as Address;
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });
const balance = (address: Address) => stack.t.ctx.chain.client.getBalance({ address });
const shareOnChain = async (issue: number, funder: Address) =>
  ((await stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBoost", args: [BigInt(LITE.id), BigInt(issue), funder] })) as readonly [bigint, bigint, bigint])[0];

async function openIssue(title: string): Promise<number> {
  const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title, author: "alice" });
  return (opened.issue as { number: number }).number;
}
const boost = (s: TestSession, issue: number, body: Record<string, unknown>, idempotencyKey = key()) =>
  call(stack.t, `/api/funding/issues/alice/xdc-explorer-lite/${issue}/boosts`, { as: s, body, headers: { "Idempotency-Key": idempotencyKey } });
/** The bot's comment on an issue, read back from GitHub (the emulator). */
async function botComment(issue: number): Promise<string> {
  const comments = (await (await fetch(`${stack.github.apiUrl}/repos/${LITE.fullName}/issues/${issue}/comments`)).json()) as { body: string; user: { type: string } }[];
  return comments.filter((c) => c.user.type === "Bot").at(-1)?.body ?? "";
}
const funders = async (issue: number) => (await call(stack.t, `/api/funding/issues/alice/xdc-explorer-lite/${issue}`)).json();
/** Boost rows of an issue, after the mirror pass. */
async function boostRows(issue: number) {
  await settleBoosts(stack.t.ctx);
  return stack.t.ctx.database.db.select().from(bountyBoosts).where(and(eq(bountyBoosts.githubRepoId, LITE.id), eq(bountyBoosts.issueNumber, issue)));
}
const until = (issue: number, what: string, ok: (rows: Awaited<ReturnType<typeof boostRows>>) => boolean) =>
  eventually(async () => {
    const rows = await boostRows(issue);
    return ok(rows) ? rows : undefined;
  }, 30_000, what);

let bobAddress: Address;
let carolAddress: Address;

beforeAll(async () => {
  stack = await startTestStack({ workers: true });
  alice = await stack.signIn("alice");
  bob = await stack.signIn("bob");
  carol = await stack.signIn("carol");
  await register(alice, "poolmanager");
  await register(bob, "contributor");
  await register(carol, "contributor");
  await stack.chain.fund(await walletOf(alice), { xdc: "200" });
  bobAddress = await walletOf(bob);
  carolAddress = await walletOf(carol);
  await stack.chain.fund(bobAddress, { xdc: "100" });
  await stack.chain.fund(carolAddress, { xdc: "100" });
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  expect((await (await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } })).json()).success).toBe(true);
  expect((await money(alice, `/api/blockchain/repository/${LITE.id}/fund`, { amountXdc: "100", repositoryFullName: LITE.fullName })).status).toBe(200);
  // The pool must be funded (confirmed and indexed) before a bounty can be set from it.
  await eventually(async () => ((await (await call(stack.t, `/api/blockchain/pool-info/${LITE.id}`)).json()).xdcPoolRewards === "99.5" ? true : undefined), 30_000, "LITE pool");
}, 120_000);
afterAll(() => stack?.stop());

describe("boosts: bob and carol fund alice's bounty", () => {
  test("funders and totals show; an expired boost returns to its funder; a not-planned closure refunds every funder; nothing is paid twice", async () => {
    const issue = await openIssue("Dark mode");
    expect((await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, { bountyAmount: "10", isRoxn: false, githubRepoFullName: LITE.fullName })).status).toBe(200);
    await eventually(async () => ((await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).status === 200 ? true : undefined), 30_000, "bounty mirrored");

    // The bounty is in XDC: a boost in another currency is refused, so is one under the minimum.
    expect((await boost(bob, issue, { currency: "ROXN", amount: "5" })).status).toBe(400);
    const small = await boost(bob, issue, { currency: "XDC", amount: "0.5" });
    expect(small.status).toBe(400);
    expect((await small.json()).message).toBe("The minimum boost is 1 XDC.");

    const bobKey = key();
    const expiresAt = new Date(Date.now() + 2 * DAY).toISOString();
    const bobRes = await boost(bob, issue, { currency: "XDC", amount: "5", expiresAt }, bobKey);
    expect(bobRes.status).toBe(200);
    const bobBody = await bobRes.json();
    expect(bobBody.boost).toMatchObject({ funder: "bob", amount: "4.975", fee: "0.025", currency: "XDC" });
    // A replay answers the first boost and sends nothing more.
    const replay = await boost(bob, issue, { currency: "XDC", amount: "5", expiresAt }, bobKey);
    expect((await replay.json()).boost.id).toBe(bobBody.boost.id);
    expect((await boost(carol, issue, { currency: "XDC", amount: "3", anonymous: true })).status).toBe(200);

    await until(issue, "both boosts active", (rows) => rows.length === 2 && rows.every((r) => r.status === "active"));
    const shown = await funders(issue);
    expect(shown).toEqual({
      currency: "XDC",
      boosted: "7.96",
      funders: [
        expect.objectContaining({ funder: "bob", anonymous: false, amount: "4.975", status: "active", expiresAt: expect.any(String) }),
        expect.objectContaining({ funder: null, anonymous: true, amount: "2.985", status: "active", expiresAt: null }),
      ],
    });
    // Wherever the bounty shows: the pool's bounty list has the funders beside the amount.
    const info = await (await call(stack.t, `/api/blockchain/pool-info/${LITE.id}`)).json();
    expect(info.issues.find((b: { issueId: number }) => b.issueId === issue)).toMatchObject({ xdcAmount: "10", boosted: "7.96", total: "17.96", funders: [expect.objectContaining({ funder: "bob" }), expect.objectContaining({ funder: null })] });
    // The issue's badge counts them too.
    const badge = await (await call(stack.t, `/api/badges/alice/xdc-explorer-lite/issues/${issue}.json`)).json();
    expect(badge.message).toBe("17.9600 XDC · 2 funders");
    // The bot's one comment names the funders and the total (10 + 4.975 + 2.985).
    await eventually(async () => {
      const body = await botComment(issue);
      return body.includes("### Issuepool bounty: 17.9600 XDC") &&
        body.includes("**17.9600 XDC** (10.0000 XDC from the pool + 7.9600 XDC from 2 funders)") &&
        body.includes("- @bob: 4.9750 XDC") &&
        body.includes("- an anonymous funder: 2.9850 XDC") &&
        !body.includes("@carol")
        ? true
        : undefined;
    }, 30_000, "funders in the bot comment");
    // The mirror equals the chain: each funder's share.
    expect(await shareOnChain(issue, bobAddress)).toBe(parseEther("4.975"));
    expect(await shareOnChain(issue, carolAddress)).toBe(parseEther("2.985"));
    // Carol sees her own boost with her name in her history.
    const mine = await (await call(stack.t, "/api/funding/my-boosts", { as: carol })).json();
    expect(mine.boosts[0]).toMatchObject({ funder: "carol", anonymous: true, repoId: LITE.id, issueNumber: issue });

    // Bob's expiry passes (on the chain's clock): the hourly pass returns exactly his share, once.
    await stack.chain.rpc("evm_increaseTime", [3 * 24 * 3600]);
    await stack.chain.rpc("evm_mine", []);
    const bobBefore = await balance(bobAddress);
    expect(await refundDueBoosts(stack.t.ctx, Date.now() + 3 * DAY)).toBe(1);
    await until(issue, "bob refunded", (rows) => rows.find((r) => r.userId === bob.user.id)?.status === "refunded");
    expect((await balance(bobAddress)) - bobBefore).toBe(parseEther("4.975"));
    expect(await shareOnChain(issue, bobAddress)).toBe(0n);
    // Again: nothing more is sent.
    expect(await refundDueBoosts(stack.t.ctx, Date.now() + 3 * DAY)).toBe(0);
    expect((await balance(bobAddress)) - bobBefore).toBe(parseEther("4.975"));
    expect((await funders(issue)).funders).toHaveLength(1);
    await eventually(async () => ((await botComment(issue)).includes("- @bob: 4.9750 XDC") && (await botComment(issue)).includes("refunded to its funder (its expiry passed)") ? true : undefined), 30_000, "refund in the bot comment");
    const bobHistory = await (await call(stack.t, "/api/funding/my-boosts", { as: bob })).json();
    expect(bobHistory.boosts[0]).toMatchObject({ status: "refunded", refundReason: "expired" });

    // Closed as not planned: the pool's share goes back to the pool, carol gets exactly her share.
    const carolBefore = await balance(carolAddress);
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "not_planned", actor: "alice" });
    await until(issue, "carol refunded", (rows) => rows.find((r) => r.userId === carol.user.id)?.status === "refunded");
    expect((await balance(carolAddress)) - carolBefore).toBe(parseEther("2.985"));
    expect((await boostRows(issue)).find((r) => r.userId === carol.user.id)!.refundReason).toBe("not_planned");
    // Nothing paid twice: another pass, and each boost has exactly one confirmed refund.
    await refundDueBoosts(stack.t.ctx, Date.now() + 3 * DAY);
    expect((await balance(carolAddress)) - carolBefore).toBe(parseEther("2.985"));
    // (The boost row turns refunded from the indexed event, which can come before the outbox marks its transaction confirmed.)
    const confirmedRefunds = () =>
      stack.t.ctx.database.db
        .select()
        .from(chainTransactions)
        .where(and(eq(chainTransactions.kind, "refund_boost"), eq(chainTransactions.issueNumber, issue), eq(chainTransactions.status, "confirmed")));
    await eventually(async () => ((await confirmedRefunds()).length >= 2 ? true : undefined), 30_000, "both refunds confirmed");
    expect(await confirmedRefunds()).toHaveLength(2);
  }, 120_000);

  test("the pool manager's cancel of a boosted bounty takes back the pool's share only; a not-planned closure then refunds the funder exactly", async () => {
    const issue = await openIssue("Cancel only the pool's part");
    const details = async () => stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(LITE.id), BigInt(issue)] });
    const poolInfo = async () => (await call(stack.t, `/api/blockchain/pool-info/${LITE.id}`)).json();
    expect((await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, { bountyAmount: "5", isRoxn: false, githubRepoFullName: LITE.fullName })).status).toBe(200);
    await eventually(async () => ((await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).status === 200 ? true : undefined), 30_000, "bounty mirrored");
    expect((await boost(carol, issue, { currency: "XDC", amount: "2" })).status).toBe(200);
    await until(issue, "carol's boost active", (rows) => rows.length === 1 && rows[0]!.status === "active");
    const poolBefore = parseEther((await poolInfo()).xdcPoolRewards);

    const cancelled = await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName });
    expect(cancelled.status).toBe(200);
    expect((await cancelled.json()).message).toContain("the funders' shares stay on the issue");
    // On-chain: still open, on carol's share alone; the pool has its 5 XDC back.
    const after = await details();
    expect({ status: after.status, poolShare: after.poolShare, boosted: after.boosted, amount: after.amount }).toEqual({ status: 1, poolShare: 0n, boosted: parseEther("1.99"), amount: parseEther("1.99") });
    expect(await shareOnChain(issue, carolAddress)).toBe(parseEther("1.99"));
    expect((await boostRows(issue))[0]!.status).toBe("active");
    // The mirror says the same: the pool's share is 0, the funders' shares on top; the pool holds the 5 XDC again.
    const info = await poolInfo();
    expect(parseEther(info.xdcPoolRewards) - poolBefore).toBe(parseEther("5"));
    expect(info.issues.find((b: { issueId: number }) => b.issueId === issue)).toMatchObject({ status: "open", xdcAmount: "0", boosted: "1.99" });
    // Nothing of the pool's is left to cancel.
    expect((await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName })).status).toBe(409);
    // A community bounty from now on, as a first boost on an issue without a bounty opens one: the original client's
    // list and /explore show it once, with carol's share (not the pool's 0).
    const communityOf = async () =>
      ((await (await call(stack.t, `/api/community-bounties?limit=100&repo=${LITE.fullName}`)).json()).bounties as { githubIssueNumber: number; amount: string; status: string; createdByGithubUsername: string }[]).filter((b) => b.githubIssueNumber === issue);
    expect(await communityOf()).toEqual([expect.objectContaining({ amount: "1.99000000", status: "funded", createdByGithubUsername: "carol" })]);
    const explored = await (await call(stack.t, `/api/explore?limit=100&repo=${LITE.fullName.toLowerCase()}`)).json();
    expect(explored.bounties.filter((b: { issueNumber: number }) => b.issueNumber === issue).map((b: { amount: string }) => b.amount)).toEqual(["1.99"]);

    // Closed as not planned: the whole bounty ends and carol gets exactly her share back, once.
    const carolBefore = await balance(carolAddress);
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "not_planned", actor: "alice" });
    await until(issue, "carol refunded", (rows) => rows[0]?.status === "refunded");
    expect((await balance(carolAddress)) - carolBefore).toBe(parseEther("1.99"));
    expect((await details()).status).toBe(3);
    await refundDueBoosts(stack.t.ctx, Date.now() + 3 * DAY);
    expect((await balance(carolAddress)) - carolBefore).toBe(parseEther("1.99"));
    expect(parseEther((await poolInfo()).xdcPoolRewards) - poolBefore).toBe(parseEther("5"));
    // Every share gone back: the community bounty is over too.
    expect((await communityOf()).map((b) => b.status)).toEqual(["refunded"]);
  }, 120_000);

  test("closed as not planned, reopened, boosted again (a new round on-chain), closed as not planned again: the funder is refunded", async () => {
    const issue = await openIssue("Twice not planned");
    expect((await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, { bountyAmount: "1", isRoxn: false, githubRepoFullName: LITE.fullName })).status).toBe(200);
    await eventually(async () => ((await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).status === 200 ? true : undefined), 30_000, "bounty mirrored");
    const status = async () => (await stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBounty", args: [BigInt(LITE.id), BigInt(issue)] }))[2];
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "not_planned", actor: "alice" });
    await eventually(async () => ((await status()) === 3 ? true : undefined), 30_000, "first cancellation");
    await stack.github.controls.reopenIssue({ repo: LITE.fullName, number: issue, actor: "alice" });
    expect((await boost(carol, issue, { currency: "XDC", amount: "2" })).status).toBe(200);
    await until(issue, "carol's boost active", (rows) => rows.length === 1 && rows[0]!.status === "active");
    const carolBefore = await balance(carolAddress);
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "not_planned", actor: "alice" });
    await until(issue, "carol refunded", (rows) => rows[0]?.status === "refunded");
    expect((await balance(carolAddress)) - carolBefore).toBe(parseEther("1.99"));
    expect(await status()).toBe(3);
  }, 120_000);

  test("the pool manager's cancel of a bounty without boosts ends it, as before", async () => {
    const issue = await openIssue("Cancel a plain bounty");
    expect((await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, { bountyAmount: "1", isRoxn: false, githubRepoFullName: LITE.fullName })).status).toBe(200);
    await eventually(async () => ((await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).status === 200 ? true : undefined), 30_000, "bounty mirrored");
    const cancelled = await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${issue}`, { githubRepoFullName: LITE.fullName });
    expect(cancelled.status).toBe(200);
    expect((await cancelled.json()).message).toBe("Bounty cancelled; the amount is back in the pool");
    const [, , status] = await stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBounty", args: [BigInt(LITE.id), BigInt(issue)] });
    expect(status).toBe(3);
  }, 60_000);

  test("the first boost of an issue without a bounty opens a community bounty in its currency; its funder takes it back", async () => {
    const issue = await openIssue("Export as CSV");
    const res = await boost(bob, issue, { currency: "XDC", amount: "2" });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.communityBountyId).toBeNumber();
    await until(issue, "active", (rows) => rows[0]?.status === "active");
    const [community] = await stack.t.ctx.database.db.select().from(communityBounties).where(eq(communityBounties.id, body.communityBountyId));
    expect(community).toMatchObject({ status: "funded", currency: "XDC", title: "Export as CSV", createdByLogin: "bob" });

    // Carol cannot cancel bob's boost: 404, nothing changes.
    expect((await call(stack.t, `/api/funding/boosts/${body.boost.id}`, { as: carol, method: "DELETE" })).status).toBe(404);
    const before = await balance(bobAddress);
    const cancel = await call(stack.t, `/api/funding/boosts/${body.boost.id}`, { as: bob, method: "DELETE" });
    expect(cancel.status).toBe(200);
    await until(issue, "withdrawn", (rows) => rows[0]?.status === "refunded");
    // Bob's own transaction: his share back minus the gas he paid for it.
    const gained = (await balance(bobAddress)) - before;
    expect(gained > parseEther("1.98") && gained <= parseEther("1.99")).toBe(true);
    const [after] = await stack.t.ctx.database.db.select().from(communityBounties).where(eq(communityBounties.id, body.communityBountyId));
    expect(after!.status).toBe("refunded");
  }, 120_000);

  test("a community bounty on a repository that is not registered: created, paid by its creator, claimed by the merged fix's author and paid once", async () => {
    const HELLO = "dave/hello-xdc";
    const opened = await stack.github.controls.openIssue({ repo: HELLO, title: "Add a README", author: "dave" });
    const issue = (opened.issue as { number: number }).number;
    const created = await call(stack.t, "/api/community-bounties", {
      as: carol,
      body: { githubRepoOwner: "dave", githubRepoName: "hello-xdc", githubIssueNumber: issue, githubIssueId: `${HELLO}#${issue}`, githubIssueUrl: `https://github.com/${HELLO}/issues/${issue}`, title: "Add a README", amount: "3", currency: "XDC" },
    });
    expect(created.status).toBe(201);
    const { bounty } = await created.json();
    expect(bounty).toMatchObject({ status: "pending_payment", paymentStatus: "pending", amount: "3.00000000", createdByGithubUsername: "carol", githubRepoOwner: "dave" });
    // Only its creator pays it.
    expect((await call(stack.t, `/api/community-bounties/${bounty.id}/pay`, { as: bob, body: {} })).status).toBe(403);
    const paid = await call(stack.t, `/api/community-bounties/${bounty.id}/pay`, { as: carol, body: {} });
    expect(paid.status).toBe(200);
    const paidBody = await paid.json();
    expect(paidBody.txHash).toStartWith("0x");
    expect(paidBody.status).toBe("funded");
    await eventually(async () => {
      await settleBoosts(stack.t.ctx);
      const res = await (await call(stack.t, `/api/community-bounties/${bounty.id}`)).json();
      return res.bounty.amount === "2.98500000" ? true : undefined;
    }, 30_000, "funded share");
    const listed = await (await call(stack.t, "/api/community-bounties?limit=50&status=funded")).json();
    expect(listed.bounties.some((b: { id: number }) => b.id === bounty.id)).toBe(true);

    // A claim GitHub does not support is refused: no merged pull request yet.
    const pr = await stack.github.controls.openPullRequest({ repo: HELLO, author: "bob", title: "README", body: `Closes #${issue}`, head: "bob-readme" });
    const prNumber = (pr.pull_request as { number: number }).number;
    const early = await call(stack.t, `/api/community-bounties/${bounty.id}/claim`, { as: bob, body: { prNumber, prUrl: `https://github.com/${HELLO}/pull/${prNumber}` } });
    expect(early.status).toBe(400);
    expect((await early.json()).message).toBe("The pull request is not merged.");
    await stack.github.controls.mergePullRequest({ repo: HELLO, number: prNumber, actor: "dave" });
    // Someone else than its author cannot claim it.
    expect((await call(stack.t, `/api/community-bounties/${bounty.id}/claim`, { as: carol, body: { prNumber, prUrl: "x" } })).status).toBe(400);
    const before = await balance(bobAddress);
    const claim = await call(stack.t, `/api/community-bounties/${bounty.id}/claim`, { as: bob, body: { prNumber, prUrl: `https://github.com/${HELLO}/pull/${prNumber}` } });
    expect(claim.status).toBe(200);
    expect((await claim.json()).status).toBe("claimed");
    await eventually(async () => {
      await settleBoosts(stack.t.ctx);
      const res = await (await call(stack.t, `/api/community-bounties/${bounty.id}`)).json();
      return res.bounty.status === "completed" ? res.bounty : undefined;
    }, 30_000, "completed");
    expect((await balance(bobAddress)) - before).toBe(parseEther("2.985"));
    // A second claim is refused; nothing is paid twice.
    expect((await call(stack.t, `/api/community-bounties/${bounty.id}/claim`, { as: bob, body: { prNumber, prUrl: "x" } })).status).toBe(400);
    expect((await balance(bobAddress)) - before).toBe(parseEther("2.985"));
    const board = await (await call(stack.t, "/api/community-bounties/leaderboard")).json();
    expect(board.leaderboard).toContainEqual({ githubUsername: "bob", bountiesCompleted: 1, currencies: { XDC: "2.98", ROXN: "0.00", USDC: "0.00" } });
  }, 120_000);

  test("the daily funding limit of 1000 XDC counts per funder across pools and boosts", async () => {
    const frank = await stack.signIn("frank");
    await register(frank, "poolmanager");
    const frankAddress = await walletOf(frank);
    await stack.chain.fund(frankAddress, { xdc: "1300" });
    const first = await openIssue("Big one");
    expect((await boost(frank, first, { currency: "XDC", amount: "700" })).status).toBe(200);
    const second = await openIssue("Bigger one");
    const refused = await boost(frank, second, { currency: "XDC", amount: "400" });
    expect(refused.status).toBe(429);
    const body = await refused.json();
    expect(body.error).toBe("Exceeds daily funding limit");
    expect(body.details.remainingLimit).toBe("300");
    expect((await stack.t.ctx.database.db.select().from(bountyBoosts).where(eq(bountyBoosts.userId, frank.user.id)))).toHaveLength(1);
    expect((await boost(frank, second, { currency: "XDC", amount: "300" })).status).toBe(200);
  }, 120_000);
});
