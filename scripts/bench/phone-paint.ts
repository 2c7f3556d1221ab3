/**
 * Paint on a phone (issue 38): the largest contentful paint of the public pages for a first-time visitor on a
 * slow 4G phone, as Chromium measures it: 150 ms round trip, 1.6 Mbps down and 750 kbps up (DevTools'
 * "Slow 4G"), the CPU slowed down 4x, a 412 px wide screen, nothing cached. Each page is loaded three times
 * in a fresh browser context and the median is printed, with the element that painted last. Not a test: the
 * figures depend on the machine (a busy one paints later), so they are read beside each other, and beside the
 * original product's client on the same API (4.4 to 5.2 s, issue 38).
 *
 * Target: /repos, the public repository page, /explore and the FAQ under 1 s each.
 *
 *   node_modules/.bin/bun scripts/bench/phone-paint.ts
 *   PHONE_PAINT_URL=http://localhost:3000 node_modules/.bin/bun scripts/bench/phone-paint.ts   (a running stack)
 *
 * Without PHONE_PAINT_URL it starts the embedded stack (as scripts/bench/page-weight.ts does) in a temporary
 * data directory.
 *
 *   PHONE_PAINT_URL=http://127.0.0.1:3111 PHONE_PAINT_AGAINST=http://127.0.0.1:3187 node_modules/.bin/bun scripts/bench/phone-paint.ts [rounds]
 *
 * Side by side with another running stack (an older checkout started with `PORT=3187 npm start`): the two are
 * loaded in turn, page by page, `rounds` times (default 3) x 3 loads each, so both see the same moments of a
 * shared machine; it prints both medians and their ratio.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { startDevStack } from "../dev.ts";
import { createLogger } from "../../api/logger.ts";
import { table } from "./lib.ts";

export const PHONE = { width: 412, height: 915 };
/** DevTools' "Slow 4G" preset, and the CPU slowdown a mid-range phone has against this machine. */
export const SLOW_4G = { latency: 150, downloadThroughput: (1.6 * 1_000_000) / 8, uploadThroughput: (750 * 1_000) / 8, cpuSlowdown: 4 };
export const TARGET_MS = 1000;
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/**
 * Chromium 156 as a desktop browser preloads its own omnibox popup (a WebUI page of ~400 files, in a renderer of
 * its own) at a moment of its choosing: in 3 of 8 traced loads it did so while the measured page loaded, on this
 * 2-core machine, and that load painted 300-500 ms later. A phone's browser has no such popup: these are off.
 */
const FEATURES_OFF = ["PreloadTopChromeWebUI", "WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup"];

/**
 * Chromium for the measurement. Chromium keeps only the last `--disable-features` of its command line, and
 * Playwright passes its own list (PaintHolding, HttpsUpgrades, ...): that list is read off a first browser's
 * command line and given again with ours, as one switch.
 */
export async function launchPhoneBrowser(): Promise<Browser> {
  const launch = (args: string[], ignoreDefaultArgs: string[] = []) => chromium.launch({ executablePath: "/usr/bin/chromium", args: [...CHROMIUM_ARGS, ...args], ignoreDefaultArgs });
  const probe = await launch([]);
  const theirs = browserCommandLine().find((arg) => arg.startsWith("--disable-features="));
  await probe.close();
  const merged = [...(theirs?.slice("--disable-features=".length).split(",").filter(Boolean) ?? []), ...FEATURES_OFF];
  return launch([`--disable-features=${[...new Set(merged)].join(",")}`], theirs ? [theirs] : []);
}

/** The command line of the browser this process started (the child with Playwright's debugging pipe). */
function browserCommandLine(): string[] {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent !== process.pid) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (args.includes("--remote-debugging-pipe")) return args;
    } catch {
      // The process ended while we looked.
    }
  }
  throw new Error("the browser's process was not found among this process's children");
}
const RUNS = 3;

const PAGES = ["/repos", "/issuepool-demo/xdc-wallet-kit", "/explore", "/faq"];

export interface Paint {
  page: string;
  /** Each run's largest contentful paint, ms after navigation started. */
  runs: number[];
  median: number;
  /** What painted last in the median run. */
  element: string;
}

