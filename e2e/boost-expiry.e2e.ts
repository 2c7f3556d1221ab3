import { expect, test, type Page } from "@playwright/test";
import { devPost, shownUnits, signIn, signOut } from "./support.ts";

/**
 * An expired boost returns to its funder (issue 29): erin boosts a fresh bounty of alice/xdc-explorer-lite from the
 * repository page with an expiry date; the chain's clock then moves past it and the hourly refund pass runs (the dev
 * stack's POST /dev/refund-boosts: nobody waits a day), and erin's wallet shows the boost refunded and her balance
 * back up by exactly her share. erin: no other journey of the later project moves her XDC.
 */
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
const emulator = `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}`;
const DAY = 86_400_000;
/** The XDC balance on the wallet's first tab (4 decimals), in units of 0.0001 XDC: compared exactly. */
async function xdcShown(page: Page): Promise<bigint> {
  await page.goto("/wallet");
  const value = page.locator('[data-balance="XDC"] [data-balance-value]');
  await expect(value).toHaveText(/\d/);
  return shownUnits((await value.textContent())!, 4);
}
/** erin's boost row on the wallet's Transactions tab, once it has the status given. */
async function boostWithStatus(page: Page, status: string) {
  const boost = page.locator("[data-boost]").first();
  await expect(async () => {
    await page.goto("/wallet");
    await page.getByRole("tab", { name: "Transactions" }).click();
    await expect(boost).toHaveAttribute("data-boost-status", status, { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  return boost;
}

test("erin's boost with an expiry comes back to her once it passes, exactly her share", async ({ page }) => {
  test.setTimeout(150_000);
  const opened = await page.request.post(`${emulator}/_emulator/issues`, { data: { repo: LITE.fullName, title: `Boost expiry ${Date.now()}`, author: "alice" } });
  expect(opened.ok()).toBe(true);
  const issue = ((await opened.json()).issue as { number: number }).number;

  await signIn(page, "alice", `/repos/${LITE.fullName}`);
  const { csrfToken } = await (await page.request.get("/api/auth/csrf-token")).json();
  const allocated = await page.request.post(`/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, {
    data: { bountyAmount: "1", currency: "XDC", githubRepoFullName: LITE.fullName },
    headers: { "X-CSRF-Token": csrfToken, "Idempotency-Key": `boost-expiry-e2e-${issue}-${Date.now()}` },
  });
  expect(allocated.ok(), await allocated.text()).toBe(true);
  await expect.poll(async () => (await page.request.get(`/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).status(), { timeout: 20_000 }).toBe(200);
  await signOut(page);

  // erin boosts it by 2 XDC until a date two days on (the dialog's date is midnight UTC: between one and two days away).
  await signIn(page, "erin", `/repos/${LITE.fullName}`);
  const expiry = new Date(Date.now() + 2 * DAY).toISOString().slice(0, 10);
  const row = page.locator(`tr[data-issue="${issue}"]`);
  await expect(async () => {
    await page.reload();
    await expect(row.getByRole("button", { name: `Boost issue #${issue}` })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await row.getByRole("button", { name: `Boost issue #${issue}` }).click();
  const dialog = page.getByRole("dialog", { name: `Boost issue #${issue}` });
  await dialog.getByLabel("Boost amount").fill("2");
  await dialog.getByLabel("Expiry date").fill(expiry);
  await dialog.getByRole("button", { name: "Boost", exact: true }).click();
  await expect(page.getByText("Boost sent", { exact: true })).toBeVisible({ timeout: 20_000 });

  // Her wallet lists the boost, active once confirmed: the 2 XDC that left, 1.99 of them to the bounty and the 0.5 %
  // fee (issue 38: it showed the share alone).
  const active = await boostWithStatus(page, "active");
  await expect(active.locator("[data-boost-issue]")).toHaveText(`${LITE.fullName}#${issue}`);
  await expect(active).toContainText("-2.0000 XDC");
  await expect(active).toContainText("1.9900 XDC to the bounty, 0.0100 XDC fee");
  const before = await xdcShown(page);

  // The expiry passes on the chain's clock (an hour beyond it), and the refund pass runs: one refund sent.
  const seconds = Math.ceil((Date.parse(`${expiry}T00:00:00Z`) - Date.now()) / 1000) + 3600;
  const pass = await devPost(page, "/dev/refund-boosts", { seconds });
  expect(pass.ok(), await pass.text()).toBe(true);
  expect((await pass.json()).sent).toBe(1);

  // Her wallet shows it refunded, why, and her balance up by exactly her share.
  const boost = await boostWithStatus(page, "refunded");
  await expect(boost).toContainText("Boost refunded to you");
  await expect(boost).toContainText("+1.9900 XDC");
  await expect(boost).toContainText("its expiry passed");
  await expect.poll(() => xdcShown(page), { timeout: 20_000 }).toBe(before + shownUnits("1.99", 4));
  // Another pass sends nothing more; the hook takes only a whole number of seconds forward.
  expect((await devPost(page, "/dev/refund-boosts", { seconds: -60 })).status()).toBe(400);
  expect((await (await devPost(page, "/dev/refund-boosts", { seconds: 0 })).json()).sent).toBe(0);
  // Without the anti-forgery token (a page elsewhere posting here) it changes nothing.
  expect((await page.request.post("/dev/refund-boosts", { data: { seconds: 86_400 } })).status()).toBe(403);
});
