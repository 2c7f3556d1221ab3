import { expect, test } from "@playwright/test";
import { signIn } from "./support.ts";

/**
 * A pool manager approves a contributor's work and releases the bounty by hand
 * (spec: pool managers "approve solutions and release rewards"; issue 11), and
 * cancels another one nobody works on. On issuepool-demo/contract-audit-tools, whose XDC pool (this journey
 * fills it) no other journey reads (the withdraw journey uses its ROXN pool, the USDC journey its USDC pool).
 */
const SDK = { id: 5002, fullName: "issuepool-demo/contract-audit-tools" };
const emulator = `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}`;

test("release a bounty to the contributor who registered, and cancel one nobody works on", async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const open = async (title: string) => {
    const res = await page.request.post(`${emulator}/_emulator/issues`, { data: { repo: SDK.fullName, title: `${title} ${Date.now()}`, author: "alice" } });
    expect(res.ok()).toBe(true);
    return ((await res.json()).issue as { number: number }).number;
  };
  const released = await open("Released by hand");
  const cancelled = await open("Cancelled by hand");

  await signIn(page, "alice", `/repos/${SDK.fullName}`);
  // The money side through the API, as the funding panel would: a pool, then a bounty on each issue.
  const { csrfToken } = await (await page.request.get("/api/auth/csrf-token")).json();
  const post = (path: string, data: unknown) =>
    page.request.post(path, { data, headers: { "X-CSRF-Token": csrfToken, "Idempotency-Key": `release-e2e-${path.replaceAll("/", "-")}-${Date.now()}` } });
  expect((await post(`/api/blockchain/repository/${SDK.id}/fund`, { amountXdc: "20", repositoryFullName: SDK.fullName })).ok()).toBe(true);
  for (const issue of [released, cancelled]) {
    const res = await post(`/api/blockchain/allocate-bounty/${SDK.id}/${issue}`, { bountyAmount: "3", isRoxn: false, githubRepoFullName: SDK.fullName });
    expect(res.ok(), await res.text()).toBe(true);
  }
  // bob says he works on the first one, the way contributors do on GitHub.
  expect((await page.request.post(`${emulator}/_emulator/comments`, { data: { repo: SDK.fullName, number: released, author: "bob", body: "/attempt" } })).ok()).toBe(true);
  await expect
    .poll(async () => ((await (await page.request.get(`/api/blockchain/issue-claimants/${SDK.id}/${released}`)).json()).claimants ?? []).map((c: { username: string }) => c.username), {
      timeout: 20_000,
    })
    .toEqual(["bob"]);

  await page.reload();
  // The page's console stays clean through both decisions (issue 27: the read after a cancel answered 404 and was logged).
  const consoleErrors: string[] = [];
  page.on("console", (message) => message.type() === "error" && consoleErrors.push(message.text()));
  const row = page.locator(`tr[data-issue="${released}"]`);
  await row.getByRole("button", { name: `Release the bounty of issue #${released}` }).click();
  const dialog = page.getByRole("dialog", { name: `Release the bounty of issue #${released}` });
  await expect(dialog.getByRole("radio", { name: /@bob/ })).toBeChecked();
  await page.screenshot({ path: testInfo.outputPath("release-dialog.png") });
  await page.keyboard.press("Escape");
  await row.screenshot({ path: testInfo.outputPath("release-row.png") });
  await row.getByRole("button", { name: `Release the bounty of issue #${released}` }).click();
  await expect(dialog.locator("[data-consequence]")).toHaveText("Pays 3.0000 XDC from the bounty to @bob's Issuepool wallet. A bounty is paid once: this cannot be undone.");
  await dialog.getByRole("button", { name: "Release bounty" }).click();
  await expect(page.locator("li[data-toast-type]").filter({ hasText: "Bounty Released" })).toContainText("3.0000 XDC to @bob", { timeout: 20_000 });
  await expect(dialog).toBeHidden();
  await expect(row.getByRole("button", { name: `Release the bounty of issue #${released}` })).toBeHidden({ timeout: 20_000 });
  expect(await (await page.request.get(`/api/blockchain/issue-bounty/${SDK.id}/${released}`)).json()).toMatchObject({ status: "paid" });

  // The other one: nobody registered, so it can go back to the pool.
  const other = page.locator(`tr[data-issue="${cancelled}"]`);
  await other.getByRole("button", { name: `Cancel the bounty of issue #${cancelled}` }).click();
  const cancelDialog = page.getByRole("dialog", { name: `Cancel the bounty of issue #${cancelled}` });
  await expect(cancelDialog.locator("[data-consequence]")).toContainText("Returns 3.0000 XDC to the repository's pool");
  await cancelDialog.getByRole("button", { name: "Cancel bounty" }).click();
  await expect(page.locator("li[data-toast-type]").filter({ hasText: "Bounty Cancelled" })).toBeVisible({ timeout: 20_000 });
  await expect(other.getByRole("button", { name: `Cancel the bounty of issue #${cancelled}` })).toBeHidden({ timeout: 20_000 });
  expect((await page.request.get(`/api/blockchain/issue-bounty/${SDK.id}/${cancelled}`)).status()).toBe(404);
  await expect(other.locator("[data-reward=none]")).toBeVisible({ timeout: 20_000 });
  await page.waitForLoadState("networkidle");
  expect(consoleErrors).toEqual([]);
});
