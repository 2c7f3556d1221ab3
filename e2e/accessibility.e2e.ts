import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support.ts";

/**
 * axe finds no serious or critical violation on the main screens, in the
 * light and the dark theme (the theme follows the system by default). The
 * repository detail page is checked in e2e/repo-detail.e2e.ts, signed in
 * and out, at 1440 and 375 px.
 */
async function expectNoSeriousViolations(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const summary = serious.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join("\n  ")}`);
  expect(summary, `${what}: serious or critical accessibility violations`).toEqual([]);
}

for (const colorScheme of ["light", "dark"] as const) {
  test.describe(`${colorScheme} theme`, () => {
    test.use({ colorScheme });

    test("/repos, a public repository page and the welcome dialog", async ({ page }) => {
      await page.goto("/repos");
      await expect(page.getByRole("heading", { name: "Explore Bounties" })).toBeVisible();
      await expect(page.locator("html")).toHaveClass(new RegExp(`\\b${colorScheme}\\b`));
      await expectNoSeriousViolations(page, "/repos");

      await page.goto("/issuepool-demo/xdc-wallet-kit");
      await expect(page.getByRole("heading", { name: "xdc-wallet-kit", level: 1 })).toBeVisible();
      await expectNoSeriousViolations(page, "public repository page");

      await page.getByRole("button", { name: "Help & Guides" }).click();
      await page.getByRole("menuitem", { name: "Welcome Tour" }).click();
      await expect(page.getByRole("dialog", { name: "Welcome to Issuepool" })).toBeVisible();
      await expectNoSeriousViolations(page, "welcome dialog");
    });

    test("/profile, signed in as a pool manager", async ({ page }) => {
      await signIn(page, "alice", "/profile");
      await expect(page.getByRole("heading", { name: "Pool Manager Dashboard" })).toBeVisible();
      await expect(page.locator('[data-admin-repo="issuepool-demo/xdc-wallet-kit"]')).toBeVisible();
      await expectNoSeriousViolations(page, "/profile");
    });
  });
}
