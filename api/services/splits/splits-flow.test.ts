import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray, like } from "drizzle-orm";
import { parseEther, parseEventLogs, type Address } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { eventually, registerFundedRepository, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { bountyShares, chainTransactions, payoutSplits, webhookDeliveries } from "../../../db/schema/index.ts";
import { releaseDueSplits } from "./release.ts";
import { releaseHeldShares } from "./release-held.ts";
import { markAwaiting } from "../money/awaiting.ts";
import { mentionsIn, renderedMarkdown } from "../../../testing/markdown.ts";

/**
 * Shared rewards over HTTP and webhooks against the emulator (issue 29, item 4): a merged pull request with
 * co-authors opens a release window instead of paying; the pool manager (and only they) changes the shares
 * during it, on the page or with /split; the window's end is the configured one.
 */
const WINDOW_MS = 4_000;
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let carol: TestSession & { wallet: Address };
let n = 0;
const key = () => `splits-${n++}-${Date.now()}`;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });
const bountyOf = async (issue: number) => (await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).json();
const splitOfIssue = async (issue: number) => call(stack.t, `/api/splits/${LITE.id}/${issue}`);
const payouts = (issue: number) =>
  stack.t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.githubRepoId, LITE.id), eq(chainTransactions.issueNumber, issue)));

const payoutsOf = (issue: number) =>
  stack.t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.githubRepoId, LITE.id), eq(chainTransactions.issueNumber, issue), eq(chainTransactions.kind, "pay_bounty")));
/** The operator's payments of an issue's held split shares (payTip, on registration). */
const heldSharePayments = (issue: number) =>
  stack.t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.kind, "pay_tip"), like(chainTransactions.idempotencyKey, `split-share:${LITE.id}:${issue}:%`)));
/** The mirror's credits of an issue's split payout (bounty_shares). */
const creditsOf = async (issue: number) =>
  (await stack.t.ctx.database.db.select({ recipient: bountyShares.recipient, amount: bountyShares.amount }).from(bountyShares).where(and(eq(bountyShares.githubRepoId, LITE.id), eq(bountyShares.issueNumber, issue))))
    .map((r) => ({ recipient: r.recipient.toLowerCase() === bob.wallet.toLowerCase() ? bob.wallet : r.recipient.toLowerCase() === carol?.wallet.toLowerCase() ? carol.wallet : r.recipient, amount: r.amount }))
    .sort((x, y) => x.recipient.localeCompare(y.recipient));
/** The shares a split payout's transaction held in escrow, from its BountyShareHeld events. */
async function sharesHeldBy(hash: string) {
  const receipt = await stack.t.ctx.chain.client.getTransactionReceipt({ hash: hash as `0x${string}` });
  return parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs, eventName: "BountyShareHeld" }).map((e) => ({ githubUserId: e.args.githubUserId, amount: e.args.amount, tipId: e.args.tipId }));
}
/** Who a split payout's transaction paid, from its BountySharePaid events. */
async function sharesPaidBy(hash: string) {
  const receipt = await stack.t.ctx.chain.client.getTransactionReceipt({ hash: hash as `0x${string}` });
  return parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs, eventName: "BountySharePaid" }).map((e) => {
    const args = e.args as { recipient: string; amount: bigint };
    return { recipient: args.recipient.toLowerCase(), amount: args.amount };
  });
}

async function settled() {
  await stack.github.controls.settle();
  await eventually(async () => {
    await stack.t.ctx.webhooks.runOnce();
    const pending = await stack.t.ctx.database.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.status, ["pending", "processing"]));
    return pending.length === 0 ? true : undefined;
  }, 20_000, "deliveries processed");
}

