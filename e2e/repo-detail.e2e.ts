import { expect, test, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { showUnits, shownUnits, signIn } from "./support.ts";

/**
 * The repository detail page /repos/:owner/:name (spec sections 2, 4, 5, 6,
 * 8, 9) against the real stack: anvil, the contracts, the GitHub emulator
 * and the demo seed.
 */
const KIT = "/repos/issuepool-demo/xdc-wallet-kit";
const EXPLORER = "/repos/alice/xdc-explorer-lite";
const emulator = `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}`;

/** The toasts on screen (Radix Toast items; one at a time). */
const toasts = (page: Page, text: string) => page.locator("li[data-swipe-direction]").filter({ hasText: text });
const issueRow = (page: Page, number: number) => page.locator(`tr[data-issue="${number}"]`);

async function expectToast(page: Page, title: string, message?: string | RegExp) {
  const item = toasts(page, title);
  await expect(item).toBeVisible();
  if (message) await expect(item).toContainText(message);
}

/** Moderate, serious and critical findings, colour contrast included (issue 16: moderate ones used to pass). */
async function axe(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const reported = results.violations.filter((v) => v.impact === "moderate" || v.impact === "serious" || v.impact === "critical");
  expect(reported.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

async function setTheme(page: Page, theme: "light" | "dark") {
  await page.evaluate((t) => localStorage.setItem("ui-theme", t), theme);
  await page.reload();
}

test("anonymous visitors get the whole page as HTML, without React", async ({ page }) => {
  await page.goto(KIT);
  await expect(page.getByRole("heading", { level: 1, name: "xdc-wallet-kit" })).toBeVisible();
  await expect(page.getByText("TypeScript toolkit for XDC wallets: addresses, signing and transaction helpers.")).toBeVisible();
  await expect(page.getByRole("link", { name: /View on GitHub/ })).toHaveAttribute("href", /\/issuepool-demo\/xdc-wallet-kit$/);
  await expect(page.getByRole("link", { name: "Back to Repositories" })).toHaveAttribute("href", "/repos");

  // Issues: the spec's columns, labels in their colours, rewards from the bounties.
  const table = page.locator("[data-issues-table]");
  for (const column of ["Title", "Issue #", "Labels", "Reward", "Actions"]) await expect(table.getByRole("columnheader", { name: column })).toBeVisible();
  await expect(issueRow(page, 1)).toContainText("25.0000 XDC");
  await expect(issueRow(page, 4)).toContainText("150.00 ROXN");
  await expect(issueRow(page, 3).locator("[data-reward=none]")).toBeVisible();
  await expect(issueRow(page, 7)).toHaveCount(0); // a pull request, not an issue
  await expect(issueRow(page, 2).getByText("bug", { exact: true })).toHaveCSS("background-color", "rgb(215, 58, 74)");
  await expect(issueRow(page, 3).getByRole("link", { name: /View Issue/ })).toHaveAttribute("target", "_blank");
  // Contribute while signed out: the code host's sign-in, coming back to this issue.
  const contribute = issueRow(page, 3).getByRole("link", { name: /Contribute/ });
  await expect(contribute).toHaveAttribute("href", `/api/auth/github?returnTo=${encodeURIComponent(`${KIT}?contribute=3`)}`);
  await expect(page.getByRole("button", { name: /Set Reward/ })).toHaveCount(0);

  // The island stays server-rendered HTML: React never loads for this visit.
  await expect(page.locator('astro-island[component-url*="RepoDetail"]')).toHaveAttribute("ssr", "");
  const scripts = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name).filter((n) => /react|RepoDetail/i.test(n)));
  expect(scripts).toEqual([]);

  // Tabs by keyboard; the Rewards tab is the funding overview.
  await page.getByRole("tab", { name: "Issues" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "Pull Requests" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByText("No pull requests to show")).toBeVisible();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "Rewards" })).toBeFocused();
  await expect(page.getByRole("heading", { name: "Repository Funding" })).toBeVisible();
  await expect(page.getByText("No Admin Access")).toBeVisible();
  await expect(page.getByText("You need admin permissions to fund this repository.")).toBeVisible();
  const bounties = page.locator("[data-active-bounty]");
  await expect(bounties).toHaveCount(3);
  expect(await bounties.evaluateAll((items) => items.map((i) => Number(i.getAttribute("data-active-bounty"))))).toEqual([1, 2, 4]);

  // A private (or unknown) repository shows nothing to anonymous visitors: the not-found page, with its 404 (issue 38).
  expect((await page.goto("/repos/carol/private-notes"))!.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "404 Page Not Found" })).toBeVisible();
  await expect(page.getByText("Private issue that must never appear publicly")).toHaveCount(0);
});