/** One cold load of `path` on the phone profile: its largest contentful paint and the element it was. */
async function paintOnce(browser: Browser, baseUrl: string, path: string): Promise<{ ms: number; element: string }> {
  const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      const seen: { t: number; el: string }[] = [];
      (window as unknown as { __lcp: typeof seen }).__lcp = seen;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as (PerformanceEntry & { element?: Element | null })[]) {
          const el = entry.element;
          const text = el ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""} "${(el.textContent ?? "").trim().slice(0, 40)}"` : "(removed)";
          seen.push({ t: entry.startTime, el: text });
        }
      }).observe({ type: "largest-contentful-paint", buffered: true });
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: SLOW_4G.latency,
      downloadThroughput: SLOW_4G.downloadThroughput,
      uploadThroughput: SLOW_4G.uploadThroughput,
    });
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: SLOW_4G.cpuSlowdown });
    const response = await page.goto(baseUrl + path, { waitUntil: "load", timeout: 60_000 });
    if (!response || response.status() >= 400) throw new Error(`${path} answered ${response?.status()}`);
    // Whatever scripts reveal after load (a guide, a dialog) counts too: wait until the network and the page are quiet.
    await page.waitForLoadState("networkidle", { timeout: 60_000 });
    await page.waitForTimeout(1500);
    const entries = await page.evaluate(() => (window as unknown as { __lcp: { t: number; el: string }[] }).__lcp);
    const last = entries.at(-1);
    if (!last) throw new Error(`${path}: no largest-contentful-paint entry`);
    return { ms: Math.round(last.t), element: last.el };
  } finally {
    await context.close();
  }
}

export async function measurePaints(browser: Browser, baseUrl: string, pages = PAGES): Promise<Paint[]> {
  const out: Paint[] = [];
  for (const path of pages) {
    const runs: { ms: number; element: string }[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await paintOnce(browser, baseUrl, path));
    const sorted = [...runs].sort((a, b) => a.ms - b.ms);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    out.push({ page: path, runs: runs.map((r) => r.ms), median: median.ms, element: median.element });
  }
  return out;
}

/** This stack and `against` loaded in turn, page by page, so both see the same moments of a shared machine. */
async function sideBySide(browser: Browser, baseUrl: string, against: string, rounds: number): Promise<void> {
  const runs = new Map<string, { ours: number[]; theirs: number[] }>();
  for (let round = 0; round < rounds; round++) {
    for (const path of PAGES) {
      const seen = runs.get(path) ?? { ours: [], theirs: [] };
      runs.set(path, seen);
      // Who goes first alternates: the second load of a pair meets a warmer server and machine.
      const order = round % 2 ? (["theirs", "ours"] as const) : (["ours", "theirs"] as const);
      for (const side of order) {
        const [paint] = await measurePaints(browser, side === "ours" ? baseUrl : against, [path]);
        seen[side].push(...paint!.runs);
      }
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`\nLargest contentful paint on the phone profile, this stack against ${against}: medians of ${rounds * RUNS} loads each\n`);
  console.log(table([["page", "this ms", "against ms", "ratio", "this runs", "against runs"], ...[...runs].map(([path, r]) => [
    path, median(r.ours), median(r.theirs), (median(r.ours) / median(r.theirs)).toFixed(2), r.ours.join(" "), r.theirs.join(" "),
  ])]));
}

if (import.meta.main) {
  const browser = await launchPhoneBrowser();
  const against = process.env.PHONE_PAINT_AGAINST?.replace(/\/+$/, "");
  if (against) {
    const ours = process.env.PHONE_PAINT_URL?.replace(/\/+$/, "");
    try {
      if (!ours) throw new Error("PHONE_PAINT_AGAINST compares two running stacks: set PHONE_PAINT_URL to this one");
      await sideBySide(browser, ours, against, Number(process.argv[2] ?? 3));
    } finally {
      await browser.close();
    }
    process.exit(0);
  }
  let paints: Paint[];
  const given = process.env.PHONE_PAINT_URL;
  try {
    if (given) paints = await measurePaints(browser, given.replace(/\/+$/, ""));
    else {
      const dataDir = mkdtempSync(join(tmpdir(), "issuepool-phone-paint-"));
      const log = createLogger("warn", undefined, {}, "pretty");
      const stack = await startDevStack({ overrides: { PORT: 0, DATA_DIR: dataDir, LOG_LEVEL: "warn" }, log });
      try {
        paints = await measurePaints(browser, stack.url);
      } finally {
        await stack.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await browser.close();
  }
  console.log(`\nLargest contentful paint, first visit on a phone: ${PHONE.width} px, ${SLOW_4G.latency} ms RTT, 1.6 Mbps, CPU ${SLOW_4G.cpuSlowdown}x slower (median of ${RUNS})\n`);
  console.log(table([["page", "median ms", "runs ms", "target", "painted last"], ...paints.map((p) => [p.page, p.median, p.runs.join(" / "), p.median < TARGET_MS ? "< 1 s ok" : "OVER 1 s", p.element])]));
  const over = paints.filter((p) => p.median >= TARGET_MS);
  if (over.length) {
    console.error(`\nover ${TARGET_MS} ms: ${over.map((p) => p.page).join(", ")}`);
    process.exit(1);
  }
}
