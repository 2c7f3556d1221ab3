/**
 * Page weight: the JavaScript a visitor downloads, as Chromium transfers it
 * (gzip, from the server's Content-Encoding), with an empty cache. Bytes, not
 * time, so the figures do not depend on how busy the machine is.
 *
 * Budgets:
 * - an anonymous visitor of /repos and of a public repository page: at most
 *   60 KB each (the Site issue); other anonymous pages are printed for
 *   comparison;
 * - a signed-in visitor, as each demo persona, on every page they use: at
 *   most 100 KB in at most 12 files (issue 16: a pool manager's repository
 *   page took 140 KB in 26 files). Dialogs and rarely used panels load when
 *   opened, so they are not in these figures.
 *
 *   node_modules/.bin/bun scripts/bench/page-weight.ts
 *   PAGE_WEIGHT_URL=http://localhost:3000 node_modules/.bin/bun scripts/bench/page-weight.ts   (a running stack)
 *   PAGE_WEIGHT_VERBOSE=1 ...   (every script, with its size)
 *
 * Without PAGE_WEIGHT_URL it starts the embedded stack (anvil, contracts,
 * GitHub emulator, demo seed) in a temporary data directory. Each page is
 * loaded in a fresh browser context (nothing cached) and measured once the
 * network is idle. Anonymous visits are first visits (the welcome dialog
 * opens, as for a newcomer); signed-in visits carry the persona's session
 * and have the onboarding guides already seen, as a returning user has.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContextOptions } from "@playwright/test";
import { SIGNED_IN_BUDGET_BYTES, SIGNED_IN_BUDGET_FILES, weigh, type PageWeight } from "./weigh.ts";
import { startDevStack } from "../dev.ts";
import { createLogger } from "../../api/logger.ts";
import { table } from "./lib.ts";

export const BUDGET_BYTES = 60 * 1024;

interface Weight extends PageWeight {
  who: string;
  page: string;
  budget: "anonymous" | "signed-in" | null;
}

const ANONYMOUS_PAGES: { path: string; budgeted: boolean }[] = [
  { path: "/repos", budgeted: true },
  { path: "/issuepool-demo/xdc-wallet-kit", budgeted: true },
  { path: "/embed/issuepool-demo/xdc-wallet-kit", budgeted: false },
  { path: "/faq", budgeted: false },
  { path: "/repos/issuepool-demo/xdc-wallet-kit", budgeted: false },
];

/** The seeded personas (scripts/seed-demo.ts) and the pages each uses. */
const PERSONAS: { login: string; role: string; pages: string[] }[] = [
  {
    login: "alice",
    role: "pool manager",
    pages: ["/repos", "/repos/issuepool-demo/xdc-wallet-kit", "/issuepool-demo/xdc-wallet-kit", "/wallet", "/profile", "/my-repos", "/repos/register", "/vscode/wallet", "/faq"],
  },
  { login: "bob", role: "contributor", pages: ["/repos", "/repos/issuepool-demo/xdc-wallet-kit", "/issuepool-demo/xdc-wallet-kit", "/wallet", "/profile", "/vscode/wallet", "/faq"] },
];

const ONBOARDING_SEEN = ["welcome", "rewards-guide", "contribution-demo", "pool-manager-guide", "funding-demo"].map((name) => ({ name: `ip-onboarding:${name}`, value: "seen" }));

/** Signs in through the real flow (the GitHub emulator's page) and returns the session as storage state. */
async function sessionOf(browser: Browser, baseUrl: string, login: string): Promise<BrowserContextOptions["storageState"]> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${baseUrl}/auth?returnTo=%2Frepos`);
  await page.getByRole("link", { name: "Sign in with GitHub" }).click();
  await page.locator(`button[name="login"][value="${login}"]`).click();
  await page.waitForURL((url) => url.origin === new URL(baseUrl).origin && url.pathname === "/repos");
  const state = await context.storageState();
  await context.close();
  return { cookies: state.cookies, origins: [{ origin: new URL(baseUrl).origin, localStorage: ONBOARDING_SEEN }] };
}

export async function measure(browser: Browser, baseUrl: string): Promise<Weight[]> {
  const weights: Weight[] = [];
  for (const { path, budgeted } of ANONYMOUS_PAGES) {
    try {
      weights.push({ who: "anonymous", page: path, budget: budgeted ? "anonymous" : null, ...(await weigh(browser, baseUrl, path)) });
    } catch (err) {
      if (budgeted) throw err;
      console.warn(`skipped ${path}: ${(err as Error).message}`);
    }
  }
  for (const persona of PERSONAS) {
    const storageState = await sessionOf(browser, baseUrl, persona.login);
    for (const path of persona.pages) {
      weights.push({ who: `${persona.login} (${persona.role})`, page: path, budget: "signed-in", ...(await weigh(browser, baseUrl, path, { storageState })) });
    }
  }
  return weights;
}

export function overBudget(w: Weight): boolean {
  if (w.budget === "anonymous") return w.jsBytes > BUDGET_BYTES;
  if (w.budget === "signed-in") return w.jsBytes > SIGNED_IN_BUDGET_BYTES || w.jsFiles > SIGNED_IN_BUDGET_FILES;
  return false;
}

if (import.meta.main) {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  let weights: Weight[];
  const given = process.env.PAGE_WEIGHT_URL;
  if (given) {
    try {
      weights = await measure(browser, given.replace(/\/+$/, ""));
    } finally {
      await browser.close();
    }
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), "issuepool-page-weight-"));
    const log = createLogger("warn", undefined, {}, "pretty");
    const stack = await startDevStack({ overrides: { PORT: 0, DATA_DIR: dataDir, LOG_LEVEL: "warn" }, log });
    try {
      weights = await measure(browser, stack.url);
    } finally {
      await browser.close();
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const kb = (n: number) => (n / 1024).toFixed(1);
  const budgetText = (w: Weight) =>
    w.budget === "anonymous" ? (overBudget(w) ? "OVER 60 KB" : "≤ 60 KB ok") : w.budget === "signed-in" ? (overBudget(w) ? "OVER 100 KB / 12 files" : "≤ 100 KB, ≤ 12 files ok") : "-";
  console.log("\nJavaScript transferred with an empty cache (gzip, headers included)\n");
  console.log(table([["visitor", "page", "JS KB", "JS files", "all KB", "budget"], ...weights.map((w) => [w.who, w.page, kb(w.jsBytes), w.jsFiles, kb(w.allBytes), budgetText(w)])]));
  const over = weights.filter(overBudget);
  if (over.length) {
    console.error(`\nover budget: ${over.map((w) => `${w.who} ${w.page}`).join(", ")}`);
    process.exit(1);
  }
}