async function bountiedIssue(title: string, amount = "3") {
  const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title, author: "alice" });
  const number = (opened.issue as { number: number }).number;
  const res = await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${number}`, { bountyAmount: amount, currency: "XDC", githubRepoFullName: LITE.fullName });
  expect(res.status, await res.clone().text()).toBe(200);
  await stack.t.ctx.indexer.catchUp();
  return number;
}

/** A pull request by bob closing `issue`, co-authored by carol through her no-reply address, merged. */
async function coAuthoredMerge(issue: number, trailers = "Co-authored-by: Carol Private <1003+carol@users.noreply.github.com>") {
  const pr = await stack.github.controls.openPullRequest({
    repo: LITE.fullName,
    author: "bob",
    title: `Fix #${issue}`,
    body: `Fixes #${issue}`,
    head: `bob:${key()}`,
    commits: [{ message: `Fix the parser\n\n${trailers}` }, { message: "Tests" }],
  });
  const number = (pr.pull_request as { number: number }).number;
  await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number, actor: "alice" });
  await settled();
  return number;
}

const botComments = async (issue: number) => {
  const res = await fetch(`${stack.github.apiUrl}/repos/${LITE.fullName}/issues/${issue}/comments`);
  return ((await res.json()) as { body: string; user: { type: string } }[]).filter((c) => c.user.type === "Bot").map((c) => c.body);
};

beforeAll(async () => {
  stack = await startTestStack({ workers: true, env: { SPLIT_RELEASE_WINDOW_MS: String(WINDOW_MS) } });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "100" });
  await registerFundedRepository(stack, alice, LITE, "50");
}, 120_000);
afterAll(() => stack?.stop());

