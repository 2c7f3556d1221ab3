import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { showUnits, shownUnits, signIn, signOut } from "./support.ts";

/**
 * Bounties awaiting the pool manager's decision (issue 11): an issue closed as
 * completed with no paying pull request, or closed as not planned while
 * someone works on it. The pool manager sees it on the repository page and
 * the dashboard, then releases it to a contributor they choose, or cancels it
 * back to the pool; public figures leave it out meanwhile.
 *
 * Demo data: issuepool-demo/tool-library's XDC pool, which these journeys fund and no other journey reads (the
 * scoping journey uses its USDC pool; funding it keeps the four funded repositories of e2e/repositories.e2e.ts).
 * The two journeys run one after the other: the cancel journey measures that pool.
 */
const LIBRARY = { id: 5007, fullName: "issuepool-demo/tool-library" };
const emulator = `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}`;
test.describe.configure({ mode: "serial" });

async function setUp(page: Page, title: string) {
  const opened = await page.request.post(`${emulator}/_emulator/issues`, { data: { repo: LIBRARY.fullName, title: `${title} ${Date.now()}`, author: "alice" } });
  expect(opened.ok()).toBe(true);
  const issue = ((await opened.json()).issue as { number: number; title: string });
  await signIn(page, "alice", `/repos/${LIBRARY.fullName}`);
  const { csrfToken } = await (await page.request.get("/api/auth/csrf-token")).json();
  const post = (path: string, data: unknown) =>
    page.request.post(path, { data, headers: { "X-CSRF-Token": csrfToken, "Idempotency-Key": `awaiting-e2e-${path.replaceAll("/", "-")}-${Date.now()}` } });
  expect((await post(`/api/blockchain/repository/${LIBRARY.id}/fund`, { amountXdc: "10", repositoryFullName: LIBRARY.fullName })).ok()).toBe(true);
  const allocated = await post(`/api/blockchain/allocate-bounty/${LIBRARY.id}/${issue.number}`, { bountyAmount: "3", isRoxn: false, githubRepoFullName: LIBRARY.fullName });
  expect(allocated.ok(), await allocated.text()).toBe(true);
  return issue;
}

const stateOf = async (page: Page, issue: number) =>
  ((await (await page.request.get(`/api/blockchain/pool-info/${LIBRARY.id}`)).json()).issues as { issueId: number; state: string }[]).find((b) => b.issueId === issue)?.state;
const advertised = async (page: Page) =>
  ((await (await page.request.get(`/api/public/unified-repo/${LIBRARY.fullName}`)).json()).bounties as { issueNumber: number }[]).map((b) => b.issueNumber);
/** The pool manager's cancel, through the API the dialog calls (a fresh key: a new request). */
async function cancelViaApi(page: Page, issue: number): Promise<{ status: number; body: { message?: string } }> {
  const { csrfToken } = await (await page.request.get("/api/auth/csrf-token")).json();
  const res = await page.request.post(`/api/blockchain/cancel-bounty/${LIBRARY.id}/${issue}`, {
    data: { githubRepoFullName: LIBRARY.fullName },
    headers: { "X-CSRF-Token": csrfToken, "Idempotency-Key": `awaiting-e2e-cancel-${issue}-${Date.now()}` },
  });
  return { status: res.status(), body: await res.json() };
}

async function botComment(page: Page, issue: number): Promise<string> {
  const res = await page.request.get(`${emulator}/api/v3/repos/${LIBRARY.fullName}/issues/${issue}/comments`);
  const comments = (await res.json()) as { body: string; user: { type: string } }[];
  return comments.find((c) => c.user.type === "Bot")?.body ?? "";
}

