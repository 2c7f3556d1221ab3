/**
 * Community bounties follow their repository's visibility (issue 36, item 6), over HTTP against the GitHub emulator:
 * a repository without the App (dave/hello-xdc) turned private, or gone, takes its community bounties out of the
 * list, the detail and the leaderboard once the cached answer is older than its age (GitHub asked again, as the
 * bounty's creator); public again, they are back; GitHub unreachable, the last answer stays. A registered repository
 * with the App follows its `repository` webhook at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { communityBounties, repositories, repositoryVisibility } from "../../../db/schema/index.ts";
import { refreshCommunityVisibility, VISIBILITY_MAX_AGE_MS } from "./community-visibility.ts";

const HELLO = { id: 5006, fullName: "dave/hello-xdc" };
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
let stack: TestStack;
let alice: TestSession;
let carol: TestSession;

beforeAll(async () => {
  stack = await startTestStack();
  alice = await stack.signUp("alice", "poolmanager");
  carol = await stack.signUp("carol", "contributor");
}, 120_000);
afterAll(() => stack?.stop());

async function communityBounty(repo: { fullName: string }, title: string): Promise<number> {
  const [owner, name] = repo.fullName.split("/") as [string, string];
  const opened = await stack.github.controls.openIssue({ repo: repo.fullName, title, author: owner });
  const issue = (opened.issue as { number: number }).number;
  const res = await call(stack.t, "/api/community-bounties", {
    as: carol,
    body: { githubRepoOwner: owner, githubRepoName: name, githubIssueNumber: issue, githubIssueUrl: `https://github.com/${repo.fullName}/issues/${issue}`, title, amount: "2", currency: "XDC" },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { bounty: { id: number } }).bounty.id;
}
const listed = async (repo: string) =>
  ((await (await call(stack.t, `/api/community-bounties?limit=100&repo=${repo}`)).json()) as { bounties: { id: number }[]; total: number });
const detailStatus = async (id: number) => (await call(stack.t, `/api/community-bounties/${id}`)).status;
const leaderboard = async () => ((await (await call(stack.t, "/api/community-bounties/leaderboard?limit=50")).json()) as { leaderboard: { githubUsername: string }[] }).leaderboard.map((e) => e.githubUsername);
/** The cached answer made older than its age: the next read asks GitHub again. */
const ageCache = (repoId: number) =>
  stack.t.ctx.database.db.update(repositoryVisibility).set({ checkedAt: new Date(Date.now() - VISIBILITY_MAX_AGE_MS - 1_000) }).where(eq(repositoryVisibility.githubRepoId, repoId));
const visibility = (repo: { fullName: string }, value: "public" | "private") => stack.github.controls.setRepositoryVisibility({ repo: repo.fullName, visibility: value, actor: repo.fullName.split("/")[0]! });

describe("a repository without the App", () => {
  test("turned private: its community bounties leave the list, the detail and the leaderboard; public again, they are back", async () => {
    const id = await communityBounty(HELLO, `Visibility ${Date.now()}`);
    // A bounty completed on it earlier, by its claimer (the leaderboard's row).
    await stack.t.ctx.database.db.insert(communityBounties).values({
      githubRepoId: HELLO.id, repoOwner: "dave", repoName: "hello-xdc", issueNumber: 900_001, issueUrl: `https://github.com/${HELLO.fullName}/issues/900001`,
      title: "Done before", currency: "XDC", status: "completed", createdByLogin: "carol", claimedByLogin: "hello-claimer",
    });
    expect((await listed(HELLO.fullName)).bounties.map((b) => b.id)).toContain(id);
    expect(await detailStatus(id)).toBe(200);
    expect(await leaderboard()).toContain("hello-claimer");
    const [asked] = await stack.t.ctx.database.db.select().from(repositoryVisibility).where(eq(repositoryVisibility.githubRepoId, HELLO.id));
    expect(asked).toMatchObject({ public: true, reason: "public" });

    await visibility(HELLO, "private");
    // Within the cache's age nothing is asked: still shown (the documented delay, VISIBILITY_MAX_AGE_MS).
    expect((await listed(HELLO.fullName)).bounties.map((b) => b.id)).toContain(id);
    await ageCache(HELLO.id);
    const hidden = await listed(HELLO.fullName);
    expect(hidden).toMatchObject({ bounties: [], total: 0 });
    expect((await listed("")).bounties.map((b) => b.id)).not.toContain(id);
    expect(await detailStatus(id)).toBe(404);
    expect(await leaderboard()).not.toContain("hello-claimer");
    const [answer] = await stack.t.ctx.database.db.select().from(repositoryVisibility).where(eq(repositoryVisibility.githubRepoId, HELLO.id));
    // Asked as carol, its creator: GitHub shows her nothing of a private repository she cannot read (404).
    expect(answer).toMatchObject({ public: false, reason: "not_found" });

    // GitHub unreachable: the last answer stays (an outage shows nothing again).
    await ageCache(HELLO.id);
    await refreshCommunityVisibility({ ...stack.t.ctx, env: { ...stack.t.ctx.env, GITHUB_API_URL: "http://127.0.0.1:9" } });
    expect(await detailStatus(id)).toBe(404);

    await visibility(HELLO, "public");
    await ageCache(HELLO.id);
    expect((await listed(HELLO.fullName)).bounties.map((b) => b.id)).toContain(id);
    expect(await detailStatus(id)).toBe(200);
    expect(await leaderboard()).toContain("hello-claimer");
  }, 60_000);

  test("gone from GitHub (deleted, or no longer readable): hidden", async () => {
    const [row] = await stack.t.ctx.database.db
      .insert(communityBounties)
      .values({ githubRepoId: 987_654_321, repoOwner: "ghost", repoName: "gone", issueNumber: 1, issueUrl: "https://github.com/ghost/gone/issues/1", title: "Gone", currency: "XDC", status: "completed", createdByLogin: "carol", claimedByLogin: "ghost-claimer" })
      .returning();
    expect(await detailStatus(row!.id)).toBe(404);
    expect(await leaderboard()).not.toContain("ghost-claimer");
    const [answer] = await stack.t.ctx.database.db.select().from(repositoryVisibility).where(eq(repositoryVisibility.githubRepoId, 987_654_321));
    expect(answer).toMatchObject({ public: false, reason: "not_found" });
  });
});

describe("a registered repository", () => {
  test("with the App: its `repository` webhook hides its community bounties at once; without it (uninstalled), GitHub is asked", async () => {
    const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
    const installationId = (installed.installation as { id: number }).id;
    expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
    expect((await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } })).status).toBe(200);
    const id = await communityBounty(LITE, `Registered visibility ${Date.now()}`);
    expect(await detailStatus(id)).toBe(200);

    await visibility(LITE, "private");
    await stack.t.ctx.webhooks.runOnce();
    expect(await detailStatus(id)).toBe(404);
    expect((await listed(LITE.fullName)).bounties).toEqual([]);
    await visibility(LITE, "public");
    await stack.t.ctx.webhooks.runOnce();
    expect(await detailStatus(id)).toBe(200);

    // The App uninstalled: no webhook comes; the read asks GitHub, and the repository's flag follows for every page.
    await stack.github.controls.uninstall({ installationId, actor: "alice" });
    await stack.t.ctx.webhooks.runOnce();
    const [registered] = await stack.t.ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, LITE.id));
    expect(registered!.installationId).toBeNull();
    await visibility(LITE, "private");
    expect(await detailStatus(id)).toBe(404);
    const [after] = await stack.t.ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, LITE.id));
    expect(after!.isPrivate).toBe(true);
  }, 60_000);
});
