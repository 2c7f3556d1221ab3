import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { parseEther, type Address } from "viem";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { repositories, repositoryFormerNames, webhookDeliveries } from "../../../db/schema/index.ts";
import { matchingBounties, parseSearch } from "../alerts/search.ts";
import { movedRepository } from "./former-names.ts";

/**
 * Renames and transfers, to the end (issue 39, item 6), against the GitHub emulator and the local chain: the
 * repository keeps its pool and bounties through a rename and a transfer (its GitHub id is the key), its former
 * names are kept, the old badge and feed addresses redirect to the new ones (the pages are checked in the
 * Chromium journey e2e/renames.e2e.ts), saved searches and explore filters on an old name keep matching, and a
 * merge after each move still pays the pull request's author.
 */
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let n = 0;
const key = () => `renames-${n++}-${Date.now()}`;
const REPO_ID = 5003;
const ORIGINAL = "alice/xdc-explorer-lite";
const RENAMED = "alice/explorer-next";
const TRANSFERRED = "issuepool-demo/explorer-next";
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });
const balance = (address: Address) => stack.t.ctx.chain.client.getBalance({ address });
const bountyOf = async (issue: number) => (await call(stack.t, `/api/blockchain/issue-bounty/${REPO_ID}/${issue}`)).json() as Promise<{ status: string }>;

async function settled() {
  await stack.github.controls.settle();
  await eventually(async () => {
    await stack.t.ctx.webhooks.runOnce();
    const pending = await stack.t.ctx.database.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.status, ["pending", "processing"]));
    return pending.length === 0 ? true : undefined;
  }, 20_000, "deliveries processed");
}
async function bountiedIssue(fullName: string, title: string) {
  const opened = await stack.github.controls.openIssue({ repo: fullName, title, author: "alice" });
  const number = (opened.issue as { number: number }).number;
  const res = await money(alice, `/api/blockchain/allocate-bounty/${REPO_ID}/${number}`, { bountyAmount: "2", currency: "XDC", githubRepoFullName: fullName });
  expect(res.status, await res.clone().text()).toBe(200);
  await stack.t.ctx.indexer.catchUp();
  return number;
}
/** bob's fix of `issue`, merged by alice on the repository as it is named now; resolves once bob holds the 2 XDC. */
async function mergedFixPays(fullName: string, issue: number) {
  const before = await balance(bob.wallet);
  const pr = await stack.github.controls.openPullRequest({ repo: fullName, author: "bob", title: `Fix #${issue}`, body: `Fixes #${issue}`, head: `bob:${key()}` });
  await stack.github.controls.mergePullRequest({ repo: fullName, number: (pr.pull_request as { number: number }).number, actor: "alice" });
  await eventually(async () => ((await balance(bob.wallet)) === before + parseEther("2") ? true : undefined), 30_000, `bob paid for #${issue} of ${fullName}`);
  await settled();
  await eventually(async () => ((await bountyOf(issue)).status === "paid" ? true : undefined), 20_000, "mirrored as paid");
}
async function redirectOf(path: string) {
  const res = await call(stack.t, path, { headers: { Accept: "*/*" } });
  return { status: res.status, location: res.headers.get("location"), cacheControl: res.headers.get("cache-control") };
}
const stored = async () => (await stack.t.ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, REPO_ID)))[0]!;

let renamedIssue = 0;

beforeAll(async () => {
  stack = await startTestStack({ workers: true });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "100" });
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  expect((await (await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: REPO_ID, githubRepoFullName: ORIGINAL } })).json()).success).toBe(true);
  expect((await money(alice, `/api/blockchain/repository/${REPO_ID}/fund`, { amountXdc: "30", repositoryFullName: ORIGINAL })).status).toBe(200);
  await stack.t.ctx.indexer.catchUp();
}, 120_000);
afterAll(() => stack?.stop());

// A registered repository renamed on GitHub.
const followsTheNewName = async () => { // follows the new name and keeps the old one in its history
    renamedIssue = await bountiedIssue(ORIGINAL, "Set before the rename");
    await stack.github.controls.renameRepository({ repo: ORIGINAL, name: "explorer-next" });
    await settled();
    expect((await stored()).fullName).toBe(RENAMED);
    const history = await stack.t.ctx.database.db.select().from(repositoryFormerNames).where(eq(repositoryFormerNames.githubRepoId, REPO_ID));
    expect(history.map((h) => [h.fullName, h.move])).toEqual([[ORIGINAL, "renamed"]]);
    // The pool and the bounty set before the rename are the same repository's, under the new name.
    expect((await bountyOf(renamedIssue)).status).toBe("open");
    expect((await movedRepository(stack.t.ctx, ORIGINAL.toUpperCase()))?.githubRepoId).toBe(REPO_ID);
    expect(await movedRepository(stack.t.ctx, RENAMED)).toBeUndefined();
  };

