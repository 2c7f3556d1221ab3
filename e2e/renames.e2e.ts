import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support.ts";

/**
 * Renames, to the end (issue 39, item 6): alice's issuepool-demo/contract-audit-tools, with a ROXN bounty set, is
 * renamed on the GitHub emulator. Its old public page, repository page and embed take the browser to the new ones;
 * its old badge and feed addresses answer 301 to the new ones; a pull request merged after the rename still pays
 * bob. Runs after the "chromium" journeys (playwright.config.ts), which read this repository under its old name; the
 * repository gets its name back at the end.
 */
const REPO = { id: 5002, fullName: "issuepool-demo/contract-audit-tools" };
const NEW = "issuepool-demo/audit-tools";
const emulator = () => `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}`;

async function csrf(page: Page) {
  return ((await (await page.request.get("/api/auth/csrf-token")).json()) as { csrfToken: string }).csrfToken;
}
const rename = (page: Page, repo: string, name: string) => page.request.post(`${emulator()}/_emulator/repos/rename`, { data: { repo, name } });

test("a repository renamed on GitHub: old addresses redirect, a later merge still pays", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, "alice", `/repos/${REPO.fullName}`);
  const opened = await page.request.post(`${emulator()}/_emulator/issues`, { data: { repo: REPO.fullName, title: `Renamed before the fix ${Date.now()}`, author: "alice" } });
  expect(opened.ok()).toBe(true);
  const issue = ((await opened.json()).issue as { number: number }).number;
  const allocated = await page.request.post(`/api/blockchain/allocate-bounty/${REPO.id}/${issue}`, {
    data: { bountyAmount: "5", currency: "ROXN", githubRepoFullName: REPO.fullName },
    headers: { "X-CSRF-Token": await csrf(page), "Idempotency-Key": `e2e-rename-${issue}-${Date.now()}` },
  });
  expect(allocated.ok(), await allocated.text()).toBe(true);
  const bountyStatus = async () => {
    const res = await page.request.get(`/api/blockchain/issue-bounty/${REPO.id}/${issue}`);
    return res.ok() ? ((await res.json()) as { status: string }).status : `http ${res.status()}`;
  };
  await expect.poll(bountyStatus, { timeout: 20_000 }).toBe("open");

  expect((await rename(page, REPO.fullName, "audit-tools")).ok()).toBe(true);
  try {
    // The webhook processed: the new address is the repository's public page.
    await expect.poll(async () => (await page.request.get(`/${NEW}`, { maxRedirects: 0 })).status(), { timeout: 20_000 }).toBe(200);

    // Old pages, in the browser: the new address, with the bounty set before the rename.
    await page.goto(`/${REPO.fullName}`);
    await expect(page).toHaveURL(new RegExp(`/${NEW}$`));
    await expect(page.locator("[data-public-page]")).toHaveAttribute("data-state", "managed");
    await expect(page.getByText(`#${issue}`, { exact: false }).first()).toBeVisible();
    await page.goto(`/repos/${REPO.fullName}`);
    await expect(page).toHaveURL(new RegExp(`/repos/${NEW}$`));
    await page.goto(`/embed/${REPO.fullName}?theme=dark`);
    await expect(page).toHaveURL(new RegExp(`/embed/${NEW}\\?theme=dark$`));

    // Old addresses shared in READMEs and readers: permanent redirects to the new ones.
    for (const [old, now] of [
      [`/${REPO.fullName}`, `/${NEW}`],
      [`/api/badges/${REPO.fullName}.svg`, `/api/badges/${NEW}.svg`],
      [`/api/badges/${REPO.fullName}/issues/${issue}.svg`, `/api/badges/${NEW}/issues/${issue}.svg`],
      [`/api/feeds/repos/${REPO.fullName}`, `/api/feeds/repos/${NEW}`],
    ] as const) {
      const res = await page.request.get(old, { maxRedirects: 0 });
      expect({ old, status: res.status(), location: res.headers().location }).toEqual({ old, status: 301, location: now });
    }
    const badge = await page.request.get(`/api/badges/${REPO.fullName}.svg`);
    expect([badge.status(), badge.headers()["content-type"]]).toEqual([200, "image/svg+xml; charset=utf-8"]);
    const feed = await page.request.get(`/api/feeds/repos/${REPO.fullName}`);
    expect(feed.status()).toBe(200);
    expect(await feed.text()).toContain(`Issuepool bounties of ${NEW}`);

    // A merge after the rename pays bob.
    const pr = await page.request.post(`${emulator()}/_emulator/pulls`, { data: { repo: NEW, author: "bob", title: `Fix #${issue}`, body: `Fixes #${issue}`, head: `bob:rename-fix-${issue}` } });
    expect(pr.ok()).toBe(true);
    const number = ((await pr.json()).pull_request as { number: number }).number;
    expect((await page.request.post(`${emulator()}/_emulator/pulls/merge`, { data: { repo: NEW, number, actor: "alice" } })).ok()).toBe(true);
    await expect.poll(bountyStatus, { timeout: 45_000 }).toBe("paid");
  } finally {
    expect((await rename(page, NEW, "contract-audit-tools")).ok()).toBe(true);
  }
});