test("closed as completed without a pull request: awaiting decision, then released to a contributor the pool manager picks by login", async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  const issue = await setUp(page, "Fixed in a side branch");
  expect(await advertised(page)).toContain(issue.number);
  // bob registered for it; carol did the work in the end.
  expect((await page.request.post(`${emulator}/_emulator/comments`, { data: { repo: LIBRARY.fullName, number: issue.number, author: "bob", body: "/attempt" } })).ok()).toBe(true);
  await expect.poll(() => stateOf(page, issue.number), { timeout: 20_000 }).toBe("claimed");

  expect((await page.request.post(`${emulator}/_emulator/issues/close`, { data: { repo: LIBRARY.fullName, number: issue.number, reason: "completed", actor: "alice" } })).ok()).toBe(true);
  await expect.poll(() => stateOf(page, issue.number), { timeout: 20_000 }).toBe("awaiting");
  expect(await advertised(page)).not.toContain(issue.number);
  // The public page's value locked shows it apart, not as available to work on.
  await expect.poll(async () => (await (await page.request.get(`/${LIBRARY.fullName}`)).text()).match(/Besides: [\d.,]+ XDC awaiting the pool manager/)?.[0], { timeout: 20_000 }).toBe(
    "Besides: 3.00 XDC awaiting the pool manager",
  );
  await expect.poll(() => botComment(page, issue.number), { timeout: 20_000 }).toContain("**Awaiting decision**");

  // The dashboard points to it; the repository page lists it with the decisions.
  await page.goto("/profile");
  const dashboard = page.locator("[data-awaiting-dashboard]");
  await expect(dashboard.locator(`[data-awaiting-issue="${issue.number}"]`)).toContainText(issue.title);
  const onDashboard = await new AxeBuilder({ page }).include("[data-awaiting-dashboard]").withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  expect(onDashboard.violations.filter((v) => v.impact !== "minor").map((v) => v.id)).toEqual([]);
  await dashboard.locator(`[data-awaiting-issue="${issue.number}"]`).getByRole("link", { name: "Decide" }).click();
  await expect(page).toHaveURL(new RegExp(`/repos/${LIBRARY.fullName}#issues$`));
  const row = page.locator(`[data-awaiting-decisions] tr[data-issue="${issue.number}"]`);
  await expect(row).toContainText(issue.title);
  await expect(row.locator("[data-badge]")).toHaveText("Awaiting decision");
  await expect(row.locator("[data-amount]")).toHaveText("3.0000 XDC");
  await row.screenshot({ path: testInfo.outputPath("awaiting-row.png") });
  // The awaiting list and the dashboard card pass axe (moderate findings and up).
  const results = await new AxeBuilder({ page }).include("[data-awaiting-decisions]").withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  expect(results.violations.filter((v) => v.impact !== "minor").map((v) => `${v.id}: ${v.nodes.map((x) => x.target.join(" ")).join(", ")}`)).toEqual([]);

  await row.getByRole("button", { name: `Release the bounty of issue #${issue.number}` }).click();
  const dialog = page.getByRole("dialog", { name: `Release the bounty of issue #${issue.number}` });
  await expect(dialog.getByRole("radio", { name: /@bob/ })).toBeChecked();
  await dialog.getByLabel("GitHub login of the recipient").fill("carol");
  await expect(dialog.locator("[data-consequence]")).toHaveText(
    "Pays 3.0000 XDC to @carol's Issuepool wallet; if they have none yet, it is held for them and paid when they sign in. A bounty is paid once: this cannot be undone.",
  );
  await page.screenshot({ path: testInfo.outputPath("release-by-login.png") });
  await dialog.getByRole("button", { name: "Release bounty" }).click();
  await expect(page.locator("li[data-toast-type]").filter({ hasText: "Bounty Released" })).toContainText("3.0000 XDC to @carol", { timeout: 20_000 });
  await expect(row).toBeHidden({ timeout: 20_000 });
  await expect.poll(() => stateOf(page, issue.number), { timeout: 20_000 }).toBe("paid");
  await expect.poll(() => botComment(page, issue.number), { timeout: 20_000 }).toContain("**Paid** 3.0000 XDC to @carol");
  expect(await botComment(page, issue.number)).not.toContain("Nobody yet");
  // Once: a second release is refused.
  const { csrfToken } = await (await page.request.get("/api/auth/csrf-token")).json();
  const again = await page.request.post(`/api/blockchain/distribute-bounty/${LIBRARY.id}/${issue.number}`, {
    data: { contributorLogin: "bob", githubRepoFullName: LIBRARY.fullName },
    headers: { "X-CSRF-Token": csrfToken, "Idempotency-Key": `awaiting-e2e-again-${Date.now()}` },
  });
  expect(again.status()).toBe(409);

  // The sponsor's record and the boards show the payout (issue 30): the reliability badge counts it, the
  // contributors board lists carol, and her profile lists the bounty with its transaction.
  await expect
    .poll(async () => (await (await page.request.get(`/badge/${LIBRARY.fullName}/reliability.json`)).json()).message, { timeout: 20_000 })
    .toMatch(/^\d+ paid/);
  expect((await page.request.get(`/badge/${LIBRARY.fullName}/reliability.svg`)).headers()["content-type"]).toContain("image/svg+xml");
  await page.goto("/leaderboard");
  const carolRow = page.locator('[data-board="contributors"] [data-contributor="carol"]');
  await expect(carolRow).toBeVisible();
  await carolRow.getByRole("link", { name: "@carol" }).click();
  await expect(page).toHaveURL(/\/@carol$/);
  await expect(page.locator("[data-earned]")).toContainText(`#${issue.number}`);

  // carol sees the reward in her wallet's Transactions tab: repository, issue title, transaction.
  await signOut(page);
  await signIn(page, "carol", "/wallet");
  await page.getByRole("tab", { name: "Transactions" }).click();
  const reward = page.locator('[data-history-kind="reward"]').filter({ hasText: issue.title });
  await expect(reward).toContainText("Reward received");
  await expect(reward).toContainText("+3.0000 XDC");
  await expect(reward).toContainText(`${LIBRARY.fullName} · ${issue.title} #${issue.number}`);
  await expect(reward.locator("[data-transaction-hash]")).toHaveAttribute("data-transaction-hash", /^0x[0-9a-f]{64}$/);
  await reward.screenshot({ path: testInfo.outputPath("wallet-reward.png") });
});

