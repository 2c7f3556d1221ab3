import { expect, test, type Page } from "@playwright/test";
import { bountiedIssue, devPost, signIn, signOut } from "./support.ts";

/**
 * Attempts that hold a place (issue 39), on a fresh issue of alice/xdc-explorer-lite: alice makes its bounty exclusive
 * and for humans only on the repository page; bob attempts and holds it; carol queues and is told her place; bob's
 * lock expires (the dev stack's POST /dev/attempt-locks runs the lock pass a week and a day later: nobody waits a
 * week) and carol, now holding it, is told on GitHub and by mail; a bot account's /attempt is refused with the reason;
 * carol's pull request, co-authored by judy (who never registers: dave signs up in e2e/repositories.e2e.ts), shows the payout preview, and once merged pays
 * carol, judy's share held. Pays carol: run after the journeys that read the personas' XDC (playwright.config.ts).
 */
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
const emulator = `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}`;
const DAY_SECONDS = 86_400;

/** The issue's (or pull request's) page on the GitHub emulator, once it shows `text`. */
async function onGitHub(page: Page, path: string, text: string) {
  await expect(async () => {
    await page.goto(`${emulator}/${LITE.fullName}/${path}`);
    await expect(page.locator("main")).toContainText(text, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
}

/** The issue's row in the attempts panel, once the panel has loaded it. */
async function attemptRow(page: Page, issue: number) {
  const row = page.locator(`[data-attempt-issue="${issue}"]`);
  await expect(async () => {
    await page.goto(`/repos/${LITE.fullName}`);
    await expect(row).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
  return row;
}

test("an exclusive bounty: bob holds it, carol queues and takes over when his lock expires, a bot is refused, carol's co-authored pull request is previewed and paid", async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  await signIn(page, "alice", `/repos/${LITE.fullName}`);
  const issue = await bountiedIssue(page, LITE, "Exclusive fix", "3");

  // alice: exclusive, humans only, from the bounty's settings on the repository page (keyboard: the form's own controls).
  const managed = await attemptRow(page, issue);
  await managed.getByText("Settings of this bounty").click();
  const form = managed.getByRole("form", { name: `Attempt settings of issue #${issue}` });
  await form.getByLabel("Mode").selectOption("exclusive");
  await form.getByLabel("Who may attempt").selectOption("humans");
  await form.getByLabel("Lock duration (days)").fill("7");
  await form.getByLabel("Lock duration (days)").press("Enter");
  await expect(page.getByText("Bounty settings saved", { exact: true })).toBeVisible();
  await expect(managed).toContainText("Exclusive: the first attempt holds it, others queue · Humans only");
  await signOut(page);

  // bob attempts: he holds it for 7 days.
  await signIn(page, "bob", `/repos/${LITE.fullName}`);
  const bobRow = await attemptRow(page, issue);
  await bobRow.getByRole("button", { name: `I'm working on issue #${issue}` }).click();
  await expect(page.getByText(/You hold this bounty until \d{4}-\d\d-\d\d \d\d:\d\d UTC/).first()).toBeVisible();
  await expect(bobRow.locator("[data-attempt-mine]")).toContainText("You hold this bounty until");
  await signOut(page);

  // carol queues and is told her place.
  await signIn(page, "carol", `/repos/${LITE.fullName}`);
  const carolRow = await attemptRow(page, issue);
  await expect(carolRow.locator("[data-attempt-holder]")).toContainText("Held by @bob until");
  await carolRow.getByRole("button", { name: `I'm working on issue #${issue}` }).click();
  await expect(page.getByRole("region", { name: "Notifications (F8)" }).getByText("@bob holds this bounty for now. You are 1st in the queue: you will be told when it is yours.")).toBeVisible();
  await expect(carolRow.locator("[data-attempt-mine]")).toHaveText("You are 1st in the queue.");
  await expect(carolRow.locator("[data-attempt-queue]")).toHaveText("Queue: 1. @carol");
  // The bot's one comment on the issue shows the holder, until when, and the queue.
  await onGitHub(page, `issues/${issue}`, "**Queue:** 1. @carol");
  await expect(page.locator("main")).toContainText("**Held by** @bob until **");

  // A week and a day later bob's lock has expired without a pull request: carol holds it and is told.
  const pass = await devPost(page, "/dev/attempt-locks", { seconds: 8 * DAY_SECONDS });
  expect(pass.ok(), await pass.text()).toBe(true);
  expect((await pass.json()).expired).toBeGreaterThanOrEqual(1);
  const holding = await attemptRow(page, issue);
  await expect(holding.locator("[data-attempt-mine]")).toContainText("You hold this bounty until");
  await onGitHub(page, `issues/${issue}`, "@carol this bounty is yours now (@bob's lock expired without a linked pull request)");
  await expect(async () => {
    await page.goto("/dev/mail");
    await expect(page.locator("body")).toContainText(`You now hold the bounty on ${LITE.fullName}#${issue}`, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });

  // A bot account asks to attempt: refused, with the reason and what lifts it.
  expect((await page.request.post(`${emulator}/_emulator/comments`, { data: { repo: LITE.fullName, number: issue, author: "autofix-agent[bot]", body: "/attempt" } })).ok()).toBe(true);
  await onGitHub(page, `issues/${issue}`, "This bounty is for people only, and GitHub marks @autofix-agent[bot] as a bot account. The pool manager can allow automated agents on it.");

  // carol's pull request, co-authored by judy (who never registers: dave signs up in e2e/repositories.e2e.ts): the preview says who would be paid and how much.
  const opened = await page.request.post(`${emulator}/_emulator/pulls`, {
    data: { repo: LITE.fullName, author: "carol", title: `Fix #${issue}`, body: `Fixes #${issue}`, head: `carol:fix-${issue}-${Date.now()}`, commits: [{ message: `Fix #${issue}\n\nCo-authored-by: Judy Coauthor <1011+judy@users.noreply.github.com>` }] },
  });
  expect(opened.ok()).toBe(true);
  const pull = ((await opened.json()).pull_request as { number: number }).number;
  await onGitHub(page, `pull/${pull}`, "Issuepool payout preview");
  const main = page.locator("main");
  await expect(main).toContainText(`Issue #${issue}: 3 XDC`);
  await expect(main).toContainText("@carol (author): 1.5 XDC, to their Issuepool wallet");
  await expect(main).toContainText("@judy (co-author): 1.5 XDC, held until they register on Issuepool");
  await page.screenshot({ path: testInfo.outputPath("payout-preview.png"), fullPage: true });
  // On the repository page carol sees her pull request wait for a review, and from when she may ask the pool manager
  // for release (twice the 72 h deadline: the asking itself is checked in api/services/reviews/review-deadlines.test.ts).
  const listed = (await attemptRow(page, issue)).locator("[data-attempt-pulls]");
  await expect(listed).toContainText(`#${pull} by @carol`);
  await expect(listed.locator('[data-release-request="waiting"]')).toContainText(/Waiting for a review since \d{4}-\d\d-\d\d \d\d:\d\d UTC; without one, you can ask for release from \d{4}-/, { timeout: 30_000 });

  // Merged by alice: carol is paid her share, judy's is held for her.
  expect((await page.request.post(`${emulator}/_emulator/pulls/merge`, { data: { repo: LITE.fullName, number: pull, actor: "alice" } })).ok()).toBe(true);
  await expect
    .poll(async () => {
      const res = await page.request.get(`/api/splits/${LITE.id}/${issue}`);
      return res.ok() ? ((await res.json()).shares as { login: string; status: string; amount: string }[]).map((s) => `${s.login}:${s.amount}:${s.status}`) : [];
    }, { timeout: 90_000 })
    .toEqual(["carol:1.5:paid", "judy:1.5:held"]);
});

test("the attempts panel works at 375 px", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  {
    await signIn(page, "alice", `/repos/${LITE.fullName}`);
    const panel = page.locator("[data-attempts]");
    await expect(panel).toBeVisible({ timeout: 30_000 });
    // Nothing wider than the screen.
    expect(await panel.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await panel.locator("[data-attempt-defaults] summary").click();
    await expect(panel.getByRole("button", { name: "Save the repository's default" })).toBeVisible();
    const box = await panel.getByRole("button", { name: "Save the repository's default" }).boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
  }
});