describe("a merged pull request with co-authors", () => {
  test("opens a release window, 50/50 between the author and the co-author, instead of paying", async () => {
    const issue = await bountiedIssue("Shared fix");
    const before = Date.now();
    const pr = await coAuthoredMerge(issue);
    const res = await splitOfIssue(issue);
    expect(res.status, await res.clone().text()).toBe(200);
    const split = await res.json();
    expect(split).toMatchObject({ pullNumber: pr, author: "bob", currency: "XDC", amount: "3", status: "window", custom: false, unresolved: [] });
    expect(split.shares).toEqual([
      expect.objectContaining({ login: "bob", percent: "50", amount: "1.5", isAuthor: true, status: "pending" }),
      expect.objectContaining({ login: "carol", percent: "50", amount: "1.5", isAuthor: false, status: "pending" }),
    ]);
    // The window is the configured one, from the merge.
    const releaseAt = Date.parse(split.releaseAt);
    expect(releaseAt).toBeGreaterThanOrEqual(before + WINDOW_MS);
    expect(releaseAt).toBeLessThanOrEqual(Date.now() + WINDOW_MS);
    // Nothing paid; the bounty is shown as being shared, and the issue closing did not make it await a decision.
    expect((await payouts(issue)).filter((t) => t.kind !== "allocate_bounty")).toHaveLength(0);
    expect(await bountyOf(issue)).toMatchObject({ status: "open", state: "releasing" });
    // The bot's comment says it, with the window's end and how to change the shares.
    const comment = await eventually(async () => (await botComments(issue)).find((b) => b.includes("Shared reward")), 15_000, "bot comment");
    expect(comment).toContain("@bob (author): 50 %, 1.5 XDC");
    expect(comment).toContain("@carol: 50 %, 1.5 XDC");
    expect(comment).toContain(`${split.releaseAt.slice(0, 16).replace("T", " ")} UTC`);
    // A redelivered merge opens nothing new.
    await stack.t.ctx.webhooks.runOnce();
    expect(await stack.t.ctx.database.db.select().from(payoutSplits).where(eq(payoutSplits.issueNumber, issue))).toHaveLength(1);
  }, 90_000);

  test("the pool manager sets other shares on the page; a contributor cannot; not after the window", async () => {
    const issue = await bountiedIssue("Shares by hand", "10");
    await coAuthoredMerge(issue);
    const put = (as: TestSession, shares: { login: string; percent: string }[]) => call(stack.t, `/api/splits/${LITE.id}/${issue}`, { as, method: "PUT", body: { shares } });
    expect((await put(bob, [{ login: "bob", percent: "100" }])).status).toBe(403);
    const bad = await put(alice, [{ login: "bob", percent: "60" }, { login: "carol", percent: "30" }]);
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toContain("add up to 90");
    expect((await put(alice, [{ login: "bob", percent: "60" }, { login: "nobody-here-at-all", percent: "40" }])).status).toBe(404);
    const ok = await put(alice, [{ login: "carol", percent: "70" }, { login: "bob", percent: "20" }, { login: "erin", percent: "10" }]);
    expect(ok.status, await ok.clone().text()).toBe(200);
    const set = await ok.json();
    expect(set.custom).toBe(true);
    expect(set.shares.map((s: { login: string; percent: string; amount: string }) => [s.login, s.percent, s.amount])).toEqual([["carol", "70", "7"], ["bob", "20", "2"], ["erin", "10", "1"]]);
    // Past the window the shares are fixed.
    await stack.t.ctx.database.db.update(payoutSplits).set({ releaseAt: new Date(Date.now() - 1) }).where(eq(payoutSplits.issueNumber, issue));
    const late = await put(alice, [{ login: "bob", percent: "100" }]);
    expect(late.status).toBe(409);
  }, 90_000);

  test("/split by the pool manager in a comment on the pull request sets the shares; by anyone else it is refused", async () => {
    const issue = await bountiedIssue("Shares by comment", "5");
    const pr = await coAuthoredMerge(issue);
    await stack.github.controls.addComment({ repo: LITE.fullName, number: pr, author: "bob", body: "/split @bob 100" });
    await settled();
    expect((await (await splitOfIssue(issue)).json()).custom).toBe(false);
    const refusal = await eventually(async () => (await botComments(pr)).find((b) => b.includes("Only a pool manager")), 15_000, "refusal");
    expect(refusal).toContain("@bob");
    await stack.github.controls.addComment({ repo: LITE.fullName, number: pr, author: "alice", body: "/split @bob 60 @carol 40" });
    const split = await eventually(async () => {
      const current = await (await splitOfIssue(issue)).json();
      return current.custom ? current : undefined;
    }, 20_000, "shares set by the comment");
    expect(split.shares.map((s: { login: string; amount: string }) => [s.login, s.amount])).toEqual([["bob", "3"], ["carol", "2"]]);
    expect(await eventually(async () => (await botComments(pr)).find((b) => b.startsWith("@alice Shares set.")), 15_000, "confirmation")).toContain("@carol 40 %");
    await stack.github.controls.addComment({ repo: LITE.fullName, number: pr, author: "alice", body: "/split @bob 60 @carol 50" });
    await settled();
    expect(await eventually(async () => (await botComments(pr)).find((b) => b.includes("add up to 110")), 15_000, "invalid split reply")).toBeDefined();
  }, 90_000);

  test("a pull request without co-authors is paid at once, as before", async () => {
    const issue = await bountiedIssue("Solo fix", "2");
    const pr = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author: "bob", title: "Solo", body: `Fixes #${issue}`, head: `bob:${key()}`, commits: [{ message: "Solo\n\nCo-authored-by: Bob <bob@example.com>" }] });
    await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: (pr.pull_request as { number: number }).number, actor: "alice" });
    await eventually(async () => ((await bountyOf(issue)).status === "paid" ? true : undefined), 30_000, "paid");
    expect((await splitOfIssue(issue)).status).toBe(404);
  }, 90_000);

  test("after the window bob is paid his half at once while carol (no wallet) has hers held in the escrow; she registers and is paid once", async () => {
    const issue = await bountiedIssue("Released", "4");
    await coAuthoredMerge(issue);
    const split = await (await splitOfIssue(issue)).json();
    // Deadlines derived from the configured window: the pass does nothing before it, claims the split after it.
    await releaseDueSplits(stack.t.ctx, { now: Date.parse(split.releaseAt) - 1, owner: "test" });
    expect((await (await splitOfIssue(issue)).json()).status).toBe("window");
    await releaseDueSplits(stack.t.ctx, { now: Date.parse(split.releaseAt), owner: "test" });
    // Bob is not held up by carol: one payout pays him and escrows her share for her GitHub id (1003).
    const [tx] = await eventually(async () => {
      const rows = await payoutsOf(issue);
      return rows[0]?.status === "confirmed" ? rows : undefined;
    }, 30_000, "split payout confirmed");
    expect(await sharesPaidBy(tx!.txHash!)).toEqual([{ recipient: bob.wallet.toLowerCase(), amount: parseEther("2") }]);
    const escrowed = await sharesHeldBy(tx!.txHash!);
    expect(escrowed.map(({ githubUserId, amount }) => ({ githubUserId, amount }))).toEqual([{ githubUserId: 1003n, amount: parseEther("2") }]);
    const tipId = escrowed[0]!.tipId;
    const released = await (await splitOfIssue(issue)).json();
    expect(released.status).toBe("released");
    expect(released.shares.map((s: { login: string; status: string; amount: string }) => [s.login, s.status, s.amount])).toEqual([["bob", "paid", "2"], ["carol", "held", "2"]]);
    expect(await eventually(async () => (await botComments(issue)).find((b) => b.includes("held until they register")), 15_000, "held comment")).toContain("@carol: 50 %, 2 XDC held");
    await stack.t.ctx.indexer.catchUp();
    await eventually(async () => ((await bountyOf(issue)).status === "paid" ? true : undefined), 20_000, "mirrored paid");
    // Credited: bob now; carol once she is paid (her wallet is not known before).
    expect(await creditsOf(issue)).toEqual([{ recipient: bob.wallet, amount: parseEther("2") }]);
    // Passes meanwhile pay nothing more.
    await releaseDueSplits(stack.t.ctx, { owner: "test" });
    await releaseHeldShares(stack.t.ctx);
    expect(await payoutsOf(issue)).toHaveLength(1);
    expect(await heldSharePayments(issue)).toHaveLength(0);

    carol = await stack.signUp("carol", "contributor");
    const [pay] = await eventually(async () => {
      await releaseHeldShares(stack.t.ctx);
      const rows = await heldSharePayments(issue);
      return rows[0]?.status === "confirmed" ? rows : undefined;
    }, 30_000, "held share paid");
    const receipt = await stack.t.ctx.chain.client.getTransactionReceipt({ hash: pay!.txHash! as `0x${string}` });
    expect(parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs, eventName: "TipPaid" }).map((e) => [e.args.tipId, e.args.recipient.toLowerCase(), e.args.amount])).toEqual([
      [tipId, carol.wallet.toLowerCase(), parseEther("2")],
    ]);
    const tip = await stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getTip", args: [tipId] });
    expect(tip.status).toBe(3);
    await stack.t.ctx.indexer.catchUp();
    expect(await creditsOf(issue)).toEqual([
      { recipient: bob.wallet, amount: parseEther("2") },
      { recipient: carol.wallet, amount: parseEther("2") },
    ].sort((x, y) => x.recipient.localeCompare(y.recipient)));
    // Each one's wallet history shows their own share, not the total; carol's shows it held, then paid.
    const bobHistory = (await (await call(stack.t, "/api/wallet/bounty-history?limit=50", { as: bob })).json()).entries as { kind: string; amount: string; issueNumber: number }[];
    expect(bobHistory.filter((e) => e.issueNumber === issue)).toEqual([expect.objectContaining({ kind: "reward", amount: "2" })]);
    const bobTransactions = (await (await call(stack.t, "/api/wallet/transactions?limit=50", { as: bob })).json()).transactions as { kind: string; hash: string; tokenAmount: string }[];
    expect(bobTransactions.filter((t) => t.hash === tx!.txHash)).toEqual([expect.objectContaining({ kind: "reward", tokenAmount: "2" })]);
    const carolHistory = (await (await call(stack.t, "/api/wallet/bounty-history?limit=50", { as: carol })).json()).entries as { kind: string; amount: string; issueNumber: number | null; transactionHash: string }[];
    expect(carolHistory.filter((e) => e.issueNumber === issue || e.transactionHash === pay!.txHash)).toEqual([
      expect.objectContaining({ kind: "reward", amount: "2", transactionHash: pay!.txHash }),
      expect.objectContaining({ kind: "held", amount: "2", issueNumber: issue, transactionHash: tx!.txHash }),
    ]);
    const carolTransactions = (await (await call(stack.t, "/api/wallet/transactions?limit=50", { as: carol })).json()).transactions as { kind: string; hash: string; tokenAmount: string }[];
    expect(carolTransactions.filter((t) => t.hash === pay!.txHash)).toEqual([expect.objectContaining({ kind: "reward", tokenAmount: "2" })]);
    // Nothing twice: later passes, a redelivered merge, another registration pass.
    await releaseDueSplits(stack.t.ctx, { owner: "test" });
    await releaseHeldShares(stack.t.ctx);
    await releaseHeldShares(stack.t.ctx, { githubUserId: 1003 });
    await stack.t.ctx.webhooks.runOnce();
    expect(await payoutsOf(issue)).toHaveLength(1);
    expect(await heldSharePayments(issue)).toHaveLength(1);
    const done = await (await splitOfIssue(issue)).json();
    expect(done.status).toBe("released");
    expect(done.shares.map((s: { status: string }) => s.status)).toEqual(["paid", "paid"]);
  }, 120_000);

  test("a co-author who does not register does not hold up the author: bob is paid his share, dave's waits in the escrow for him, 30 days, then the pool manager returns it to the pool", async () => {
    const issue = await bountiedIssue("Held for dave", "3");
    await coAuthoredMerge(issue, "Co-authored-by: Dave <dave@example.com>");
    const split = await (await splitOfIssue(issue)).json();
    await releaseDueSplits(stack.t.ctx, { now: Date.parse(split.releaseAt), owner: "test" });
    const [tx] = await eventually(async () => {
      const rows = await payoutsOf(issue);
      return rows[0]?.status === "confirmed" ? rows : undefined;
    }, 30_000, "split payout confirmed");
    expect(await sharesPaidBy(tx!.txHash!)).toEqual([{ recipient: bob.wallet.toLowerCase(), amount: parseEther("1.5") }]);
    expect((await sharesHeldBy(tx!.txHash!)).map((h) => h.amount)).toEqual([parseEther("1.5")]);
    const held = await (await splitOfIssue(issue)).json();
    expect(held.shares.map((s: { login: string; status: string }) => [s.login, s.status])).toEqual([["bob", "paid"], ["dave", "held"]]);
    // Paid: the shares are fixed now (dave's is his; unclaimed for 30 days it may only go back to the pool).
    const put = (as: TestSession, shares: { login: string; percent: string }[]) => call(stack.t, `/api/splits/${LITE.id}/${issue}`, { as, method: "PUT", body: { shares } });
    expect((await put(alice, [{ login: "bob", percent: "100" }])).status).toBe(409);
    await releaseDueSplits(stack.t.ctx, { owner: "test" });
    await releaseHeldShares(stack.t.ctx);
    expect(await payoutsOf(issue)).toHaveLength(1);
    expect(await heldSharePayments(issue)).toHaveLength(0);

    // Unclaimed for 30 days (the chain's clock), the pool manager may return it to the repository's pool, and only there.
    const rewards = stack.t.ctx.chain.config.contracts.rewards;
    const poolBefore = (await stack.t.ctx.chain.client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getPool", args: [BigInt(LITE.id)] }))[0];
    const returnShare = (as: TestSession, login: string) => call(stack.t, `/api/splits/${LITE.id}/${issue}/shares/${login}/return`, { as, method: "POST", headers: { "Idempotency-Key": key() } });
    await stack.t.ctx.indexer.catchUp(); // the held share's BountyShareHeld, mirrored: when it was held
    const mirrored = await (await splitOfIssue(issue)).json();
    const dave = mirrored.shares.find((s: { login: string }) => s.login === "dave");
    const heldAt = Date.parse(dave.returnableAt) - 30 * 24 * 3600 * 1000;
    expect(Math.abs(heldAt - Date.now())).toBeLessThan(10 * 60_000); // held just now: returnable 30 days on
    expect(dave.returnable).toBe(false);
    expect(mirrored.shares.find((s: { login: string }) => s.login === "bob")).toMatchObject({ returnableAt: null, returnable: false });
    const early = await returnShare(alice, "dave");
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ error: "Not due yet", message: expect.stringMatching(/^@dave's share can go back to the pool from \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC, 30 days after it was held\.$/) });
    await stack.chain.rpc("evm_increaseTime", [30 * 24 * 3600 + 1]);
    await stack.chain.rpc("evm_mine");
    expect((await (await splitOfIssue(issue)).json()).shares.find((s: { login: string }) => s.login === "dave").returnable).toBe(true);
    // Only the pool manager: not bob, whose share it is not either.
    expect((await returnShare(bob, "dave")).status).toBe(403);
    expect((await returnShare(alice, "bob")).status).toBe(409); // bob's was paid: nothing of it is held
    const res = await returnShare(alice, "dave");
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ status: "confirmed", message: "@dave's unclaimed share is back in the repository's pool" });
    const poolAfter = (await stack.t.ctx.chain.client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getPool", args: [BigInt(LITE.id)] }))[0];
    expect(poolAfter - poolBefore).toBe(parseEther("1.5"));
    // Shown as returned at once (the indexer's HeldShareReturned), before dave ever registers; a second return finds nothing.
    const returnedView = await (await splitOfIssue(issue)).json();
    expect(returnedView.shares.map((s: { login: string; status: string; returnableAt: string | null }) => [s.login, s.status, s.returnableAt])).toEqual([["bob", "paid", null], ["dave", "returned", null]]);
    const again = await returnShare(alice, "dave");
    expect(again.status).toBe(409);
    expect((await again.json()).error).toBe("Nothing held");
    // dave registers later: nothing is left to pay him, and no payment is tried.
    await stack.signUp("dave", "contributor");
    await releaseHeldShares(stack.t.ctx);
    await releaseHeldShares(stack.t.ctx, { githubUserId: 1004 });
    expect(await heldSharePayments(issue)).toHaveLength(0);
    const after = await (await splitOfIssue(issue)).json();
    expect(after.shares.map((s: { login: string; status: string }) => [s.login, s.status])).toEqual([["bob", "paid"], ["dave", "returned"]]);
  }, 120_000);

  test("a merge co-authored by erin (with a wallet) pays bob and erin 50/50 after the configured window", async () => {
    // erin signs up here: carol's wallet is another test's business (she registers in it), and tests run in any order.
    const erin = await stack.signUp("erin", "contributor");
    const issue = await bountiedIssue("Both registered", "5");
    const merged = Date.now();
    await coAuthoredMerge(issue, "Co-authored-by: Erin Reviewer <1005+erin@users.noreply.github.com>");
    expect(await payoutsOf(issue)).toHaveLength(0);
    // The release pass as the server runs it, on the real clock: nothing before the window, paid after it.
    const [tx] = await eventually(async () => {
      await releaseDueSplits(stack.t.ctx, { owner: "test" });
      const rows = await payoutsOf(issue);
      return rows[0]?.status === "confirmed" ? rows : undefined;
    }, WINDOW_MS + 30_000, "split payout confirmed");
    // Not before the window (the row's time is stored to the second).
    expect(tx!.createdAt.getTime()).toBeGreaterThanOrEqual(Math.floor((merged + WINDOW_MS) / 1000) * 1000 - 1000);
    expect(await sharesPaidBy(tx!.txHash!)).toEqual([
      { recipient: bob.wallet.toLowerCase(), amount: parseEther("2.5") },
      { recipient: erin.wallet.toLowerCase(), amount: parseEther("2.5") },
    ]);
    expect(await payoutsOf(issue)).toHaveLength(1);
  }, 120_000);


  test("a merge co-authored on a bounty funded by boosts alone (no pool's bounty) is shared too, once", async () => {
    const frank = await stack.signUp("frank", "contributor");
    const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Community fix", author: "alice" });
    const issue = (opened.issue as { number: number }).number;
    const boosted = await call(stack.t, `/api/funding/issues/alice/xdc-explorer-lite/${issue}/boosts`, { as: alice, body: { currency: "XDC", amount: "4" }, headers: { "Idempotency-Key": key() } });
    expect(boosted.status, await boosted.clone().text()).toBe(200);
    const details = () => stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(LITE.id), BigInt(issue)] });
    await eventually(async () => ((await details()).boosted > 0n ? true : undefined), 20_000, "the boost on-chain");
    await stack.t.ctx.indexer.catchUp();
    // The merge's delivery opens the split (it was retried forever: the split looked for the pool's mirrored bounty).
    await coAuthoredMerge(issue, "Co-authored-by: Frank Fresh <1006+frank@users.noreply.github.com>");
    expect((await splitOfIssue(issue)).status).toBe(200);
    expect(await payoutsOf(issue)).toHaveLength(0);
    const [tx] = await eventually(async () => {
      await releaseDueSplits(stack.t.ctx, { now: Date.now() + WINDOW_MS + 1000, owner: "test" });
      const rows = await payoutsOf(issue);
      return rows[0]?.status === "confirmed" ? rows : undefined;
    }, 30_000, "split payout confirmed");
    expect(await sharesPaidBy(tx!.txHash!)).toEqual([
      { recipient: bob.wallet.toLowerCase(), amount: parseEther("1.99") },
      { recipient: frank.wallet.toLowerCase(), amount: parseEther("1.99") },
    ]);
    await releaseDueSplits(stack.t.ctx, { now: Date.now() + WINDOW_MS + 1000, owner: "test" });
    expect(await payoutsOf(issue)).toHaveLength(1);
  }, 90_000);

  test("the window shows the shares of the whole bounty: the pool's share and the funders' shares", async () => {
    const issue = await bountiedIssue("Boosted and shared", "3");
    const boosted = await call(stack.t, `/api/funding/issues/alice/xdc-explorer-lite/${issue}/boosts`, { as: alice, body: { currency: "XDC", amount: "2" }, headers: { "Idempotency-Key": key() } });
    expect(boosted.status, await boosted.clone().text()).toBe(200);
    const details = () => stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(LITE.id), BigInt(issue)] });
    await eventually(async () => ((await details()).boosted > 0n ? true : undefined), 20_000, "the boost on-chain");
    // dave signs up only in the test before (after his share there went back to the pool).
    await coAuthoredMerge(issue, "Co-authored-by: Dave Newcomer <1004+dave@users.noreply.github.com>");
    const split = await (await splitOfIssue(issue)).json();
    expect(split).toMatchObject({ currency: "XDC", amount: "4.99" });
    expect(split.shares.map((s: { login: string; amount: string }) => [s.login, s.amount])).toEqual([["bob", "2.495"], ["dave", "2.495"]]);
  }, 60_000);
});

