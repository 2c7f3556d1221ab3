import { expect, test } from "@playwright/test";
import { bountiedIssue, mergeCoAuthoredFix, signIn } from "./support.ts";

/**
 * Shared rewards (issue 29, item 4): bob's pull request, co-authored by carol, fixes alice's bountied issue; the
 * merge opens a release window (SPLIT_RELEASE_WINDOW_MS, short in playwright.config.ts) shown on the repository
 * page, and after it bob and carol are paid 50/50. On a fresh issue of alice/xdc-explorer-lite (its XDC pool).
 */
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };

test("a merge co-authored by carol pays bob and carol 50/50 after the release window", async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await signIn(page, "alice", `/repos/${LITE.fullName}`);
  const issue = await bountiedIssue(page, LITE, "Shared fix", "4");
  // bob's pull request, its commit co-authored by carol (her GitHub no-reply address), merged by alice.
  await mergeCoAuthoredFix(page, LITE, issue, "Co-authored-by: Carol Private <1003+carol@users.noreply.github.com>");

  // The merge's webhook is handled in the background: the split exists once its API answers (a reload before that
  // showed no card, and nothing reloads the page by itself; red locally under load).
  await expect.poll(async () => (await page.request.get(`/api/splits/${LITE.id}/${issue}`)).status(), { timeout: 20_000 }).toBe(200);
  // The repository page shows the split in its window: each share and when it is paid.
  await page.reload();
  const card = page.locator(`[data-split="${issue}"]`);
  await expect(card).toBeVisible({ timeout: 20_000 });
  await expect(card.locator("[data-split-release]")).toContainText("Release window open");
  await expect(card.locator('[data-share="bob"]')).toContainText("@bob (author): 50 %, 2 XDC");
  await expect(card.locator('[data-share="carol"]')).toContainText("@carol: 50 %, 2 XDC");
  await expect(card.getByRole("button", { name: "Change shares" })).toBeVisible();
  await card.screenshot({ path: testInfo.outputPath("split-window.png") });

  // After the window the split is paid, once: 2 XDC each, on-chain.
  await expect
    .poll(async () => (await (await page.request.get(`/api/splits/${LITE.id}/${issue}`)).json()).shares.map((s: { login: string; status: string; amount: string }) => `${s.login}:${s.amount}:${s.status}`), {
      timeout: 60_000,
    })
    .toEqual(["bob:2:paid", "carol:2:paid"]);
  await page.reload();
  await expect(page.locator(`[data-split="${issue}"]`)).toHaveAttribute("data-split-status", "released", { timeout: 20_000 });
  expect(await (await page.request.get(`/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).json()).toMatchObject({ status: "paid" });
});