test("a private repository is never shown to someone who cannot read it", async ({ page }) => {
  await signIn(page, "bob", "/repos/carol/private-notes");
  await expect(page.getByRole("heading", { name: "Failed to load repository" })).toBeVisible();
  await expect(page.getByText("Repository not found.")).toBeVisible();
  await expect(page.getByText("Private issue that must never appear publicly")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Try Again" })).toBeVisible();
});

test("a pool manager funds in XDC, approves and adds ROXN, and sets an XDC bounty that becomes final", async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  // A fresh issue to put the bounty on (bounties are final).
  const opened = await request.post(`${emulator}/_emulator/issues`, {
    data: { repo: "alice/xdc-explorer-lite", title: `Bounty target ${Date.now()}`, author: "alice", labels: ["enhancement"] },
  });
  expect(opened.ok()).toBe(true);
  const issue = (await opened.json()).issue as { number: number; title: string };

  await signIn(page, "alice", `${EXPLORER}#rewards`);
  await expect(page.getByText("Admin Access", { exact: true })).toBeVisible();
  await expect(page.getByText("You have admin permissions for this repository and can add funds.")).toBeVisible();
  const panel = page.locator("[data-funding-panel]");
  const xdcPool = panel.locator("[data-stat=xdc-pool] [data-value]");
  await expect(xdcPool).toHaveText(/XDC$/);
  const poolBefore = shownUnits((await xdcPool.textContent())!, 4);
  await expect(panel.locator("[data-stat=xdc-remaining] [data-value]")).toHaveText(/XDC$/);
  const remainingText = (await panel.locator("[data-stat=xdc-remaining] [data-value]").textContent())!;
  const remaining = shownUnits(remainingText, 4);
  const balance = shownUnits((await panel.locator("[data-stat=xdc-balance] [data-value]").textContent())!, 4);
  await expect(page.locator("[data-funding-limits]")).toContainText("Daily funding limit");

  // XDC: each of the spec's validation messages, once.
  const amount = page.getByLabel("Amount (XDC)");
  const add = page.getByRole("button", { name: "Add XDC" });
  await amount.fill("1");
  await add.click();
  await expectToast(page, "Minimum funding amount not met", "Minimum is > 1 XDC");
  // More than the wallet holds says the balance (issue 11, item 10); what it holds minus less than 0.1 is the gas rule.
  await amount.fill("999999");
  await add.click();
  await expectToast(page, "Insufficient XDC Balance", `Your XDC balance is ${showUnits(balance, 4)} XDC.`);
  await expect(toasts(page, "Insufficient XDC Balance").getByRole("link", { name: "Buy XDC" })).toHaveAttribute("href", "/wallet");
  await amount.fill(showUnits(balance - shownUnits("0.05", 4), 4).replace(/,/g, ""));
  await add.click();
  await expectToast(page, "Insufficient funds for gas", "Leave at least 0.1 XDC for gas.");
  expect(balance).toBeGreaterThan(remaining + shownUnits("1", 4));
  await amount.fill(showUnits(remaining + shownUnits("0.5", 4), 4).replace(/,/g, ""));
  await add.click();
  await expectToast(page, "Exceeds daily funding limit", `Remaining: ${showUnits(remaining, 4)} XDC.`);
  for (const title of ["Minimum funding amount not met", "Insufficient XDC Balance", "Insufficient funds for gas", "Exceeds daily funding limit"]) {
    await expect(toasts(page, title)).toHaveCount(title === "Exceeds daily funding limit" ? 1 : 0);
  }
  // Max: the balance minus 0.1, capped by the remaining daily limit.
  await page.getByRole("button", { name: "Max", exact: true }).click();
  expect(balance - shownUnits("0.1", 4)).toBeGreaterThan(remaining);
  await expect(amount).toHaveValue(remainingText.replace(/[^\d.]/g, "").replace(/\.?0+$/, ""));

  await amount.fill("10");
  const fees = page.locator("[data-fee-breakdown=XDC]");
  await expect(fees).toContainText("Platform fee (0.5%)");
  await expect(fees).toContainText("0.0500 XDC");
  await expect(fees).toContainText("9.9500 XDC");
  await page.locator("[data-funding-panel]").screenshot({ path: testInfo.outputPath("funding-xdc.png") });
  await add.click();
  // Money leaves only after a confirmation with the fee and the net (issue 38: one click moved it).
  const confirmXdc = page.getByRole("dialog", { name: "Add 10.0000 XDC to the pool?" });
  await expect(confirmXdc.locator("[data-confirm-fee-breakdown=XDC]")).toContainText("0.0500 XDC");
  await expect(confirmXdc.locator("[data-confirm-fee-breakdown=XDC]")).toContainText("9.9500 XDC");
  await confirmXdc.getByRole("button", { name: "Confirm and add XDC" }).click();
  await expectToast(page, "XDC Funding Submitted", "9.9500 XDC goes to the pool");
  await expect(xdcPool).toHaveText(`${showUnits(poolBefore + shownUnits("9.95", 4), 4)} XDC`, { timeout: 20_000 });

  // ROXN: approve first, then add.
  await panel.getByRole("tab", { name: "ROXN" }).click();
  const roxnPool = panel.locator("[data-stat=roxn-pool] [data-value]");
  await expect(roxnPool).toHaveText(/ROXN$/);
  const roxnBefore = shownUnits((await roxnPool.textContent())!, 2);
  await expect(panel.locator("[data-stat=roxn-allowance] [data-value]")).toHaveText(/ROXN$/);
  await page.getByLabel("Amount (ROXN)").fill("100000000");
  await expect(page.getByRole("button", { name: "Approve & Add ROXN" })).toBeVisible();
  await page.getByRole("button", { name: "Approve & Add ROXN" }).click();
  await expectToast(page, "Insufficient ROXN Balance");
  await page.getByLabel("Amount (ROXN)").fill("100");
  await expect(page.locator("[data-fee-breakdown=ROXN]")).toContainText("99.50 ROXN");
  await page.locator("[data-funding-panel]").screenshot({ path: testInfo.outputPath("funding-roxn.png") });
  await page.getByRole("button", { name: "Approve & Add ROXN" }).click();
  await page.getByRole("dialog", { name: "Add 100.00 ROXN to the pool?" }).getByRole("button", { name: "Confirm and add ROXN" }).click();
  await expectToast(page, "ROXN Funding Submitted");
  await expect(roxnPool).toHaveText(`${showUnits(roxnBefore + shownUnits("99.5", 2), 2)} ROXN`, { timeout: 20_000 });

  // Set Bounty on the fresh issue.
  await page.getByRole("tab", { name: "Issues" }).click();
  const row = issueRow(page, issue.number);
  await expect(row).toContainText(issue.title);
  await row.getByRole("button", { name: /Set Reward/ }).click();
  const dialog = page.getByRole("dialog", { name: `Set Bounty for Issue #${issue.number}` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("radio", { name: /XDC on XDC Network/ })).toHaveAttribute("aria-checked", "true");
  for (const symbol of ["XDC", "ROXN", "USDC"]) await expect(dialog.getByRole("radio", { name: new RegExp(`^${symbol} on XDC Network`) })).toBeVisible();
  await expect(dialog.getByText("Fees: ~$0.001").first()).toBeVisible();
  await expect(dialog.getByText("Minimum bounty: 1 XDC")).toBeVisible();
  await expect(dialog.getByText("Setting a bounty is final.")).toBeVisible();
  const bountyAmount = dialog.getByLabel("Bounty amount (XDC)");
  await expect(bountyAmount).toHaveAttribute("step", "0.01");
  await expect(bountyAmount).toHaveAttribute("min", "1");
  const submit = dialog.getByRole("button", { name: "Set XDC Bounty" });
  await expect(submit).toBeDisabled();
  const available = (await dialog.locator("[data-available-pool]").textContent())!;

  await bountyAmount.fill("0.5");
  await submit.click();
  await expectToast(page, "Invalid Amount", "Minimum bounty must be at least 1 XDC");
  await bountyAmount.fill("100000");
  await submit.click();
  await expectToast(page, "Invalid Amount", `Amount cannot exceed available XDC pool balance (${available})`);
  await page.screenshot({ path: testInfo.outputPath("bounty-over-pool.png") });
  await expect(bountyAmount).not.toHaveValue("100000");
  expect(Number(await bountyAmount.inputValue())).toBeCloseTo(Number(available.replace(/[^\d.]/g, "")), 3);

  // Changing the currency resets the amount and the step.
  await dialog.getByRole("radio", { name: /^ROXN on XDC Network/ }).click();
  await expect(dialog.getByLabel("Bounty amount (ROXN)")).toHaveValue("");
  await expect(dialog.getByLabel("Bounty amount (ROXN)")).toHaveAttribute("step", "0.0001");
  await expect(dialog.getByRole("button", { name: "Set ROXN Bounty" })).toBeVisible();
  await dialog.getByRole("radio", { name: /^XDC on XDC Network/ }).click();

  await dialog.getByLabel("Bounty amount (XDC)").fill("5");
  // Hold the request until the pending state has been seen, whatever the machine's speed.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    "**/api/blockchain/allocate-bounty/**",
    async (route) => {
      await held;
      await route.continue();
    },
    { times: 1 },
  );
  await dialog.getByRole("button", { name: "Set XDC Bounty" }).click();
  await expect(dialog.getByRole("button", { name: "Setting Bounty..." })).toBeVisible();
  release();
  await expectToast(page, "XDC Bounty Transaction Submitted", "XDC transaction sent successfully.");
  await expect(dialog).toBeHidden();
  await expect(row.locator("[data-reward=bounty]")).toHaveText(/5\.0000 XDC/, { timeout: 20_000 });

  // Final: the row says so (issue 27); opening again shows it and refuses changes.
  await row.getByRole("button", { name: /^Reward Set for issue/ }).click();
  await expect(dialog.getByText("A bounty of 5.0000 XDC is already assigned. You cannot change it.")).toBeVisible();
  await expect(dialog.getByLabel("Bounty amount (XDC)")).toBeDisabled();
  await expect(dialog.getByRole("button", { name: "Set XDC Bounty" })).toBeDisabled();
  await page.screenshot({ path: testInfo.outputPath("bounty-final.png") });
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  await page.getByRole("tab", { name: "Rewards" }).click();
  await expect(page.locator(`[data-active-bounty="${issue.number}"]`)).toContainText("5.0000 XDC");
});

