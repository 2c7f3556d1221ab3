/**
 * GET /api/user/onboarding (issue 38): the onboarding dialogs open by themselves for new accounts only, not for a
 * pool manager who already runs repositories or a contributor already registered for an issue, on every new browser.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, signInAs } from "../../../testing/auth.ts";
import { bountyClaims, repositories } from "../../../db/schema/index.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const answer = async (session: Awaited<ReturnType<typeof signInAs>>) => {
  const res = await call(t, "/api/user/onboarding", { as: session });
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toContain("no-store");
  return ((await res.json()) as { newAccount: boolean }).newAccount;
};

test("a new pool manager and a new contributor are new; once they run a repository or work on an issue they are not", async () => {
  const manager = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
  const contributor = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  const roleless = await signInAs(t, await createTestUser(t, { registered: false }));
  expect(await answer(manager)).toBe(true);
  expect(await answer(contributor)).toBe(true);
  expect(await answer(roleless)).toBe(true);

  await t.ctx.database.db.insert(repositories).values({ githubRepoId: 9101, fullName: "m/one", fullNameKey: "m/one", owner: "m", name: "one", htmlUrl: "https://github.com/m/one", registeredByUserId: manager.user.id });
  await t.ctx.database.db.insert(bountyClaims).values({ githubRepoId: 9101, issueNumber: 1, userId: contributor.user.id });
  expect(await answer(manager)).toBe(false);
  expect(await answer(contributor)).toBe(false);
});

test("signed out: 401", async () => {
  expect((await call(t, "/api/user/onboarding")).status).toBe(401);
});