describe("the release pass", () => {
  test("queues each payout under its bounty's lock and sends them after, together: when the pass returns, every payout is on the chain's way", async () => {
    // A co-author with a wallet whom no other test needs without one (carol must have none until her test signs her up).
    await stack.signUp("grace", "contributor");
    const issues = [await bountiedIssue("Released together 1", "2"), await bountiedIssue("Released together 2", "2")];
    for (const issue of issues) await coAuthoredMerge(issue, "Co-authored-by: Grace Visitor <1007+grace@users.noreply.github.com>");
    const releaseAt = Math.max(...(await Promise.all(issues.map(async (issue) => Date.parse((await (await splitOfIssue(issue)).json()).releaseAt)))));
    await releaseDueSplits(stack.t.ctx, { now: releaseAt, owner: "test" });
    for (const issue of issues) {
      const rows = await payoutsOf(issue);
      expect(rows).toHaveLength(1);
      expect(["sent", "confirmed"]).toContain(rows[0]!.status);
      expect(rows[0]!.txHash).toBeTruthy();
    }
    // And paid once each, to both.
    await eventually(async () => ((await Promise.all(issues.map(payoutsOf))).every((rows) => rows[0]?.status === "confirmed") ? true : undefined), 30_000, "both confirmed");
  }, 90_000);
});