const oldAddressesRedirect = async () => { // the old badge and feed addresses redirect permanently to the new ones, query kept
    expect(await redirectOf(`/api/badges/${ORIGINAL}.svg`)).toEqual({ status: 301, location: `/api/badges/${RENAMED}.svg`, cacheControl: "public, max-age=3600" });
    expect((await redirectOf(`/api/badges/${ORIGINAL}.json`)).location).toBe(`/api/badges/${RENAMED}.json`);
    expect((await redirectOf(`/api/badges/${ORIGINAL}/issues/${renamedIssue}.svg`)).location).toBe(`/api/badges/${RENAMED}/issues/${renamedIssue}.svg`);
    expect((await redirectOf(`/api/badges/${ORIGINAL}/reliability.json`)).location).toBe(`/api/badges/${RENAMED}/reliability.json`);
    expect((await redirectOf(`/badge/${ORIGINAL}/reliability.svg`)).location).toBe(`/badge/${RENAMED}/reliability.svg`);
    expect(await redirectOf(`/api/feeds/repos/${ORIGINAL}?utm_source=readme`)).toMatchObject({ status: 301, location: `/api/feeds/repos/${RENAMED}?utm_source=readme` });
    // The public reads the public page and embeds call (stable, cross-origin): redirected too, readable from any origin.
    const unified = await call(stack.t, `/api/public/unified-repo/${ORIGINAL}`, { headers: { Origin: "https://blog.example" } });
    expect([unified.status, unified.headers.get("location"), unified.headers.get("access-control-allow-origin")]).toEqual([301, `/api/public/unified-repo/${RENAMED}`, "*"]);
    expect((await redirectOf(`/api/public/github/repos/${ORIGINAL}`)).location).toBe(`/api/public/github/repos/${RENAMED}`);
    expect((await redirectOf(`/api/public/unified-repo/${RENAMED}`)).status).toBe(200);
    // Followed, they answer as the new name does.
    const badge = await call(stack.t, `/api/badges/${RENAMED}.json`);
    expect(badge.status).toBe(200);
    expect(((await badge.json()) as { message: string }).message).toContain("1 open bounty");
    const feed = await call(stack.t, `/api/feeds/repos/${RENAMED}`, { headers: { Accept: "application/atom+xml" } });
    expect(feed.status).toBe(200);
    expect(await feed.text()).toContain(`#${renamedIssue} Set before the rename`);
    // A name that never was the repository's is not redirected.
    expect((await redirectOf("/api/badges/alice/never-was.svg")).status).toBe(200);
    expect((await redirectOf("/api/feeds/repos/alice/never-was")).status).toBe(404);
  };

const savedSearchesKeepMatching = async () => { // saved searches and explore filters written with the old name keep matching
    const matches = await matchingBounties(stack.t.ctx.database.db, parseSearch(`repo=${ORIGINAL}`), { limit: 50 });
    expect(matches.map((m) => [m.fullName, m.issueNumber])).toContainEqual([RENAMED, renamedIssue]);
    const saved = await call(stack.t, "/api/alerts/searches", { as: bob, body: { query: `repo=${ORIGINAL}`, name: "old name" } });
    expect(saved.status, await saved.clone().text()).toBe(201);
    const explored = (await (await call(stack.t, `/api/explore?repo=${encodeURIComponent(ORIGINAL)}`)).json()) as { bounties: { repository: string; issueNumber: number }[] };
    expect(explored.bounties.map((b) => [b.repository, b.issueNumber])).toContainEqual([RENAMED, renamedIssue]);
    const feed = await (await call(stack.t, `/api/feeds/explore?repo=${encodeURIComponent(ORIGINAL)}`, { headers: { Accept: "application/atom+xml" } })).text();
    expect(feed).toContain(`${RENAMED}#${renamedIssue}`);
  };

const mergeAfterRenamePays = async () => { // a merge after the rename pays the pull request's author
    await mergedFixPays(RENAMED, renamedIssue);
  };