test("a signed-in user without a role gets 'Role Selection Required', then contributes", async ({ page }) => {
  await signIn(page, "grace", KIT);
  await page.goto(KIT);
  // The page tells her what the bot's comment tells her: Contribute (issue 16).
  await expect(page.locator("[data-claim-how-to=newcomer]")).toContainText("Choose Contribute on the issue");
  await issueRow(page, 3).getByRole("button", { name: /Contribute/ }).click();
  await expectToast(page, "Role Selection Required", "Please select your role as Pool Manager or Contributor");
  const notice = toasts(page, "Role Selection Required");
  await expect(notice.getByRole("link", { name: "Pool Manager" })).toHaveAttribute("href", /^\/register\/pool-manager\?issueId=3&/);
  await notice.getByRole("link", { name: "Contributor" }).click();

  await expect(page).toHaveURL(/\/register\/contributor\?issueId=3&/);
  await page.getByRole("button", { name: "Complete Registration" }).click();
  await expect(page.getByRole("heading", { name: "Registration complete" })).toBeVisible();
  await page.getByRole("link", { name: "Continue to App" }).click();

  await expectToast(page, "Success!", "You're now registered to contribute to this issue.");
  await expect(page).toHaveURL(new RegExp(`${KIT}$`));
  // Contributors do not see Contribute (the check is role-based): the page tells them the /attempt comment the bot's
  // comment tells them (issue 16: both said "choose Contribute").
  await expect(issueRow(page, 3).getByRole("button", { name: /Contribute/ })).toHaveCount(0);
  const howTo = page.locator("[data-claim-how-to=contributor]");
  await expect(howTo).toContainText("Comment /attempt on the issue on GitHub.");
  await expect(howTo).not.toContainText("Contribute");
});