describe("a bounty being shared", () => {
  test("is not made to await the pool manager's decision (the issue's close can open the split itself, then ask)", async () => {
    const issue = await bountiedIssue("Shared, then closed", "2");
    await coAuthoredMerge(issue);
    expect((await (await splitOfIssue(issue)).json()).status).toBe("window");
    expect(await markAwaiting(stack.t.ctx, { repoId: LITE.id, issueNumber: issue, reason: "closed_completed" })).toBe(false);
    expect(await bountyOf(issue)).toMatchObject({ status: "open", state: "releasing" });
  }, 90_000);

  test("hostile text stays text (issue 36): a trailer's name and address, and command words, never become links or mentions in what the bot posts", async () => {
    const PAYLOAD = "x`[**Claim_your_share_here**](https://evil.example/phish)`@evil.com";
    const hostileName = "x`[**Claim_your_share_here**](https://evil.example/phish)` @dave ``` ![i](//evil.example/i)";
    const issue = await bountiedIssue("Hostile trailers", "2");
    const pr = await coAuthoredMerge(
      issue,
      [
        "Co-authored-by: Carol Private <1003+carol@users.noreply.github.com>",
        `Co-authored-by: Eve <${PAYLOAD}>`,
        `Co-authored-by: ${hostileName} <nobody-here@evil.example>`,
      ].join("\n"),
    );
    // The payload is no address: only the well-formed unknown one is unresolved.
    const split = await (await splitOfIssue(issue)).json();
    expect(split.unresolved).toEqual([{ name: hostileName, email: "nobody-here@evil.example" }]);
    // The comment as GitHub has it (the emulator): the name and address in one code span, no link, no @dave.
    const comment = await eventually(async () => (await botComments(issue)).find((b) => b.includes("Co-authors not found")), 15_000, "bot comment");
    const rendered = renderedMarkdown(comment);
    expect(rendered.links.filter((url) => url.includes("evil"))).toEqual([]);
    expect(rendered.html).toEqual(["<!-- issuepool:bounty -->"]); // the marker alone
    expect(rendered.codes).toContain(`${hostileName} <nobody-here@evil.example>`);
    expect(rendered.text.join(" ")).not.toContain("Claim_your_share_here");
    expect(comment).not.toContain(PAYLOAD);
    expect(new Set(mentionsIn(comment))).toEqual(new Set(["bob", "carol"]));

    // Replies to commands echo the words they refuse as code: no link, no mention but the commenter's.
    await stack.github.controls.addComment({ repo: LITE.fullName, number: pr, author: "alice", body: "/split @bob 50 x`[Claim](https://evil.example/phish)`@dave 50" });
    await stack.github.controls.addComment({ repo: LITE.fullName, number: pr, author: "alice", body: "/split @bob 50 @carol `[5](https://evil.example)`" });
    await stack.github.controls.addComment({ repo: LITE.fullName, number: issue, author: "bob", body: "/tip 1 `[X](https://evil.example)`@dave @carol" });
    await stack.github.controls.addComment({ repo: LITE.fullName, number: issue, author: "bob", body: "/tip 1 XDC @x`[y](https://evil.example)`" });
    await settled();
    // Replies are posted while the webhook is processed: there once the deliveries are (read once each: the
    // emulator's anonymous budget is GitHub's 60 calls an hour).
    const splitReplies = (await botComments(pr)).filter((b) => b.startsWith("@alice") && b.includes("Usage: `/split"));
    const tipReplies = (await botComments(issue)).filter((b) => b.startsWith("@bob "));
    expect(splitReplies).toHaveLength(2);
    expect(tipReplies).toHaveLength(2);
    const replies = [...splitReplies, ...tipReplies];
    for (const reply of replies) {
      const r = renderedMarkdown(reply);
      expect({ reply, links: r.links }).toEqual({ reply, links: [] });
      expect(r.html).toEqual([]);
      expect(mentionsIn(reply).every((login) => login === "alice" || login === "bob")).toBe(true);
      expect(r.text.join(" ")).not.toContain("evil.example");
    }
  }, 90_000);
});
