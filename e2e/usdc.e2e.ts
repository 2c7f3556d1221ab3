import { expect, test } from "@playwright/test";
import { showUnits, shownUnits, signIn } from "./support.ts";

/**
 * USDC pools end to end (issue 11): a pool manager approves and adds USDC in
 * the funding panel, sets a USDC bounty on an issue, and the merged pull
 * request that fixes it pays the author in USDC. On
 * issuepool-demo/contract-audit-tools, whose USDC pool no other journey reads.
 */
const SDK = { id: 5002, fullName: "issuepool-demo/contract-audit-tools" };
const emulator = `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}`;

test("fund a pool in USDC, set a USDC bounty, merge the fix: the author is paid in USDC", async ({ page }) => {
  test.setTimeout(120_000);
  const opened = await page.request.post(`${emulator}/_emulator/issues`, { data: { repo: SDK.fullName, title: `Paid in USDC ${Date.now()}`, author: "alice" } });
  const issue = ((await opened.json()).issue as { number: number }).number;

  await signIn(page, "alice", `/repos/${SDK.fullName}#rewards`);
  const panel = page.locator("[data-funding-panel]");
  await panel.getByRole("tab", { name: "USDC" }).click();
  const usdcPool = panel.locator("[data-stat=usdc-pool] [data-value]");
  await expect(usdcPool).toHaveText(/USDC$/);
  const before = shownUnits((await usdcPool.textContent())!, 2);
  await expect(panel.locator("[data-stat=usdc-balance] [data-value]")).toHaveText(/USDC$/);

  await page.getByLabel("Amount (USDC)").fill("10");
  await expect(page.locator("[data-fee-breakdown=USDC]")).toContainText("9.95 USDC");
  await page.getByRole("button", { name: /^(Approve & )?Add USDC$/ }).click();
  await page.getByRole("dialog", { name: "Add 10.00 USDC to the pool?" }).getByRole("button", { name: "Confirm and add USDC" }).click();
  await expect(page.locator("li[data-toast-type]").filter({ hasText: "USDC Funding Submitted" })).toBeVisible({ timeout: 30_000 });
  await expect(usdcPool).toHaveText(`${showUnits(before + shownUnits("9.95", 2), 2)} USDC`, { timeout: 20_000 });

  const form = panel.locator("[data-assign-bounty=USDC]");
  await form.getByLabel("Issue").selectOption(String(issue));
  await form.getByLabel("Bounty amount (USDC)").fill("2");
  await form.getByRole("button", { name: "Assign USDC Bounty" }).click();
  await expect(page.locator("li[data-toast-type]").filter({ hasText: "USDC Bounty Assigned" })).toBeVisible({ timeout: 30_000 });
  await expect.poll(async () => (await (await page.request.get(`/api/blockchain/issue-bounty/${SDK.id}/${issue}`)).json()).usdcAmount, { timeout: 20_000 }).toBe("2");

  // bob fixes it; alice merges on GitHub: the platform pays bob 2 USDC.
  const pr = await page.request.post(`${emulator}/_emulator/pulls`, { data: { repo: SDK.fullName, author: "bob", title: "Fix", body: `Fixes #${issue}`, head: `bob:usdc-${issue}` } });
  const number = ((await pr.json()).pull_request as { number: number }).number;
  expect((await page.request.post(`${emulator}/_emulator/pulls/merge`, { data: { repo: SDK.fullName, number, actor: "alice" } })).ok()).toBe(true);
  await expect
    .poll(async () => (await (await page.request.get(`/api/blockchain/issue-bounty/${SDK.id}/${issue}`)).json()).status, { timeout: 30_000 })
    .toBe("paid");
});
