import { expect, test } from "@playwright/test";
import { SIGNED_IN_BUDGET_BYTES, SIGNED_IN_BUDGET_FILES, weigh } from "../scripts/bench/weigh.ts";
import { signIn } from "./support.ts";

/**
 * Signed-in pages stay within their JavaScript budget with an empty cache:
 * at most 100 KB (gzip) in at most 12 files (issue 16: a pool manager's
 * repository page took 140 KB in 26 files, the wallet 130 KB in 25). Bytes,
 * not time: the same on a busy machine. The full table, anonymous pages
 * included, is scripts/bench/page-weight.ts; figures in docs/performance.md.
 */
const PAGES: Record<string, string[]> = {
  alice: ["/repos/issuepool-demo/xdc-wallet-kit", "/wallet", "/profile", "/my-repos", "/vscode/wallet"],
  bob: ["/repos/issuepool-demo/xdc-wallet-kit", "/wallet", "/profile"],
};

for (const [login, paths] of Object.entries(PAGES)) {
  test(`signed in as ${login}, every page loads at most 100 KB of JavaScript in at most 12 files`, async ({ page, browser, baseURL }) => {
    await signIn(page, login, "/repos");
    const storageState = await page.context().storageState();
    for (const path of paths) {
      const weight = await weigh(browser, baseURL!, path, { storageState });
      const detail = `${path}: ${(weight.jsBytes / 1024).toFixed(1)} KB in ${weight.jsFiles} files\n  ${weight.scripts.map((s) => `${s.bytes} ${new URL(s.url).pathname}`).join("\n  ")}`;
      expect(weight.jsBytes, detail).toBeLessThanOrEqual(SIGNED_IN_BUDGET_BYTES);
      expect(weight.jsFiles, detail).toBeLessThanOrEqual(SIGNED_IN_BUDGET_FILES);
    }
  });
}