test("closed as not planned while bob works on it: awaiting decision, then a refund requested (bob's claim is on-chain: it returns after the delay)", async ({ page }) => {
  test.setTimeout(150_000);
  const issue = await setUp(page, "Dropped from the roadmap");
  expect((await page.request.post(`${emulator}/_emulator/comments`, { data: { repo: LIBRARY.fullName, number: issue.number, author: "bob", body: "/attempt" } })).ok()).toBe(true);
  await expect.poll(() => stateOf(page, issue.number), { timeout: 20_000 }).toBe("claimed");
  expect((await page.request.post(`${emulator}/_emulator/issues/close`, { data: { repo: LIBRARY.fullName, number: issue.number, reason: "not_planned", actor: "alice" } })).ok()).toBe(true);
  await expect.poll(() => stateOf(page, issue.number), { timeout: 20_000 }).toBe("awaiting");

  // The sign-in left the browser on this page before the bounty was set: load it again.
  await page.goto(`/repos/${LIBRARY.fullName}#rewards`);
  await page.reload();
  const xdcPool = page.locator("[data-stat=xdc-pool] [data-value]");
  await expect(xdcPool).toHaveText(/XDC$/);
  const before = await xdcPool.textContent();
  await page.getByRole("tab", { name: "Issues" }).click();
  const row = page.locator(`[data-awaiting-decisions] tr[data-issue="${issue.number}"]`);
  await expect(row).toContainText("Closed as not planned while a contributor was registered.");
  await row.getByRole("button", { name: `Cancel the bounty of issue #${issue.number}` }).click();
  const dialog = page.getByRole("dialog", { name: `Cancel the bounty of issue #${issue.number}` });
  // bob registered, but the issue is closed: cancelling is the pool manager's call now. bob's claim is on-chain
  // (RepoRewards v2), so the contract returns the money only 3 days after the request (docs/contracts.md).
  await expect(dialog.locator("[data-consequence]")).toContainText("the contract returns 3.0000 XDC to the repository's pool 3 days after this request");
  await dialog.getByRole("button", { name: "Cancel bounty" }).click();
  await expect(page.locator("li[data-toast-type]").filter({ hasText: "Refund Requested" })).toBeVisible({ timeout: 20_000 });
  // Still owed to the pool later, not now: the bounty stays open on-chain and the pool unchanged.
  expect((await page.request.get(`/api/blockchain/issue-bounty/${LIBRARY.id}/${issue.number}`)).status()).toBe(200);
  // A second cancel before it is due says when the refund happens, and sends nothing.
  const again = await cancelViaApi(page, issue.number);
  expect(again.status, JSON.stringify(again.body)).toBe(409);
  expect(again.body.message).toMatch(/^The refund is already requested: the bounty returns to the pool after \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\.$/);
  await page.getByRole("tab", { name: "Rewards" }).click();
  await expect(xdcPool).toHaveText(before!);
});
