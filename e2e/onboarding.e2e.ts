import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support.ts";

// These journeys start as a first-time visitor: nothing seen yet.
test.use({ storageState: { cookies: [], origins: [] } });

const help = async (page: Page, item: string) => {
  await page.getByRole("button", { name: "Help & Guides" }).click();
  await page.getByRole("menuitem", { name: item }).click();
};

test("a first-time visitor is welcomed once, dismisses the Rewards Guide everywhere, and reopens the welcome from Help", async ({ page }) => {
  await page.goto("/repos");
  const welcome = page.getByRole("dialog", { name: "Welcome to Issuepool" });
  await expect(welcome).toBeVisible();
  await expect(welcome.getByRole("button", { name: "Try the Contribution Demo" })).toBeVisible();
  await expect(welcome.getByRole("button", { name: "Open the Pool Manager Guide" })).toBeHidden();
  // Focus is inside the modal; Escape closes it.
  await expect(welcome.locator(":focus")).toHaveCount(1);
  await page.keyboard.press("Escape");
  await expect(welcome).toBeHidden();

  const guide = page.getByRole("complementary", { name: "Rewards Guide" });
  await expect(guide).toBeVisible();
  await guide.getByRole("button", { name: "Got it" }).click();
  await expect(guide).toBeHidden();

  await page.reload();
  await expect(page.getByRole("heading", { name: "Explore Bounties" })).toBeVisible();
  await expect(welcome).toBeHidden();
  await expect(guide).toBeHidden();
  await page.goto("/issuepool-demo/xdc-wallet-kit");
  await expect(page.getByRole("heading", { name: "xdc-wallet-kit", level: 1 })).toBeVisible();
  await expect(page.getByRole("complementary", { name: "Rewards Guide" })).toBeHidden();

  await help(page, "Welcome Tour");
  await expect(welcome).toBeVisible();
  await welcome.getByRole("button", { name: "Close" }).click();
  await expect(welcome).toBeHidden();
});

test("a contributor goes from the welcome to the Contribution Demo, earns a simulated reward, and finds it again under Help", async ({ page }) => {
  await signIn(page, "carol", "/repos");
  const welcome = page.getByRole("dialog", { name: "Welcome to Issuepool" });
  await welcome.getByRole("button", { name: "Try the Contribution Demo" }).click();
  const demo = page.getByRole("dialog", { name: "Contribution Demo" });
  await expect(demo).toBeVisible();
  await expect(demo.getByRole("radio")).toHaveCount(3);
  await expect(demo.getByText("Minor bug")).toBeVisible();
  await demo.getByRole("radio", { name: /Balance shows NaN/ }).click();
  await demo.getByRole("button", { name: "Start Contribution" }).click();
  await expect(demo.getByRole("button", { name: "Contributing..." })).toBeDisabled();
  // Five steps, one every 1.5 s.
  await expect(demo.getByText("Reward received: +50 ROXN (₹150 test value)")).toBeVisible({ timeout: 15_000 });
  await expect(demo.locator("[data-demo-earnings]")).toHaveText("50 ROXN · ₹150");
  await page.keyboard.press("Escape");
  await expect(demo).toBeHidden();

  await page.reload();
  await expect(page.getByRole("heading", { name: "Explore Bounties" })).toBeVisible();
  await expect(page.getByRole("dialog")).toHaveCount(0);

  await page.getByRole("button", { name: "Help & Guides" }).click();
  await expect(page.getByRole("menuitem", { name: "Pool Manager Guide" })).toBeHidden();
  await page.getByRole("menuitem", { name: "Contribution Demo" }).click();
  await expect(demo).toBeVisible();
  // It starts afresh.
  await expect(demo.locator("[data-demo-earnings]")).toHaveText("0 ROXN · ₹0");
});

test("a pool manager is shown the guide once on their repositories page, then funds and rewards in the Funding Demo", async ({ page }) => {
  await signIn(page, "erin", "/my-repos");
  const guide = page.getByRole("dialog", { name: "Pool Manager Guide" });
  await expect(guide).toBeVisible();
  await expect(guide.getByText("Step 1 of 5")).toBeVisible();
  for (let i = 0; i < 4; i++) await guide.getByRole("button", { name: "Next" }).click();
  await expect(guide.getByRole("heading", { name: "Merge, and the contributor is paid" })).toBeVisible();
  await guide.getByRole("button", { name: "Try the Funding Demo" }).click();

  const demo = page.getByRole("dialog", { name: "Funding Demo" });
  await expect(demo).toBeVisible();
  await expect(demo.locator("[data-demo-balance]")).toHaveText("2,000.0000 XDC");
  const amount = demo.getByLabel("Amount (XDC)");
  await amount.fill("1");
  await demo.getByRole("button", { name: "Fund Repository" }).click();
  await expect(demo.getByRole("alert")).toHaveText("Minimum is > 1 XDC");
  await demo.getByRole("button", { name: "Max" }).click();
  await expect(amount).toHaveValue("1000");
  await expect(demo.getByText("5.0000 XDC", { exact: true })).toBeVisible();
  await expect(demo.getByText("995.0000 XDC", { exact: true })).toBeVisible();
  await demo.getByRole("button", { name: "Fund Repository" }).click();
  await expect(demo.getByRole("heading", { name: "2. Assign rewards" })).toBeVisible({ timeout: 10_000 });
  await expect(demo.locator("[data-demo-pool]")).toHaveText("995.0000 XDC");
  await expect(demo.locator("[data-demo-balance]")).toHaveText("1,000.0000 XDC");
  await demo.getByRole("button", { name: "Set 50 XDC Reward" }).click();
  await expect(demo.getByText("1 of 3 issues funded.")).toBeVisible();
  await expect(demo.locator("[data-demo-pool]")).toHaveText("945.0000 XDC");
  await demo.getByRole("button", { name: "Finish Demo" }).click();
  await expect(demo).toBeHidden();

  await page.reload();
  await expect(page.getByRole("heading", { name: "My Repositories" })).toBeVisible();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await help(page, "Pool Manager Guide");
  await expect(guide.getByText("Step 1 of 5")).toBeVisible();
  await page.keyboard.press("Escape");
  await help(page, "Funding Demo");
  await expect(demo.locator("[data-demo-balance]")).toHaveText("2,000.0000 XDC");
});

test("on a phone the guides open from the menu sheet and fit the screen", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 700 });
  await page.goto("/repos");
  const welcome = page.getByRole("dialog", { name: "Welcome to Issuepool" });
  await expect(welcome).toBeVisible();
  const box = (await welcome.boundingBox())!;
  expect(box.width).toBeLessThanOrEqual(375);
  expect(box.height).toBeLessThanOrEqual(700 * 0.9 + 1);
  await welcome.getByRole("button", { name: "Explore Bounties" }).click();
  await page.getByRole("button", { name: "Open menu" }).click();
  await page.getByRole("dialog", { name: "Menu" }).getByRole("button", { name: "Contribution Demo" }).click();
  await expect(page.getByRole("dialog", { name: "Contribution Demo" })).toBeVisible();
});
