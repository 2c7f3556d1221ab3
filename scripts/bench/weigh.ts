import type { Browser, BrowserContextOptions } from "@playwright/test";

/**
 * One page's weight as Chromium transfers it with an empty cache: the
 * JavaScript (gzip from the server's Content-Encoding, headers included),
 * how many script files, and everything. Shared by the benchmark
 * (page-weight.ts) and the journey that holds signed-in pages to their
 * budget (e2e/page-weight.e2e.ts); plain Playwright, no Bun.
 */
export const SIGNED_IN_BUDGET_BYTES = 100 * 1024;
export const SIGNED_IN_BUDGET_FILES = 12;

export interface PageWeight {
  jsBytes: number;
  jsFiles: number;
  allBytes: number;
  /** Each script: its URL and bytes. */
  scripts: { url: string; bytes: number }[];
}

/**
 * `scrolled`: also what a reader loads by scrolling to the end (islands hydrated when visible), as the budget
 * counts it (issue 27: /my-repos measured 105.8 KB in a browser, under the budget when only the first screen
 * was weighed).
 */
export async function weigh(browser: Browser, baseUrl: string, path: string, options: BrowserContextOptions & { scrolled?: boolean } = {}): Promise<PageWeight> {
  const { scrolled, ...contextOptions } = options;
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  const sizes: Promise<{ js: boolean; bytes: number; url: string }>[] = [];
  page.on("requestfinished", (request) => {
    sizes.push(
      request.sizes().then(async (s) => {
        const response = await request.response();
        const type = response?.headers()["content-type"] ?? "";
        return { js: request.resourceType() === "script" || /javascript/.test(type), bytes: s.responseBodySize + s.responseHeadersSize, url: request.url() };
      }),
    );
  });
  const response = await page.goto(baseUrl + path, { waitUntil: "networkidle" });
  if (!response || response.status() >= 400) throw new Error(`${path} answered ${response?.status()}`);
  if (new URL(page.url()).pathname !== path.split("?")[0]) throw new Error(`${path} went to ${page.url()}`);
  if (scrolled) {
    await page.mouse.wheel(0, 50_000);
    await page.waitForLoadState("networkidle");
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForLoadState("networkidle");
  }
  const all = await Promise.all(sizes);
  if (process.env.PAGE_WEIGHT_VERBOSE) for (const r of all) if (r.js) console.log(`  ${path}  ${r.bytes}  ${r.url}`);
  await context.close();
  const scripts = all.filter((r) => r.js);
  return {
    jsBytes: scripts.reduce((sum, r) => sum + r.bytes, 0),
    jsFiles: scripts.length,
    allBytes: all.reduce((sum, r) => sum + r.bytes, 0),
    scripts: scripts.map((r) => ({ url: r.url, bytes: r.bytes })),
  };
}