test("Contribute while signed out signs in and comes back to contribute", async ({ page }) => {
  await page.goto(KIT);
  await issueRow(page, 5).getByRole("link", { name: /Contribute/ }).click();
  await page.locator('button[name="login"][value="bob"]').click();
  await expectToast(page, "Success!", "You're now registered to contribute to this issue.");
  await expect(page).toHaveURL(new RegExp(`${KIT}$`));
});

test("a pool manager without admin rights sees why funding is refused", async ({ page }) => {
  await signIn(page, "erin", `${KIT}#rewards`);
  await expect(page.getByText("No Admin Access")).toBeVisible();
  await expect(page.getByText("You need admin permissions to fund this repository.").first()).toBeVisible();
  // Issue 19: on-chain manager rights follow GitHub's admin rights, and the page says so.
  await expect(page.locator("[data-manager-removed-note]").first()).toContainText("Pool manager rights on the escrow contract follow GitHub");
  await expect(page.getByRole("button", { name: "Add XDC" })).toBeDisabled();
  await page.getByRole("tab", { name: "Issues" }).click();
  await issueRow(page, 5).getByRole("button", { name: /Set Reward/ }).click();
  const dialog = page.getByRole("dialog", { name: "Set Bounty for Issue #5" });
  // The dialog names what it refuses: setting a bounty, not funding (issue 16).
  await expect(dialog.getByText("You need admin permissions to set a bounty on this repository.")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Set XDC Bounty" })).toBeDisabled();
  // The dialog: labelled Close button, at most 90% of the viewport high, focus kept inside.
  await expect(dialog.getByRole("button", { name: "Close" })).toBeVisible();
  const maxHeight = await dialog.evaluate((el) => getComputedStyle(el).maxHeight);
  expect(parseFloat(maxHeight)).toBeCloseTo((page.viewportSize()!.height * 90) / 100, 0);
  for (let i = 0; i < 12; i++) await page.keyboard.press("Tab");
  expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(dialog).toBeHidden();
});

test("a failed bounty lookup shows 'Error' with the first 100 characters as a tooltip", async ({ page }) => {
  const failure = `Bounty service unavailable: ${"the chain node did not answer in time, ".repeat(4)}`;
  await page.route("**/api/blockchain/pool-info/**", (route) => route.fulfill({ status: 502, json: { error: "Bad Gateway", message: "Failed to fetch pool info" } }));
  await page.route("**/api/blockchain/issue-bounty/**", (route) => route.fulfill({ status: 502, json: { error: "Bad Gateway", message: failure } }));
  await signIn(page, "bob", KIT);
  const cell = issueRow(page, 2).locator("[data-reward=error]");
  await expect(cell).toContainText("Error");
  // Time the opening in the page itself (the runner's clock is no judge under load).
  await page.evaluate(() => {
    const w = window as unknown as { moved?: number; shown?: number };
    document.addEventListener("pointermove", () => (w.moved ??= performance.now()), { capture: true });
    new MutationObserver(() => {
      if (w.shown === undefined && document.querySelector("[role=tooltip]")) w.shown = performance.now();
    }).observe(document.body, { childList: true, subtree: true });
  });
  await cell.hover();
  const tooltip = page.getByRole("tooltip");
  await expect(tooltip).toHaveText(failure.slice(0, 100));
  const delay = await page.evaluate(() => {
    const w = window as unknown as { moved: number; shown: number };
    return w.shown - w.moved;
  });
  expect(delay).toBeGreaterThanOrEqual(650); // the 700 ms open delay
});

test.describe("at 1440 and 375 px", () => {
  test.use({ viewport: { width: 1440, height: 900 } });
  for (const theme of ["light", "dark"] as const) {
  test(`no accessibility violation of moderate impact or more, ${theme}, signed out and signed in, 1440 and 375 px`, async ({ page }, testInfo) => {
    // Seven axe runs and two sign-ins: 1.3 min on a quiet machine, over the 3 min of test.slow() beside a CI run
    // whose cores were busy.
    test.setTimeout(360_000);
    await page.goto(KIT);
    await setTheme(page, theme);
    await axe(page);
    await page.screenshot({ path: testInfo.outputPath(`anonymous-${theme}-1440.png`), fullPage: true });
    await page.getByRole("tab", { name: "Rewards" }).click();
    await axe(page);

    await signIn(page, "alice", KIT);
    await page.goto(KIT);
    await expect(issueRow(page, 1).getByRole("button", { name: "Reward Set for issue #1" })).toBeVisible();
    await axe(page);
    await page.screenshot({ path: testInfo.outputPath(`alice-issues-${theme}-1440.png`), fullPage: true });
    await page.getByRole("tab", { name: "Rewards" }).click();
    await expect(page.locator("[data-funding-limits]")).toBeVisible();
    await axe(page);
    await page.screenshot({ path: testInfo.outputPath(`alice-rewards-${theme}-1440.png`), fullPage: true });
    await page.getByRole("tab", { name: "Issues" }).click();
    await issueRow(page, 3).getByRole("button", { name: /Set Reward/ }).click();
    await expect(page.getByRole("dialog")).toContainText("Available XDC pool");
    await axe(page);
    await page.screenshot({ path: testInfo.outputPath(`alice-dialog-${theme}-1440.png`) });
    await page.keyboard.press("Escape");

    await page.setViewportSize({ width: 375, height: 812 });
    await axe(page);
    await page.screenshot({ path: testInfo.outputPath(`alice-issues-${theme}-375.png`), fullPage: true });
    await page.locator("[data-issue-card='3']").getByRole("button", { name: /Set Reward/ }).click();
    await expect(page.getByRole("dialog")).toContainText("Available XDC pool");
    await page.screenshot({ path: testInfo.outputPath(`alice-dialog-${theme}-375.png`) });
    await page.keyboard.press("Escape");
    await page.getByRole("tab", { name: "Rewards" }).click();
    await expect(page.locator("[data-funding-limits]")).toBeVisible();
    await axe(page);
    await page.screenshot({ path: testInfo.outputPath(`alice-rewards-${theme}-375.png`), fullPage: true });
  });
}
});
