import { defineConfig, devices } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Browser journeys against the real stack (`scripts/dev.ts`) on a free port,
 * with its own data directory. The config is evaluated in the runner and in
 * every worker; the port and directory are chosen once and inherited.
 */
const freePort = () =>
  execFileSync(process.execPath, ["-e", "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"])
    .toString()
    .trim();
process.env.E2E_PORT ??= freePort();
process.env.E2E_GITHUB_PORT ??= freePort();
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), "issuepool-e2e-"));
const port = Number(process.env.E2E_PORT);
const baseURL = `http://localhost:${port}`;
/**
 * Every journey starts with the onboarding dialogs already seen, so they do
 * not cover the page; e2e/onboarding.e2e.ts starts from an empty storage.
 */
const ONBOARDING_SEEN = ["welcome", "rewards-guide", "contribution-demo", "pool-manager-guide", "funding-demo"].map((name) => ({
  name: `ip-onboarding:${name}`,
  value: "seen",
}));

/** Journeys that move the demo personas' XDC or the chain's clock: boosts (bob and carol fund alice's bounty), shared rewards (they are paid), an expired boost (the clock moves days on), a held tip (alice's XDC), one amount per bounty (bob boosts, issue 38), cash-outs (bob's and carol's XDC leave for the on-ramp simulator), a renamed repository (contract-audit-tools, which the "chromium" journeys read under its name; pays bob, issue 39), attempts (carol's co-authored fix is paid, issue 39). */
const MOVE_PERSONAS_XDC = /\/(boosts|boost-expiry|held-tip|splits|one-amount|cashout|renames|attempts)\.e2e\.ts$/;
/** A held split share returned to the pool after 30 days (the chain's clock moves a month on). */
const MOVES_CLOCK_A_MONTH = /\/held-share-return\.e2e\.ts$/;

export default defineConfig({
  testDir: "./e2e",
  testMatch: /.*\.e2e\.ts$/,
  fullyParallel: true,
  workers: 2,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  globalTeardown: "./e2e/teardown.ts",
  outputDir: "test-results",
  use: {
    baseURL,
    storageState: { cookies: [], origins: [{ origin: baseURL, localStorage: ONBOARDING_SEEN }] },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    { name: "chromium", testIgnore: [MOVE_PERSONAS_XDC, MOVES_CLOCK_A_MONTH], use: { ...devices["Desktop Chrome"], channel: undefined } },
    // After every other journey: these spend or pay the demo personas' XDC, which others read exactly (the on-ramp
    // journey compares bob's balance to the unit), or change what bounty #1 of the demo repository shows.
    { name: "chromium-after", testMatch: MOVE_PERSONAS_XDC, dependencies: ["chromium"], use: { ...devices["Desktop Chrome"], channel: undefined } },
    // Last and alone: moves the chain's clock 30 days on, which would make the boosts of the journeys above due early.
    { name: "chromium-last", testMatch: MOVES_CLOCK_A_MONTH, dependencies: ["chromium-after"], use: { ...devices["Desktop Chrome"], channel: undefined } },
  ],
  webServer: {
    command: "node_modules/.bin/bun scripts/dev.ts",
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: process.env.E2E_DATA_DIR,
      DEV_GITHUB_PORT: process.env.E2E_GITHUB_PORT,
      ...(process.env.SITE_DIST_DIR ? { SITE_DIST_DIR: process.env.SITE_DIST_DIR } : {}),
      // Every line, into a file of the run's data directory: journeys check what the server logged (e2e/vscode.e2e.ts).
      LOG_LEVEL: "info",
      LOG_FILE: join(process.env.E2E_DATA_DIR, "server.log"),
      // Every browser of the run signs in from 127.0.0.1: one address standing for many people.
      RATE_LIMIT_PER_IP_FACTOR: "20",
      // The platform stops by itself if this runner dies without stopping it (killed from outside: nobody left to).
      STOP_WITH_PID: String(process.pid),
      E2E: "1",
      // Every answer the site receives is checked against the API document; e2e/teardown.ts reads the log.
      CHECK_API_ANSWERS: "1",
      // Shared rewards are paid after a short release window (e2e/splits.e2e.ts), not the default 24 h.
      SPLIT_RELEASE_WINDOW_MS: "8000",
      SPLIT_RELEASE_INTERVAL_MS: "500",
    },
  },
});
