import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { parseEther, type Address } from "viem";
import { eventually, registerFundedRepository, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { bounties, bountyBoosts, bountyCommitments, chainTransactions, communityBounties, payoutSplits } from "../../../db/schema/index.ts";
import { settleBoosts } from "../funding/boost-mirror.ts";

/**
 * Issue 36's four attacks, tried over HTTP and the emulator's webhooks the way a dishonest contributor or funder
 * would, each refused by the one payout decision; no balance moves but to the rightful contributors. Each failed
 * before the decision existed (the attacker was paid, or the funder took the share back). Attacker: frank.
 */
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let carol: TestSession & { wallet: Address };
let frank: TestSession & { wallet: Address };
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite", owner: "alice", name: "xdc-explorer-lite" };
const HELLO = { fullName: "dave/hello-xdc", owner: "dave", name: "hello-xdc" };
let n = 0;
const key = () => `attack-${n++}-${Date.now()}`;
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });
const balance = (a: Address) => stack.t.ctx.chain.client.getBalance({ address: a });
const hourAgo = () => new Date(Date.now() - 3600_000).toISOString();
const db = () => stack.t.ctx.database.db;

async function openIssue(repo: string, title: string, author: string): Promise<number> {
  return ((await stack.github.controls.openIssue({ repo, title, author })).issue as { number: number }).number;
}
async function mergedPull(repo: string, author: string, issue: number, options: { at?: string; coAuthor?: { login: string; id: number } } = {}): Promise<number> {
  const commits = options.coAuthor ? [{ message: `Fix #${issue}\n\nCo-authored-by: ${options.coAuthor.login} <${options.coAuthor.id}+${options.coAuthor.login}@users.noreply.github.com>` }] : undefined;
  const pr = await stack.github.controls.openPullRequest({ repo, author, title: `Fix #${issue}`, body: `Fixes #${issue}`, head: `${author}:fix-${key()}`, ...(commits ? { commits } : {}) });
  const number = (pr.pull_request as { number: number }).number;
  await stack.github.controls.mergePullRequest({ repo, number, actor: repo.split("/")[0]!, ...(options.at ? { at: options.at } : {}) });
  return number;
}
const pay = (s: TestSession, issue: number, amount: string) => money(s, `/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, { bountyAmount: amount, currency: "XDC", githubRepoFullName: LITE.fullName });
const boost = (s: TestSession, owner: string, name: string, issue: number, amount: string) =>
  call(stack.t, `/api/funding/issues/${owner}/${name}/${issue}/boosts`, { as: s, body: { currency: "XDC", amount }, headers: { "Idempotency-Key": key() } });
async function communityBounty(s: TestSession, repo: { owner: string; name: string; fullName: string }, issue: number, amount: string): Promise<number> {
  const created = await call(stack.t, "/api/community-bounties", {
    as: s,
    body: { githubRepoOwner: repo.owner, githubRepoName: repo.name, githubIssueNumber: issue, githubIssueId: `${repo.fullName}#${issue}`, githubIssueUrl: `https://github.com/${repo.fullName}/issues/${issue}`, title: "Fix it", amount, currency: "XDC" },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const id = (await created.json()).bounty.id as number;
  expect((await call(stack.t, `/api/community-bounties/${id}/pay`, { as: s, body: {}, headers: { "Idempotency-Key": key() } })).status).toBe(200);
  await funded(repo.fullName === LITE.fullName ? LITE.id : undefined, id);
  return id;
}
async function funded(_repoId: number | undefined, id: number) {
  await eventually(async () => {
    await settleBoosts(stack.t.ctx);
    const [row] = await db().select().from(communityBounties).where(eq(communityBounties.id, id));
    const [share] = await db().select().from(bountyBoosts).where(and(eq(bountyBoosts.githubRepoId, row!.githubRepoId), eq(bountyBoosts.issueNumber, row!.issueNumber)));
    return share?.status === "active" ? true : undefined;
  }, 30_000, "community bounty funded");
  await stack.t.ctx.indexer.catchUp();
}
const claim = (s: TestSession, id: number, prNumber: number, prUrl = "https://example.invalid/pr") => call(stack.t, `/api/community-bounties/${id}/claim`, { as: s, body: { prNumber, prUrl } });
const onChain = async (repoId: number, issue: number) => stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: (await import("../../../contracts/artifacts/index.ts")).RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(repoId), BigInt(issue)] });
const payouts = (repoId: number, issue: number) => db().select().from(chainTransactions).where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, repoId), eq(chainTransactions.issueNumber, issue)));
const helloId = async () => ((await (await fetch(`${stack.github.apiUrl}/repos/${HELLO.fullName}`)).json()) as { id: number }).id;

beforeAll(async () => {
  stack = await startTestStack({ workers: true });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  carol = await stack.signUp("carol", "contributor");
  frank = await stack.signUp("frank", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "300" });
  for (const s of [bob, carol, frank]) await stack.chain.fund(s.wallet, { xdc: "100" });
  await registerFundedRepository(stack, alice, LITE, "100");
}, 120_000);
afterAll(() => stack?.stop());

