import { expect, test, type Page } from "@playwright/test";
import { readFile } from "node:fs/promises";
import { extractText, getDocumentProxy } from "unpdf";
import { bountiedIssue, signIn } from "./support.ts";

/**
 * From reward to rupees, with the paperwork (issue 40): bob is paid for a merged pull request and cashes the
 * reward out to UPI from the payout mail's link, through the on-ramp simulator's sell side; a payout the simulator
 * fails (its sandbox UPI id `failure@…`) brings the XDC back; carol's reward is cashed out automatically; alice
 * downloads her repository's yearly CSV and a payout's PDF receipt, opened and read. On alice/xdc-explorer-lite.
 */
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
const emulator = `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}`;

type Mail = { subject: string; text: string; to: string[] };
const mailsTo = async (page: Page, to: string) => ((await (await page.request.get(`/dev/mail/messages.json?to=${encodeURIComponent(to)}`)).json()) as { messages: Mail[] }).messages;

/** `author`'s pull request fixing `issue`, merged by alice on the emulator. */
async function mergeFixBy(page: Page, author: string, issue: number): Promise<number> {
  const pr = await page.request.post(`${emulator}/_emulator/pulls`, {
    data: { repo: LITE.fullName, author, title: `Fix #${issue}`, body: `Fixes #${issue}`, head: `${author}:fix-${issue}-${Date.now()}`, commits: [{ message: `Fix #${issue}` }] },
  });
  expect(pr.ok()).toBe(true);
  const pull = ((await pr.json()).pull_request as { number: number }).number;
  expect((await page.request.post(`${emulator}/_emulator/pulls/merge`, { data: { repo: LITE.fullName, number: pull, actor: "alice" } })).ok()).toBe(true);
  return pull;
}

