import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { securityCases } from "../../../testing/security.ts";
import { pullRequestWaits, repositories } from "../../../db/schema/index.ts";

/**
 * The review-deadline routes' security cases (issue 39), on a context with no background pass (the cases compare
 * the whole database before and after): the deadline is its registering pool manager's, the release request its
 * pull request's author's; a private repository's waits do not exist for others.
 */
let t: TestContext;
let alice: TestSession;
let bob: TestSession;
let carol: TestSession;
const REPO = 5003;
const PRIVATE = 5004;

beforeAll(async () => {
  t = await createTestContext();
  const aliceUser = await createTestUser(t, { role: "poolmanager", username: "alice" });
  const bobUser = await createTestUser(t, { role: "contributor", username: "bob" });
  alice = await signInAs(t, aliceUser);
  bob = await signInAs(t, bobUser);
  carol = await signInAs(t, await createTestUser(t, { role: "contributor", username: "carol" }));
  const repo = (id: number, fullName: string, isPrivate: boolean) => ({ githubRepoId: id, fullName, fullNameKey: fullName, owner: fullName.split("/")[0]!, name: fullName.split("/")[1]!, htmlUrl: `http://github.test/${fullName}`, isPrivate, registeredByUserId: aliceUser.id });
  await t.ctx.database.db.insert(repositories).values([repo(REPO, "alice/xdc-explorer-lite", false), repo(PRIVATE, "alice/hidden", true)]);
  const wait = (repoId: number) => ({ githubRepoId: repoId, pullNumber: 9, authorLogin: "bob", authorGithubId: bobUser.githubId, issueNumbers: "[1]", openedAt: new Date(), waitingSince: new Date() });
  await t.ctx.database.db.insert(pullRequestWaits).values([wait(REPO), wait(PRIVATE)]);
});
afterAll(() => t?.close());

describe("review deadline routes", () => {
  securityCases(() => ({ method: "PUT", path: `/api/reviews/${REPO}/deadline`, body: { deadlineHours: 48 } }), { t: () => t, owner: () => alice, stranger: () => carol });
  securityCases(() => ({ method: "POST", path: `/api/reviews/${REPO}/pulls/9/release-request`, body: {} }), { t: () => t, owner: () => bob, stranger: () => carol });

  test("a private repository's deadline and waits are 404 to others", async () => {
    expect((await call(t, `/api/reviews/${PRIVATE}/deadline`, { as: carol, method: "PUT", body: { deadlineHours: 48 } })).status).toBe(404);
    expect((await call(t, `/api/reviews/${PRIVATE}/pulls/9/release-request`, { as: carol, method: "POST", body: {} })).status).toBe(404);
    expect((await call(t, `/api/reviews/${PRIVATE}/pulls/9`)).status).toBe(404);
    expect((await call(t, `/api/reviews/${PRIVATE}/deadline`)).status).toBe(404);
  });

  test("the default deadline is 72 hours", async () => {
    expect(await (await call(t, `/api/reviews/${REPO}/deadline`)).json()).toEqual({ repoId: REPO, deadlineHours: 72, isDefault: true });
  });
});
