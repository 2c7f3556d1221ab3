/**
 * Page weight: the JavaScript an anonymous visitor downloads, as Chromium
 * transfers it (gzip, from the server's Content-Encoding), for the pages the
 * Site issue budgets: /repos and a public repository page, at most 60 KB
 * each. Other pages are printed for comparison. Bytes, not time, so the
 * figures do not depend on how busy the machine is.
 *
 *   node_modules/.bin/bun scripts/bench/page-weight.ts
 *
 * It starts the embedded stack (anvil, contracts, GitHub emulator, demo
 * seed) in a temporary data directory, loads each page in a fresh browser
 * context (nothing cached, first visit: the welcome dialog opens as it would
 * for a newcomer) and waits for the network to go idle.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { startDevStack } from "../dev.ts";
import { createLogger } from "../../api/logger.ts";
import { table } from "./lib.ts";

export const BUDGET_BYTES = 60 * 1024;

interface Weight {
  page: string;
  budgeted: boolean;
  jsBytes: number;
  jsFiles: number;
  allBytes: number;
}

const PAGES: { path: string; budgeted: boolean }[] = [
  { path: "/repos", budgeted: true },
  { path: "/issuepool-demo/xdc-wallet-kit", budgeted: true },
  { path: "/embed/issuepool-demo/xdc-wallet-kit", budgeted: false },
  { path: "/faq", budgeted: false },
  { path: "/repos/issuepool-demo/xdc-wallet-kit", budgeted: false },
];

async function weigh(browser: Browser, baseUrl: string, path: string): Promise<Omit<Weight, "page" | "budgeted">> {
  const context = await browser.newContext();
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
  const all = await Promise.all(sizes);
  if (process.env.PAGE_WEIGHT_VERBOSE) for (const r of all) if (r.js) console.log(`  ${path}  ${r.bytes}  ${r.url}`);
  await context.close();
  const scripts = all.filter((r) => r.js);
  return {
    jsBytes: scripts.reduce((sum, r) => sum + r.bytes, 0),
    jsFiles: scripts.length,
    allBytes: all.reduce((sum, r) => sum + r.bytes, 0),
  };
}

if (import.meta.main) {
  const dataDir = mkdtempSync(join(tmpdir(), "issuepool-page-weight-"));
  const log = createLogger("warn", undefined, {}, "pretty");
  const stack = await startDevStack({ overrides: { PORT: 0, DATA_DIR: dataDir, LOG_LEVEL: "warn" }, log });
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const weights: Weight[] = [];
  try {
    for (const { path, budgeted } of PAGES) {
      try {
        weights.push({ page: path, budgeted, ...(await weigh(browser, stack.url, path)) });
      } catch (err) {
        if (budgeted) throw err;
        console.warn(`skipped ${path}: ${(err as Error).message}`);
      }
    }
  } finally {
    await browser.close();
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const kb = (n: number) => (n / 1024).toFixed(1);
  console.log("\nJavaScript transferred to an anonymous first-time visitor (gzip, headers included)\n");
  console.log(
    table([
      ["page", "JS KB", "JS files", "all KB", "budget"],
      ...weights.map((w) => [w.page, kb(w.jsBytes), w.jsFiles, kb(w.allBytes), w.budgeted ? (w.jsBytes <= BUDGET_BYTES ? "≤ 60 KB ok" : "OVER 60 KB") : "-"]),
    ]),
  );
  const over = weights.filter((w) => w.budgeted && w.jsBytes > BUDGET_BYTES);
  if (over.length) {
    console.error(`\nover budget: ${over.map((w) => w.page).join(", ")}`);
    process.exit(1);
  }
}