describe("issue 36: nobody is paid a bounty they did not earn", () => {
  test("high: an old pull request cannot take a pool's bounty on a reopened issue (community bounty refused, the close by hand pays nobody)", async () => {
    const issue = await openIssue(LITE.fullName, "Handle empty blocks", "alice");
    // frank's fix was merged an hour ago; it was not enough, so the issue is open again.
    await mergedPull(LITE.fullName, "frank", issue, { at: hourAgo() });
    await stack.github.controls.reopenIssue({ repo: LITE.fullName, number: issue, actor: "alice" });
    const allocated = await pay(alice, issue, "5");
    expect(allocated.status, await allocated.clone().text()).toBe(200);
    await stack.t.ctx.indexer.catchUp();
    const before = await balance(frank.wallet);
    // A community bounty on an issue with a pool's bounty is refused (it was 201, then its claim paid the whole bounty).
    const created = await call(stack.t, "/api/community-bounties", {
      as: frank,
      body: { githubRepoOwner: LITE.owner, githubRepoName: LITE.name, githubIssueNumber: issue, githubIssueId: `${LITE.fullName}#${issue}`, githubIssueUrl: `https://github.com/${LITE.fullName}/issues/${issue}`, title: "mine", amount: "1", currency: "XDC" },
    });
    expect(created.status, await created.clone().text()).toBe(409);
    expect(await created.json()).toMatchObject({ code: "pool_bounty", message: "This issue has a bounty from the repository's pool: boost it instead." });
    // The pool manager closes the issue by hand: GitHub lists frank's old merge as closing it, and it earns nothing.
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number: issue, reason: "completed", actor: "alice" });
    await eventually(async () => ((await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).ok ? ((await (await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).json()).state === "awaiting" ? true : undefined) : undefined), 30_000, "awaiting the pool manager");
    expect(await payouts(LITE.id, issue)).toEqual([]);
    expect((await onChain(LITE.id, issue)).status).toBe(1);
    expect(await balance(frank.wallet)).toBe(before);
  }, 120_000);

  test("high: a claim cannot skip a co-author's split (the repository has the app: no claim at all)", async () => {
    const issue = await openIssue(LITE.fullName, "Dark mode", "alice");
    // A community bounty on the registered repository (dave's first boost opened it), then a co-authored fix.
    const dave = await stack.signUp("dave", "contributor");
    await stack.chain.fund(dave.wallet, { xdc: "50" });
    expect((await boost(dave, LITE.owner, LITE.name, issue, "4")).status).toBe(200);
    const [row] = await eventually(async () => {
      await settleBoosts(stack.t.ctx);
      const rows = await db().select().from(communityBounties).where(and(eq(communityBounties.githubRepoId, LITE.id), eq(communityBounties.issueNumber, issue), eq(communityBounties.status, "funded")));
      const shares = await db().select().from(bountyBoosts).where(and(eq(bountyBoosts.githubRepoId, LITE.id), eq(bountyBoosts.issueNumber, issue), eq(bountyBoosts.status, "active")));
      return rows.length && shares.length ? rows : undefined;
    }, 30_000, "community bounty funded");
    await stack.t.ctx.indexer.catchUp();
    const pr = await mergedPull(LITE.fullName, "bob", issue, { coAuthor: { login: "carol", id: 1003 } });
    const split = await eventually(async () => (await db().select().from(payoutSplits).where(and(eq(payoutSplits.githubRepoId, LITE.id), eq(payoutSplits.issueNumber, issue))))[0], 30_000, "split");
    expect(split.status).toBe("window");
    const before = await balance(bob.wallet);
    const claimed = await claim(bob, row!.id, pr);
    expect(claimed.status).toBe(409);
    expect((await claimed.json()).code).toBe("claim_not_needed");
    expect((await db().select().from(payoutSplits).where(and(eq(payoutSplits.githubRepoId, LITE.id), eq(payoutSplits.issueNumber, issue))))[0]!.status).toBe("window");
    expect(await payouts(LITE.id, issue)).toEqual([]);
    expect(await balance(bob.wallet)).toBe(before);
    // The funder cannot take the boost back during the window either (medium finding).
    const [share] = await db().select().from(bountyBoosts).where(and(eq(bountyBoosts.githubRepoId, LITE.id), eq(bountyBoosts.issueNumber, issue)));
    const withdrawn = await call(stack.t, `/api/funding/boosts/${share!.id}`, { as: dave, method: "DELETE" });
    expect(withdrawn.status).toBe(409);
    expect((await withdrawn.json()).code).toBe("bounty_committed");
    expect((await onChain(LITE.id, issue)).boosted).toBe(parseEther("4") - parseEther("0.02"));
  }, 120_000);

  test("medium: a community bounty on an unregistered repository is not paid to a pull request merged before it existed", async () => {
    const issue = await openIssue(HELLO.fullName, "Add a README", "dave");
    const stale = await mergedPull(HELLO.fullName, "frank", issue, { at: hourAgo() });
    await stack.github.controls.reopenIssue({ repo: HELLO.fullName, number: issue, actor: "dave" });
    const id = await communityBounty(carol, HELLO, issue, "3");
    // The issue is closed again by hand: frank's old merge still names it, and still earns nothing.
    await stack.github.controls.closeIssue({ repo: HELLO.fullName, number: issue, reason: "completed", actor: "dave" });
    const before = await balance(frank.wallet);
    const claimed = await claim(frank, id, stale);
    expect(claimed.status).toBe(400);
    expect((await claimed.json()).code).toBe("claim_not_verified");
    expect(await payouts(await helloId(), issue)).toEqual([]);
    expect(await balance(frank.wallet)).toBe(before);
  }, 120_000);

  test("a claim naming a pull request GitHub does not know is refused, and nothing moves", async () => {
    const issue = await openIssue(HELLO.fullName, "Fix the footer", "dave");
    const id = await communityBounty(carol, HELLO, issue, "3");
    await stack.github.controls.closeIssue({ repo: HELLO.fullName, number: issue, reason: "completed", actor: "dave" });
    const before = await balance(frank.wallet);
    // The pull request, its closing references and the issue are asked side by side (payouts/fixes.ts): the 404 decides.
    const claimed = await claim(frank, id, 987_654);
    expect(claimed.status).toBe(400);
    expect(await claimed.json()).toMatchObject({ code: "claim_not_verified", message: "GitHub does not know this pull request." });
    expect(await payouts(await helloId(), issue)).toEqual([]);
    expect(await balance(frank.wallet)).toBe(before);
  }, 120_000);

  test("medium: on an unregistered repository the funder cannot take the bounty back after the merge; the author's claim is paid, at the address GitHub reports", async () => {
    const issue = await openIssue(HELLO.fullName, "Fix the link", "dave");
    const id = await communityBounty(carol, HELLO, issue, "3");
    const pr = await mergedPull(HELLO.fullName, "bob", issue);
    const repoId = await helloId();
    const [share] = await db().select().from(bountyBoosts).where(and(eq(bountyBoosts.githubRepoId, repoId), eq(bountyBoosts.issueNumber, issue)));
    const carolBefore = await balance(carol.wallet);
    const withdrawn = await call(stack.t, `/api/funding/boosts/${share!.id}`, { as: carol, method: "DELETE" });
    expect(withdrawn.status).toBe(409);
    expect((await withdrawn.json()).code).toBe("bounty_committed");
    expect(await balance(carol.wallet)).toBe(carolBefore);
    const bobBefore = await balance(bob.wallet);
    const claimed = await claim(bob, id, pr, "javascript:alert(1)");
    expect(claimed.status, await claimed.clone().text()).toBe(200);
    const body = await claimed.json();
    expect(body.bounty.claimedPrUrl).toBe(`${stack.github.webUrl}/${HELLO.fullName}/pull/${pr}`);
    await eventually(async () => ((await balance(bob.wallet)) - bobBefore === parseEther("2.985") ? true : undefined), 30_000, "bob paid");
    const [commitment] = await db().select().from(bountyCommitments).where(and(eq(bountyCommitments.githubRepoId, repoId), eq(bountyCommitments.issueNumber, issue)));
    expect(commitment).toMatchObject({ via: "claim", pullNumber: pr, authorLogin: "bob" });
  }, 120_000);

  test("medium: a funder cannot take a boost back during a co-authored fix's release window; the split pays the whole", async () => {
    const issue = await openIssue(LITE.fullName, "Faster search", "alice");
    expect((await pay(alice, issue, "2")).status).toBe(200);
    expect((await boost(carol, LITE.owner, LITE.name, issue, "3")).status).toBe(200);
    await eventually(async () => {
      await settleBoosts(stack.t.ctx);
      const [b] = await db().select().from(bountyBoosts).where(and(eq(bountyBoosts.githubRepoId, LITE.id), eq(bountyBoosts.issueNumber, issue)));
      return b?.status === "active" ? true : undefined;
    }, 30_000, "boost active");
    await stack.t.ctx.indexer.catchUp();
    await mergedPull(LITE.fullName, "bob", issue, { coAuthor: { login: "frank", id: 1006 } });
    await eventually(async () => (await db().select().from(payoutSplits).where(and(eq(payoutSplits.githubRepoId, LITE.id), eq(payoutSplits.issueNumber, issue))))[0], 30_000, "split");
    const [share] = await db().select().from(bountyBoosts).where(and(eq(bountyBoosts.githubRepoId, LITE.id), eq(bountyBoosts.issueNumber, issue)));
    const withdrawn = await call(stack.t, `/api/funding/boosts/${share!.id}`, { as: carol, method: "DELETE" });
    expect(withdrawn.status).toBe(409);
    expect((await withdrawn.json()).code).toBe("bounty_committed");
    // The bounty on-chain still holds the pool's 2 and carol's 2.985, for bob and frank; and they are claimants on-chain.
    const details = await onChain(LITE.id, issue);
    expect(details.amount).toBe(parseEther("2") + parseEther("2.985"));
    const [mirror] = await db().select().from(bounties).where(and(eq(bounties.githubRepoId, LITE.id), eq(bounties.issueNumber, issue)));
    expect(mirror!.status).toBe("open");
  }, 120_000);
});
