import { expect, test } from "@playwright/test";
import { signIn } from "./support.ts";

/**
 * The operator's page (issue 41): alice is the demo's operator (OPS_LOGINS in the embedded default) and sees the
 * platform's figures, read-only; bob, signed in, and an anonymous visitor get the site's 404, as for a page that
 * does not exist. /metrics answers this machine's callers in the embedded default.
 */
test("an operator sees /ops; everyone else gets a 404", async ({ page, browser }) => {
  const anonymous = await page.request.get("/ops");
  expect(anonymous.status()).toBe(404);

  const bobContext = await browser.newContext();
  const bob = await bobContext.newPage();
  try {
    await signIn(bob, "bob");
    const refused = await bob.goto("/ops");
    expect(refused?.status()).toBe(404);
    await expect(bob.getByRole("heading", { name: "Operations" })).toHaveCount(0);
  } finally {
    await bobContext.close();
  }

  await signIn(page, "alice");
  const shown = await page.goto("/ops");
  expect(shown?.status()).toBe(200);
  expect(shown?.headers()["cache-control"]).toContain("no-store");
  await expect(page.getByRole("heading", { name: "Operations", level: 1 })).toBeVisible();
  // The start-up check against the chain is done and the chain answers (the embedded default's anvil).
  await expect(page.locator('[data-figure="startup-repair"]')).toContainText("done");
  await expect(page.locator('[data-figure="chain"]')).toContainText("reachable");
  await expect(page.locator('[data-figure="operator-balance"]')).toContainText(/[\d,.]+ XDC/);
  // The demo seed's transactions, by kind and status.
  await expect(page.locator('[data-table="outbox"]')).toContainText("fund_xdc");
  await expect(page.getByRole("heading", { name: "Queued outflows" })).toBeVisible();
  await expect(page.locator("[data-runbook]")).toContainText('docs/contracts.md, "Pause and recovery"');
  await expect(page.getByRole("heading", { name: "Last restore" })).toBeVisible();
  // Read-only: nothing on the page can be submitted.
  await expect(page.locator("[data-ops] form, [data-ops] button")).toHaveCount(0);

  const metrics = await page.request.get("/metrics");
  expect(metrics.status()).toBe(200);
  expect(await metrics.text()).toContain("issuepool_outbox_transactions{");
});