// Then transferred to an organisation.
const transferFollowsTheOwner = async () => { // follows the new owner, links the installation that sees it now, and a later merge pays
    const issue = await bountiedIssue(RENAMED, "Set before the transfer");
    // The organisation has the App (with all its repositories): after the transfer that installation sees it.
    const orgInstall = await stack.github.controls.install({ account: "issuepool-demo", repositories: "all", sender: "alice" });
    const orgInstallation = (orgInstall.installation as { id: number }).id;
    await stack.github.controls.transferRepository({ repo: RENAMED, newOwner: "issuepool-demo", actor: "alice" });
    await settled();
    const row = await stored();
    expect([row.fullName, row.owner, row.installationId]).toEqual([TRANSFERRED, "issuepool-demo", orgInstallation]);
    const history = await stack.t.ctx.database.db.select().from(repositoryFormerNames).where(eq(repositoryFormerNames.githubRepoId, REPO_ID));
    expect(history.map((h) => [h.fullName, h.move]).sort()).toEqual([[RENAMED, "transferred"], [ORIGINAL, "renamed"]]);
    // Both former names lead to the current one.
    expect((await redirectOf(`/api/badges/${ORIGINAL}.svg`)).location).toBe(`/api/badges/${TRANSFERRED}.svg`);
    expect((await redirectOf(`/api/badges/${RENAMED}.svg`)).location).toBe(`/api/badges/${TRANSFERRED}.svg`);
    expect((await redirectOf(`/api/feeds/repos/${RENAMED}`)).location).toBe(`/api/feeds/repos/${TRANSFERRED}`);
    await mergedFixPays(TRANSFERRED, issue);
  };

const transferWithoutTheApp = async () => { // transferred where the App is not installed: not managed, and the old names still redirect
    await stack.github.controls.transferRepository({ repo: TRANSFERRED, newOwner: "dave", actor: "alice" });
    await settled();
    const row = await stored();
    expect([row.fullName, row.installationId]).toEqual(["dave/explorer-next", null]);
    expect((await redirectOf(`/api/badges/${TRANSFERRED}.svg`)).location).toBe("/api/badges/dave/explorer-next.svg");
    // Back where the App is, for the next test.
    await stack.github.controls.transferRepository({ repo: "dave/explorer-next", newOwner: "issuepool-demo", actor: "dave" });
    await settled();
    expect((await stored()).fullName).toBe(TRANSFERRED);
    // Moving back to a former name takes it off the list: the current name is never a "former" one.
    const history = await stack.t.ctx.database.db.select().from(repositoryFormerNames).where(eq(repositoryFormerNames.githubRepoId, REPO_ID));
    expect(history.map((h) => h.fullName).sort()).toEqual([ORIGINAL, "dave/explorer-next", RENAMED].sort());
  };

const neverToAPrivateRepository = async () => { // a repository made private is never the target of a redirect, and a new repository taking the old name wins
    await stack.github.controls.setRepositoryVisibility({ repo: TRANSFERRED, visibility: "private" });
    await settled();
    expect(await redirectOf(`/api/badges/${ORIGINAL}.json`)).toMatchObject({ status: 200, location: null });
    expect(((await (await call(stack.t, `/api/badges/${ORIGINAL}.json`)).json()) as { message: string }).message).toBe("not registered");
    expect((await redirectOf(`/api/feeds/repos/${ORIGINAL}`)).status).toBe(404);
    await stack.github.controls.setRepositoryVisibility({ repo: TRANSFERRED, visibility: "public" });
    await settled();
    expect((await redirectOf(`/api/badges/${ORIGINAL}.json`)).status).toBe(301);
    // Another registered repository now named like the old one: its own badge, no redirect.
    await stack.t.ctx.database.db.insert(repositories).values({ githubRepoId: 990_001, fullName: ORIGINAL, fullNameKey: ORIGINAL, owner: "alice", name: "xdc-explorer-lite", htmlUrl: "http://github.test/x" });
    try {
      expect(await movedRepository(stack.t.ctx, ORIGINAL)).toBeUndefined();
      expect((await redirectOf(`/api/badges/${ORIGINAL}.json`)).status).toBe(200);
    } finally {
      await stack.t.ctx.database.db.delete(repositories).where(eq(repositories.githubRepoId, 990_001));
    }
  };

// One repository's story in order (each step renames or moves what the next reads; the suite runs tests in random order).
test("a registered repository renamed, then transferred: its history, redirects, saved searches and payouts follow it", async () => {
  // follows the new name and keeps the old one in its history
  await followsTheNewName();
  // the old badge and feed addresses redirect permanently to the new ones, query kept
  await oldAddressesRedirect();
  // saved searches and explore filters written with the old name keep matching
  await savedSearchesKeepMatching();
  // a merge after the rename pays the pull request's author
  await mergeAfterRenamePays();
  // follows the new owner, links the installation that sees it now, and a later merge pays
  await transferFollowsTheOwner();
  // transferred where the App is not installed: not managed, and the old names still redirect
  await transferWithoutTheApp();
  // a repository made private is never the target of a redirect, and a new repository taking the old name wins
  await neverToAPrivateRepository();
}, 600_000);
