import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";

/**
 * The embeddable bounty board /embed/{owner}/{repo} against the real stack
 * (demo seed: issuepool-demo/xdc-wallet-kit has bounties on issues 1, 2 and
 * 4; issuepool-demo/roxn-sdk is registered without funds), seen directly and
 * inside an iframe on another site.
 */
const BOARD = "/embed/issuepool-demo/xdc-wallet-kit";
/**
 * A page on another site (another origin: its own port on 127.0.0.1) that
 * frames pages of the platform (`frames`: iframe id -> path, sandbox). A
 * real server rather than an intercepted address, so Chromium applies its
 * usual rules (Local Network Access included) to a loopback page framing a
 * loopback page.
 */
async function hostSite(baseURL: string, frames: Record<string, { path: string; sandbox?: string }>): Promise<{ url: string; close(): Promise<void> }> {
  const html = Object.entries(frames)
    .map(([id, f]) => `<iframe id="${id}" src="${baseURL}${f.path}"${f.sandbox === undefined ? "" : ` sandbox="${f.sandbox}"`} width="600" height="360"></iframe>`)
    .join("");
  const server = createServer((_, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>A project blog</title><h1>Our bounties</h1>${html}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const backgroundOf = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

for (const javaScriptEnabled of [true, false]) {
  test.describe(`a visitor ${javaScriptEnabled ? "with" : "without"} JavaScript`, () => {
    test.use({ javaScriptEnabled });

    test("sees the board: pool, open bounties, links out, no site chrome and no script", async ({ page, request }) => {
      const response = await page.goto(BOARD);
      expect(response?.status()).toBe(200);
      const unified = await (await request.get("/api/public/unified-repo/issuepool-demo/xdc-wallet-kit")).json();
      // The pool as the public pages show it: two decimals, cut (never rounded up).
      const [whole, fraction = ""] = String(unified.blockchain.pools.XDC).split(".");
      const xdc = `${BigInt(whole!).toLocaleString("en-US")}.${fraction.padEnd(2, "0").slice(0, 2)}`;

      await expect(page.getByRole("heading", { level: 1, name: "issuepool-demo/xdc-wallet-kit" })).toBeVisible();
      await expect(page.locator("[data-pool]").first()).toHaveText(`${xdc} XDC`);
      await expect(page.getByText("3 open bounties")).toBeVisible();
      const rows = page.locator("[data-bounty]");
      expect(await rows.evaluateAll((items) => items.map((i) => Number(i.getAttribute("data-issue"))))).toEqual([1, 2, 4]);
      const first = rows.first();
      await expect(first).toContainText("#1");
      await expect(first).toContainText("Support xdc-prefixed addresses in the address parser");
      await expect(first.locator("[data-reward]")).toHaveText("25.0000 XDC");
      await expect(rows.nth(2).locator("[data-reward]")).toHaveText("150.00 ROXN");

      const issueLink = first.getByRole("link");
      await expect(issueLink).toHaveAttribute("href", /\/issuepool-demo\/xdc-wallet-kit\/issues\/1$/);
      await expect(page.getByRole("link", { name: "issuepool-demo/xdc-wallet-kit" })).toHaveAttribute("href", "/issuepool-demo/xdc-wallet-kit");
      await expect(page.getByRole("link", { name: "View all on Issuepool" })).toHaveAttribute("href", "/issuepool-demo/xdc-wallet-kit");
      await expect(page.getByRole("link", { name: "Powered by Issuepool" })).toBeVisible();
      for (const link of await page.getByRole("link").all()) {
        await expect(link).toHaveAttribute("target", "_blank");
        await expect(link).toHaveAttribute("rel", "noopener");
      }

      await expect(page.getByRole("navigation")).toHaveCount(0);
      await expect(page.getByRole("contentinfo")).toHaveCount(1); // the board's own footer line
      await expect(page.getByText("Explore Bounties")).toHaveCount(0);
      await expect(page.locator("script")).toHaveCount(0);
    });

    test("follows ?theme=light|dark, and otherwise the system setting", async ({ page }) => {
      await page.emulateMedia({ colorScheme: "light" });
      await page.goto(`${BOARD}?theme=light`);
      const light = await backgroundOf(page);
      await page.goto(`${BOARD}?theme=dark`);
      const dark = await backgroundOf(page);
      expect(dark).not.toBe(light);
      await expect(page.locator("html")).toHaveClass("dark");

      await page.goto(BOARD);
      expect(await backgroundOf(page)).toBe(light);
      await page.emulateMedia({ colorScheme: "dark" });
      expect(await backgroundOf(page)).toBe(dark);
      // An explicit choice wins over the system.
      await page.goto(`${BOARD}?theme=light`);
      expect(await backgroundOf(page)).toBe(light);
    });
  });
}

test("on another site the board is framed and its links open new tabs; other pages refuse framing", async ({ page, context, baseURL }) => {
  const host = await hostSite(baseURL!, {
    board: { path: BOARD },
    page: { path: "/issuepool-demo/xdc-wallet-kit" },
    // The strictest sandbox docs/embed.md recommends: the board needs no script.
    sandboxed: { path: `${BOARD}?theme=dark`, sandbox: "allow-popups allow-popups-to-escape-sandbox" },
  });
  try {
    await page.goto(host.url);
    const board = page.frameLocator("#board");
    await expect(board.getByText("3 open bounties")).toBeVisible();

    // The public page refuses: Chromium replaces the frame with its error page.
    const refused = await (await page.locator("#page").elementHandle())!.contentFrame();
    expect(refused?.url()).toMatch(/^chrome-error:/);
    await expect(page.frameLocator("#page").getByRole("heading", { name: "xdc-wallet-kit" })).toHaveCount(0);

    const [issueTab] = await Promise.all([context.waitForEvent("page"), board.locator('[data-bounty][data-issue="1"] a').click()]);
    await issueTab.waitForLoadState();
    expect(issueTab.url()).toMatch(/\/issuepool-demo\/xdc-wallet-kit\/issues\/1$/);
    expect(page.url()).toBe(host.url);

    const [repoTab] = await Promise.all([context.waitForEvent("page"), board.getByRole("link", { name: "View all on Issuepool" }).click()]);
    await expect(repoTab.getByRole("heading", { level: 1, name: "xdc-wallet-kit" })).toBeVisible();
    expect(new URL(repoTab.url()).pathname).toBe("/issuepool-demo/xdc-wallet-kit");

    const sandboxed = page.frameLocator("#sandboxed");
    await expect(sandboxed.getByText("3 open bounties")).toBeVisible();
    const [poweredTab] = await Promise.all([context.waitForEvent("page"), sandboxed.getByRole("link", { name: "Powered by Issuepool" }).click()]);
    await expect(poweredTab.getByRole("heading", { name: "Explore Bounties" })).toBeVisible();
  } finally {
    await host.close();
  }
});

test("the board is accessible (WCAG 2 A and AA) in both themes", async ({ page }) => {
  for (const theme of ["light", "dark"]) {
    await page.goto(`${BOARD}?theme=${theme}`);
    const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
    expect(results.violations.map((v) => `${theme} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
  }
});

test("the framing headers: only /embed/* may be framed", async ({ request }) => {
  const board = await request.get(BOARD);
  expect(board.headers()["x-frame-options"]).toBeUndefined();
  expect(board.headers()["content-security-policy"] ?? "").not.toContain("frame-ancestors");
  expect(board.headers()["cache-control"]).toBe("public, max-age=60");
  for (const path of ["/issuepool-demo/xdc-wallet-kit", "/repos", "/faq"]) {
    const res = await request.get(path);
    expect(res.headers()["x-frame-options"]).toBe("DENY");
    expect(res.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  }
});

test("a registered repository without bounties shows the empty state", async ({ page }) => {
  await page.goto("/embed/issuepool-demo/roxn-sdk");
  await expect(page.getByText("No open bounties right now")).toBeVisible();
  await expect(page.getByText("0 open bounties")).toBeVisible();
  await expect(page.getByRole("link", { name: "Powered by Issuepool" })).toHaveAttribute("target", "_blank");
});

test("a repository that is not on Issuepool gets a small notice with 404", async ({ page }) => {
  for (const path of ["/embed/nobody-here/nothing", "/embed/carol/private-notes"]) {
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(page.getByText("is not on Issuepool")).toBeVisible();
    await expect(page.getByRole("link", { name: "Powered by Issuepool" })).toHaveAttribute("href", "/repos");
    await expect(page.getByText("Never public")).toHaveCount(0);
  }
});

test("the public page offers the embed code with a copy button", async ({ page, context, baseURL }) => {
  await page.goto("/issuepool-demo/xdc-wallet-kit");
  const snippet = page.locator("[data-embed-snippet]");
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  await expect(snippet.getByRole("heading", { name: "Embed" })).toBeVisible();
  const code = `<iframe src="${baseURL}/embed/issuepool-demo/xdc-wallet-kit" title="issuepool-demo/xdc-wallet-kit bounties on Issuepool" width="100%" height="360" style="border:0;border-radius:12px" loading="lazy"></iframe>`;
  await expect(snippet.locator("[data-embed-code]")).toHaveText(code);
  await snippet.getByRole("button", { name: "Copy code" }).click();
  await expect(snippet.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);
  await expect(snippet.getByRole("button", { name: "Copy code" })).toBeVisible({ timeout: 5_000 });
});

test.describe("a visitor without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("is not offered embed code it could not copy", async ({ page }) => {
    await page.goto("/issuepool-demo/xdc-wallet-kit");
    await expect(page.getByRole("heading", { level: 1, name: "xdc-wallet-kit" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Embed" })).toBeHidden();
  });
});
