import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { parseEther, type Address } from "viem";
import { eventually, registerFundedRepository, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { chainTransactions, contributorRecentTotals, contributorTotals, repositoryReliability, webhookDeliveries } from "../../../db/schema/index.ts";
import { releaseDueSplits } from "./release.ts";
import { rebuildRecords } from "../reliability/record.ts";
import { contributorStandings } from "../money/leaderboards.ts";

/**
 * A split payout credits each recipient their share (issue 29): a co-authored merge paid 50/50 with
 * payBountySplit is on bob's and carol's boards, profiles and feeds with 1 XDC each, not 2 XDC for bob and nothing
 * for carol; the repository's record counts the payout once, whole; a rebuild of the records gives the same.
 */
const WINDOW_MS = 2_000;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let carol: TestSession & { wallet: Address };
let n = 0;
const key = () => `split-credits-${n++}-${Date.now()}`;
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });
const db = () => stack.t.ctx.database.db;

async function settled() {
  await stack.github.controls.settle();
  await eventually(async () => {
    await stack.t.ctx.webhooks.runOnce();
    const pending = await db().select().from(webhookDeliveries).where(inArray(webhookDeliveries.status, ["pending", "processing"]));
    return pending.length === 0 ? true : undefined;
  }, 20_000, "deliveries processed");
}

beforeAll(async () => {
  stack = await startTestStack({ workers: true, env: { SPLIT_RELEASE_WINDOW_MS: String(WINDOW_MS) } });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  carol = await stack.signUp("carol", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "100" });
  await registerFundedRepository(stack, alice, LITE, "20");
}, 120_000);
afterAll(() => stack?.stop());

describe("a split payout's shares", () => {
  test("50/50 of 2 XDC: bob's and carol's boards, profiles and feeds say 1 XDC each; the sponsor's record 2 XDC once; rebuilt the same", async () => {
    const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Shared credit", author: "alice" });
    const issue = (opened.issue as { number: number }).number;
    const allocated = await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, { bountyAmount: "2", currency: "XDC", githubRepoFullName: LITE.fullName });
    expect(allocated.status, await allocated.clone().text()).toBe(200);
    await stack.t.ctx.indexer.catchUp();
    const pr = await stack.github.controls.openPullRequest({
      repo: LITE.fullName, author: "bob", title: `Fix #${issue}`, body: `Fixes #${issue}`, head: `bob:${key()}`,
      commits: [{ message: "Fix it\n\nCo-authored-by: Carol Private <1003+carol@users.noreply.github.com>" }],
    });
    await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: (pr.pull_request as { number: number }).number, actor: "alice" });
    await settled();
    const split = await (await call(stack.t, `/api/splits/${LITE.id}/${issue}`)).json();
    expect(split.shares.map((s: { login: string; amount: string }) => [s.login, s.amount])).toEqual([["bob", "1"], ["carol", "1"]]);
    // Released at the window's end (derived from the configured window), paid once with payBountySplit.
    await eventually(async () => {
      await releaseDueSplits(stack.t.ctx, { now: Math.max(Date.now(), Date.parse(split.releaseAt)), owner: "test" });
      const rows = await db().select().from(chainTransactions).where(and(eq(chainTransactions.githubRepoId, LITE.id), eq(chainTransactions.issueNumber, issue), eq(chainTransactions.kind, "pay_bounty")));
      return rows[0]?.status === "confirmed" ? rows : undefined;
    }, 30_000, "split payout confirmed");
    await eventually(async () => {
      await stack.t.ctx.indexer.catchUp();
      const bounty = await (await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).json();
      return bounty.status === "paid" ? true : undefined;
    }, 20_000, "mirrored paid");

    const boards = async () => ({
      all: Object.fromEntries((await contributorStandings(stack.t.ctx, "all")).map((s) => [s.username, [s.count, s.earned.XDC]])),
      recent: Object.fromEntries((await contributorStandings(stack.t.ctx, "30d")).map((s) => [s.username, [s.count, s.earned.XDC]])),
    });
    const credited = { bob: [1, parseEther("1")], carol: [1, parseEther("1")] };
    expect(await boards()).toEqual({ all: credited, recent: credited });
    for (const login of ["bob", "carol"]) {
      const profile = await (await call(stack.t, `/api/contributors/${login}`)).json();
      expect(profile.totals).toEqual({ count: 1, earned: { XDC: "1", ROXN: "0", USDC: "0" } });
      expect(profile.earned).toEqual([expect.objectContaining({ repository: LITE.fullName, issueNumber: issue, currency: "XDC", amount: "1" })]);
      const feed = await (await call(stack.t, `/api/feeds/contributors/${login}`)).text();
      expect(feed).toContain(`<title>1.0000 XDC for ${LITE.fullName}#${issue}`);
      expect(feed).not.toContain("2 XDC");
    }
    // The sponsor's record counts the payout once, whole.
    const [record] = await db().select().from(repositoryReliability).where(eq(repositoryReliability.githubRepoId, LITE.id));
    expect(record).toMatchObject({ paidCount: 1, paidXdc: parseEther("2") });

    // Rebuilt from the bounties as they stand: the same totals.
    const tables = async () => ({
      all: await db().select({ r: contributorTotals.recipient, n: contributorTotals.paidCount, xdc: contributorTotals.xdc }).from(contributorTotals).orderBy(contributorTotals.recipient),
      recent: await db().select({ r: contributorRecentTotals.recipient, n: contributorRecentTotals.paidCount, xdc: contributorRecentTotals.xdc }).from(contributorRecentTotals).orderBy(contributorRecentTotals.recipient),
      record: await db().select({ n: repositoryReliability.paidCount, xdc: repositoryReliability.paidXdc }).from(repositoryReliability).where(eq(repositoryReliability.githubRepoId, LITE.id)),
    });
    const incremental = await tables();
    await rebuildRecords(db());
    expect(await tables()).toEqual(incremental);
    expect(await boards()).toEqual({ all: credited, recent: credited });
  }, 120_000);
});