/** A fresh bounty of `amount` XDC set by alice, earned by `author`'s merged pull request. Returns the issue. */
async function rewardFor(browser: import("@playwright/test").Browser, author: string, amount: string): Promise<number> {
  const context = await browser.newContext();
  const alice = await context.newPage();
  try {
    await signIn(alice, "alice", `/repos/${LITE.fullName}`);
    const issue = await bountiedIssue(alice, LITE, `Cash-out reward for ${author}`, amount);
    await mergeFixBy(alice, author, issue);
    await expect.poll(async () => (await (await alice.request.get(`/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).json()).status, { timeout: 30_000 }).toBe("paid");
    return issue;
  } finally {
    await context.close();
  }
}

test("bob follows the payout mail's 'Cash out' link, sees the quote, confirms, and the INR is paid", async ({ page, browser }, testInfo) => {
  test.setTimeout(180_000);
  await signIn(page, "bob", "/wallet");
  const issue = await rewardFor(browser, "bob", "5");
  // The notification: a mail saying what arrived, with the link to cash it out.
  const isTheMail = (m: Mail) => m.subject === "You were paid 5 XDC" && m.text.includes(`issue #${issue} of ${LITE.fullName}`);
  await expect.poll(async () => (await mailsTo(page, "bob@example.com")).some(isTheMail), { timeout: 30_000 }).toBe(true);
  const mail = (await mailsTo(page, "bob@example.com")).find(isTheMail)!;
  const link = /(http\S+\/wallet\?cashout=XDC&amount=5)\b/.exec(mail.text)![1]!;
  await page.goto(new URL(link).pathname + new URL(link).search);

  const dialog = page.getByRole("dialog", { name: "Cash out to UPI" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Amount (XDC)")).toHaveValue("5");
  await dialog.getByLabel("UPI id").fill("bob@okaxis");
  await dialog.getByRole("button", { name: "Get quote" }).click();
  const quote = dialog.locator("[data-cashout-quote]");
  // 5 XDC at the simulator's ₹2.50, its 1 % fee (₹0.13), no platform fee, the network fee, ₹12.37 received.
  await expect(quote.locator("[data-quote-amount]")).toHaveText("5 XDC");
  await expect(quote.locator("[data-quote-rate]")).toHaveText("1 XDC = ₹2.50");
  await expect(quote.locator("[data-quote-provider-fee]")).toHaveText("₹0.13");
  await expect(quote.locator("[data-quote-platform-fee]")).toHaveText("None");
  await expect(quote.locator("[data-quote-gas]")).toContainText("XDC");
  await expect(quote.locator("[data-quote-fiat]")).toHaveText("₹12.37");
  await expect(dialog.locator("[data-quote-validity]")).toContainText("This quote holds for");
  await dialog.screenshot({ path: testInfo.outputPath("cashout-quote.png") });
  await dialog.getByRole("button", { name: "Confirm cash-out" }).click();
  await expect(dialog.getByText("Cash-out started")).toBeVisible({ timeout: 30_000 });
  await dialog.getByRole("button", { name: "Done" }).click();

  await page.getByRole("tab", { name: "Transactions" }).click();
  // bob's other journey (a failing payout) may run beside this one: his cash-out to bob@okaxis, the latest first.
  const row = page.locator("[data-cashout]").filter({ hasText: "Cash-out to bob@okaxis" }).first();
  await expect(row).toHaveAttribute("data-cashout-status", "completed", { timeout: 60_000 });
  await expect(row).toContainText("Completed");
  await expect(row).toContainText("UTR SIMUTR");
  await expect(row).toContainText("₹12.37");
  // The reward's own row links to the same cash-out.
  await expect(page.locator('[data-history-kind="reward"] [data-history-cashout]').first()).toHaveAttribute("href", /\/wallet\?cashout=XDC&amount=/);
  await row.screenshot({ path: testInfo.outputPath("cashout-completed.png") });
});

test("the simulator fails the INR payout: the XDC comes back to bob's wallet and the history says so", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, "bob", "/wallet");
  await page.getByRole("button", { name: "Cash out to UPI" }).click();
  const dialog = page.getByRole("dialog", { name: "Cash out to UPI" });
  await dialog.getByLabel("Amount (XDC)").fill("2");
  // The simulator's sandbox: a UPI id named "failure" has its payout refused by the bank.
  await dialog.getByLabel("UPI id").fill("failure@upi");
  await dialog.getByRole("button", { name: "Get quote" }).click();
  await dialog.getByRole("button", { name: "Confirm cash-out" }).click();
  await expect(dialog.getByText("Cash-out started")).toBeVisible({ timeout: 30_000 });
  await dialog.getByRole("button", { name: "Done" }).click();
  await page.getByRole("tab", { name: "Transactions" }).click();
  const row = page.locator("[data-cashout]").filter({ hasText: "Cash-out to failure@upi" }).first();
  await expect(row).toHaveAttribute("data-cashout-status", "refunded", { timeout: 60_000 });
  await expect(row).toContainText("Failed: crypto returned");
  await expect(row.locator("[data-cashout-outcome]")).toHaveText("The payout failed (the bank refused the UPI payout (simulated)); the 2 XDC came back to your wallet.");
  await expect(row).toContainText("Returned");
  // Refunded only once the chain shows the 2 XDC back in bob's wallet (the server checks the refund's transaction;
  // bob's balance itself moves with his other journey beside this one).
  const id = await row.getAttribute("data-cashout");
  const cashout = await (await page.request.get(`/api/wallet/cashouts/${id}`)).json();
  expect(cashout).toMatchObject({ status: "refunded", amount: "2", currency: "XDC" });
  expect(cashout.refundTransactionHash).toMatch(/^0x[0-9a-f]{64}$/);
});

test("carol opts into automatic cash-out: her next reward is cashed out without a click", async ({ page, browser }) => {
  test.setTimeout(180_000);
  await signIn(page, "carol", "/wallet");
  await page.getByRole("tab", { name: "Transactions" }).click();
  const auto = page.locator("[data-auto-cashout]");
  await auto.getByLabel("Cash out rewards automatically").check();
  await auto.getByLabel("UPI id for automatic cash-out").fill("carol@oksbi");
  await auto.getByLabel("XDC threshold").fill("1");
  await auto.getByRole("button", { name: "Save" }).click();
  await expect(auto).toHaveAttribute("data-auto-cashout", "on");

  await rewardFor(browser, "carol", "3");
  await page.getByRole("button", { name: "Refresh cash-outs" }).click();
  const row = page.locator("[data-cashout]").filter({ hasText: "Automatic" }).first();
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh cash-outs" }).click();
    await expect(row).toHaveAttribute("data-cashout-status", "completed", { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await expect(row).toContainText("Cash-out to carol@oksbi");
  await expect(row).toContainText("-3.0000 XDC");
});

test("alice downloads her repository's yearly CSV and a payout's PDF receipt", async ({ page, browser }) => {
  test.setTimeout(180_000);
  await rewardFor(browser, "bob", "2");
  await signIn(page, "alice", "/wallet");
  await page.getByRole("tab", { name: "Transactions" }).click();
  const statement = page.locator(`[data-repository-statement="${LITE.fullName}"]`);
  await statement.locator("summary").click();
  const year = new Date().getUTCFullYear();

  const [csvDownload] = await Promise.all([page.waitForEvent("download"), statement.locator("[data-repository-csv]").click()]);
  expect(csvDownload.suggestedFilename()).toBe(`issuepool-alice-xdc-explorer-lite-${year}.csv`);
  const csv = await readFile((await csvDownload.path())!, "utf8");
  const [header, ...rows] = csv.trim().split("\n");
  expect(header).toBe("Date,Sent Amount,Sent Currency,Received Amount,Received Currency,Fee Amount,Fee Currency,Net Worth Amount,Net Worth Currency,Label,Description,TxHash");
  expect(rows.some((r) => r.includes("Payout alice/xdc-explorer-lite issue #") && r.includes(",cost,"))).toBe(true);

  const payout = statement.locator('[data-statement-kind="payout"]').first();
  const [pdfDownload] = await Promise.all([page.waitForEvent("download"), payout.locator("[data-receipt-pdf]").click()]);
  const bytes = await readFile((await pdfDownload.path())!);
  const text = (await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true })).text as string;
  expect(text).toContain("Issuepool receipt");
  expect(text).toContain(`Pool of ${LITE.fullName}`);
  expect(text).toContain("XDC");
  expect(text).toMatch(/Transaction\s+0x[0-9a-f]{64}/);
  expect(text).toContain("Price source: On-ramp simulator (made-up prices)");
});
