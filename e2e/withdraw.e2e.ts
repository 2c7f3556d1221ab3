import { expect, test } from "@playwright/test";
import { showUnits, shownUnits, signIn } from "./support.ts";

/**
 * A pool manager withdraws unallocated funds (issue 11): the confirm dialog
 * names the amount, where it goes and what it means; the pool figure falls by
 * exactly the amount. On a repository no other journey funds or reads.
 */
const AUDIT = "/repos/issuepool-demo/contract-audit-tools";

test("a pool manager withdraws ROXN from the pool after confirming; the pool falls by exactly that", async ({ page }) => {
  await signIn(page, "alice", `${AUDIT}#rewards`);
  const panel = page.locator("[data-funding-panel]");
  await panel.getByRole("tab", { name: "ROXN" }).click();
  const roxnPool = panel.locator("[data-stat=roxn-pool] [data-value]");
  await expect(roxnPool).toHaveText(/ROXN$/);
  const before = shownUnits((await roxnPool.textContent())!, 2);
  expect(before).toBeGreaterThan(shownUnits("25", 2));

  const form = panel.locator("[data-withdraw=ROXN]");
  await form.getByLabel("Amount to withdraw (ROXN)").fill("25");
  await form.getByRole("button", { name: "Withdraw ROXN" }).click();
  const dialog = page.getByRole("dialog", { name: "Withdraw 25.0000 ROXN?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("From the issuepool-demo/contract-audit-tools pool to your wallet");
  await expect(dialog).toContainText("bounties already set are not touched");
  // Cancel first: nothing happens.
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(roxnPool).toHaveText(`${showUnits(before, 2)} ROXN`);

  await form.getByRole("button", { name: "Withdraw ROXN" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Withdraw ROXN" }).click();
  await expect(page.locator("li[data-toast-type]").filter({ hasText: "ROXN Withdrawn" })).toBeVisible({ timeout: 20_000 });
  await expect(roxnPool).toHaveText(`${showUnits(before - shownUnits("25", 2), 2)} ROXN`, { timeout: 20_000 });

  // More than the pool holds: refused with the pool's figure, no dialog.
  await form.getByLabel("Amount to withdraw (ROXN)").fill("99999999");
  await form.getByRole("button", { name: "Withdraw ROXN" }).click();
  await expect(page.locator("li[data-toast-type]").filter({ hasText: "Error Withdrawing ROXN" })).toContainText("Amount cannot exceed available ROXN pool balance");
  await expect(page.getByRole("dialog")).toBeHidden();
});
