import { expect, test } from "@playwright/test";
import { signIn } from "./support.ts";

/**
 * /explore (issue 30): a visitor filters by currency and amount with the page's own form, lands on a shareable
 * address, and whoever opens that address sees the same bounties. Demo seed: XDC bounties of 25 and 50 on
 * issuepool-demo/xdc-wallet-kit and 15 on another repository; ROXN ones elsewhere.
 */
test("a visitor filters open bounties by currency and amount and shares the address", async ({ page, context }) => {
  await page.goto("/repos");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Explore", exact: true }).click();
  await expect(page).toHaveURL(/\/explore$/);
  await expect(page.getByRole("heading", { name: "Explore open bounties" })).toBeVisible();

  const filters = page.locator("[data-explore-filters]");
  await filters.locator("select[name=currency]").selectOption("XDC");
  await filters.locator("input[name=min]").fill("20");
  await filters.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/\/explore\?currency=XDC&min=20$/);

  const results = page.locator("[data-explore-results] [data-bounty]");
  await expect(results).toHaveCount(2);
  const shown = await results.evaluateAll((items) => items.map((i) => i.getAttribute("data-bounty")));
  expect(shown.every((b) => b!.startsWith("issuepool-demo/xdc-wallet-kit#"))).toBe(true);
  await expect(page.locator("[data-explore-results] [data-amount]").first()).toContainText("XDC");

  // The shared address, opened by someone else: the same bounties, in the same order.
  const shared = await context.newPage();
  await shared.goto(page.url());
  const again = await shared.locator("[data-explore-results] [data-bounty]").evaluateAll((items) => items.map((i) => i.getAttribute("data-bounty")));
  expect(again).toEqual(shown);

  // A filter that makes no sense is explained, not an error page.
  await shared.goto("/explore?currency=XDC&min=lots");
  await expect(shared.getByRole("alert")).toContainText("min: a number of XDC");
});

test("a contributor chooses to show their wallet address on their public profile, and hides it again", async ({ page }) => {
  await signIn(page, "bob", "/profile");
  const settings = page.locator("[data-public-profile-settings]");
  const box = settings.getByRole("checkbox", { name: "Show my wallet address on my public profile" });
  await expect(box).toBeEnabled();
  await expect(box).not.toBeChecked();
  await box.check();
  await expect(page.locator("li[data-toast-type]").filter({ hasText: "shows on your public profile" })).toBeVisible();
  await settings.getByRole("link", { name: /public profile/ }).click();
  await expect(page).toHaveURL(/\/@bob$/);
  await expect(page.locator("[data-wallet]")).toHaveText(/^xdc[0-9a-fA-F]{40}$/);
  await page.goto("/profile");
  // The settings load after the page: until then the box reads unchecked, and unchecking it would do nothing.
  await expect(box).toBeEnabled();
  await expect(box).toBeChecked();
  await box.uncheck();
  await expect(page.locator("li[data-toast-type]").filter({ hasText: "hidden from your public profile" })).toBeVisible();
  // The server drops its copy at once; a browser may keep the page it saw for its 60 s (a public page), so look at
  // another address of it.
  await page.goto("/@bob?after=hiding");
  await expect(page.locator("[data-wallet]")).toHaveCount(0);
});
