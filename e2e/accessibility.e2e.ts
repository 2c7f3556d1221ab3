import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { contrastRatio, signIn } from "./support.ts";

/**
 * axe finds no violation of moderate, serious or critical impact on the main
 * screens, in the light and the dark theme (the theme follows the system by
 * default), colour contrast included (issue 16: moderate and minor findings
 * used to be ignored, and the wallet and FAQ were not checked). axe leaves
 * disabled controls out, so the wallet's disabled Export button is measured
 * here directly. The repository detail page is checked in
 * e2e/repo-detail.e2e.ts, signed in and out, at 1440 and 375 px.
 */
const REPORTED = new Set(["moderate", "serious", "critical"]);

async function expectNoViolations(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const reported = results.violations.filter((v) => REPORTED.has(v.impact ?? ""));
  const summary = reported.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join("\n  ")}`);
  expect(summary, `${what}: accessibility violations of moderate impact or more`).toEqual([]);
}

for (const colorScheme of ["light", "dark"] as const) {
  test.describe(`${colorScheme} theme`, () => {
    test.use({ colorScheme });

    test("/repos, a public repository page and the welcome dialog", async ({ page }) => {
      await page.goto("/repos");
      await expect(page.getByRole("heading", { name: "Explore Bounties" })).toBeVisible();
      await expect(page.locator("html")).toHaveClass(new RegExp(`\\b${colorScheme}\\b`));
      await expectNoViolations(page, "/repos");

      await page.goto("/issuepool-demo/xdc-wallet-kit");
      await expect(page.getByRole("heading", { name: "xdc-wallet-kit", level: 1 })).toBeVisible();
      await expectNoViolations(page, "public repository page");

      await page.getByRole("button", { name: "Help & Guides" }).click();
      await page.getByRole("menuitem", { name: "Welcome Tour" }).click();
      await expect(page.getByRole("dialog", { name: "Welcome to Issuepool" })).toBeVisible();
      await expectNoViolations(page, "welcome dialog");
    });

    test("/profile, signed in as a pool manager", async ({ page }) => {
      await signIn(page, "alice", "/profile");
      await expect(page.getByRole("heading", { name: "Pool Manager Dashboard" })).toBeVisible();
      await expect(page.locator('[data-admin-repo="issuepool-demo/xdc-wallet-kit"]')).toBeVisible();
      await expectNoViolations(page, "/profile");
    });

    test("/faq, with the support notice shown", async ({ page }) => {
      await page.goto("/faq");
      await expectNoViolations(page, "/faq");
      const chat = page.getByRole("button", { name: "Chat with Support" });
      await chat.click();
      const notice = page.locator("li[data-toast-type]").filter({ hasText: "Support chat unavailable" });
      await expect(notice).toBeVisible();
      // The notice does not cover the button that raised it (issue 16), so it can be pressed again.
      await expect
        .poll(async () => {
          const [button, toast] = [(await chat.boundingBox())!, (await notice.boundingBox())!];
          return button.y + button.height > toast.y && button.y < toast.y + toast.height && button.x + button.width > toast.x && button.x < toast.x + toast.width;
        }, { message: "the toast covers 'Chat with Support'" })
        .toBe(false);
      await expect(chat).toBeInViewport();
      // A pointer on the notice keeps it open while axe reads the page.
      await notice.hover();
      await expectNoViolations(page, "/faq with a toast");
    });

    test("/wallet: its tabs and the export dialog, signed in", async ({ page }) => {
      // Four axe runs of a signed-in page: over a minute beside a busy CI (a fresh-clone run with two CPU burners).
      test.slow();
      // bob's wallet is only read here.
      await signIn(page, "bob", "/wallet");
      await expect(page.locator('[data-balance="XDC"] [data-balance-value]')).toHaveText(/\d/);
      await expectNoViolations(page, "/wallet, XDC Wallet");
      await page.getByRole("tab", { name: "Tokens" }).click();
      await expect(page.locator('[data-token="XDC"]')).toContainText(" XDC");
      await expectNoViolations(page, "/wallet, Tokens");
      // Words are set in the body font; only addresses are monospace (issue 16).
      const native = page.locator('[data-token="XDC"] [data-token-contract]');
      await expect(native).toHaveText("Native coin of the XDC Network");
      expect(await native.evaluate((el) => getComputedStyle(el).fontFamily)).not.toMatch(/mono/i);
      await page.getByRole("tab", { name: "Transactions" }).click();
      await expect(page.getByRole("heading", { name: "Sent from this wallet" })).toBeVisible();
      await expectNoViolations(page, "/wallet, Transactions");

      await page.getByRole("tab", { name: "XDC Wallet" }).click();
      await page.getByRole("button", { name: "Export to MetaMask" }).click();
      const dialog = page.getByRole("dialog", { name: "Export to MetaMask" });
      const exportButton = dialog.getByRole("button", { name: "Export", exact: true });
      await expect(exportButton).toBeDisabled();
      await expectNoViolations(page, "export dialog");
      // Disabled, yet readable: it was half-transparent dark text on mid-blue in the dark theme (issue 16).
      expect(await contrastRatio(exportButton)).toBeGreaterThanOrEqual(4.5);
    });
  });
}
