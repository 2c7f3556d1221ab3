import { expect, test, type Page } from "@playwright/test";
import { signIn, signOut } from "./support.ts";

/**
 * A tip to someone without a wallet is held, and paid when they register (issue 29): alice tips heidi (a GitHub
 * user of the emulator with no Issuepool account; no other journey signs her in) 1 XDC, as the Tip button does
 * (POST /api/tips with an Idempotency-Key); alice's wallet lists it as held for @heidi. Then heidi signs in and
 * registers, and the tip arrives: her wallet's Transactions tab lists it from @alice, confirmed, less the fee.
 * Then alice tips heidi again from heidi's profile (/@heidi): the Tip button is there for a signed-in viewer on
 * someone else's profile (not on her own, not for anonymous visitors: no React there), and heidi's wallet lists it.
 */
async function tipRow(page: Page, direction: "given" | "received", status: string) {
  const row = page.locator(`[data-tip-direction="${direction}"]`).first();
  await expect(async () => {
    await page.goto("/wallet");
    await page.getByRole("tab", { name: "Transactions" }).click();
    await expect(row.locator("[data-status]")).toHaveAttribute("data-status", status, { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  return row;
}

/** Signs out and waits until it is done (from /wallet, a signed-in page, the browser goes on to /repos). */
async function signedOut(page: Page, to?: RegExp) {
  await signOut(page);
  await expect(page.getByText("Signed out successfully", { exact: true })).toBeVisible();
  if (to) await expect(page).toHaveURL(to);
}

test("alice's tip to heidi waits for her wallet, and reaches it when she registers", async ({ page }) => {
  test.setTimeout(150_000);
  await signIn(page, "alice", "/wallet");
  const { csrfToken } = await (await page.request.get("/api/auth/csrf-token")).json();
  const sent = await page.request.post("/api/tips", {
    data: { login: "heidi", amount: "1", currency: "XDC" },
    headers: { "X-CSRF-Token": csrfToken, "Idempotency-Key": `held-tip-e2e-${Date.now()}` },
  });
  expect(sent.ok(), await sent.text()).toBe(true);
  const tip = await sent.json();
  expect(tip.status).toBe("held");
  expect(tip.message).toContain("held for @heidi");

  const given = await tipRow(page, "given", "held");
  await expect(given).toContainText("Tip to @heidi");
  await expect(given).toContainText("-1.0000 XDC");
  await signedOut(page, /\/repos$/);

  // heidi signs in for the first time and registers: the tip held for her is sent to her new wallet.
  await signIn(page, "heidi");
  await expect(page).toHaveURL(/\/auth\?registration=true/);
  await page.getByRole("radio", { name: /^Contributor/ }).check();
  await page.getByRole("button", { name: "Complete Registration" }).click();
  await expect(page.getByRole("heading", { name: "Registration complete" })).toBeVisible();

  const received = await tipRow(page, "received", "confirmed");
  await expect(received).toContainText("Tip from @alice");
  // 1 XDC less the contract's 0.5 % fee.
  await expect(received).toContainText("+0.9950 XDC");
  await signedOut(page, /\/repos$/);

  // Anonymous visitors see heidi's profile without the button.
  await page.goto("/@heidi");
  await expect(page.getByRole("heading", { name: "@heidi" })).toBeVisible();
  await expect(page.locator("[data-tip-slot]")).toHaveCount(0);

  // alice tips heidi from her profile; alice's own profile has no Tip button.
  await signIn(page, "alice", "/@alice");
  await expect(page.getByRole("heading", { name: "@alice" })).toBeVisible();
  await expect(page.locator("[data-tip-slot]")).toHaveCount(0);
  await page.goto("/@heidi");
  await page.getByRole("button", { name: "Tip @heidi" }).click();
  const form = page.locator('[data-tip-form="heidi"]');
  await form.getByLabel("Amount").fill("2");
  await form.getByRole("button", { name: "Send to @heidi" }).click();
  await expect(page.locator("[data-tip-result]")).toContainText("Tip of 2 XDC");
  await expect(page.locator("[data-tip-result]")).toContainText("sent to @heidi");
  await signedOut(page);

  await signIn(page, "heidi", "/wallet");
  await expect(async () => {
    await page.goto("/wallet");
    await page.getByRole("tab", { name: "Transactions" }).click();
    const fromProfile = page.locator('[data-tip-direction="received"]').filter({ hasText: "+1.9900 XDC" });
    await expect(fromProfile.locator("[data-status]")).toHaveAttribute("data-status", "confirmed", { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
});
