/**
 * `npm test`: every test. Builds the site if needed, runs the unit and
 * integration suites (`bun test`), then the browser journeys (Playwright in
 * Debian's Chromium). Chromium is installed with apt when it is missing and
 * we can (root on Debian); otherwise we stop and say how. Browser tests are
 * never skipped.
 *
 *   npm test                  everything (layer check, type check, bun test in random order, browser journeys)
 *   npm test -- --unit        bun test only
 *   npm test -- --e2e [args]  Playwright only (args go to Playwright)
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildSite } from "./build-site.ts";
import { checkLayers } from "./check-layers.ts";

const ROOT = resolve(import.meta.dir, "..");
export const CHROMIUM = "/usr/bin/chromium";

async function run(cmd: string[], env: Record<string, string> = {}): Promise<number> {
  const proc = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "inherit", stderr: "inherit" });
  return proc.exited;
}

async function ensureChromium(): Promise<void> {
  if (existsSync(CHROMIUM)) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const hasApt = existsSync("/usr/bin/apt-get");
  if (isRoot && hasApt) {
    console.log("Chromium is missing: installing Debian's chromium package with apt-get...");
    if ((await run(["apt-get", "update"])) !== 0 || (await run(["apt-get", "install", "-y", "chromium"], { DEBIAN_FRONTEND: "noninteractive" })) !== 0) {
      throw new Error("apt-get could not install chromium; install it by hand: apt-get install -y chromium");
    }
    if (existsSync(CHROMIUM)) return;
  }
  throw new Error(
    [
      `The browser tests need Debian's Chromium at ${CHROMIUM}, and it is not installed.`,
      "Install it with:  sudo apt-get update && sudo apt-get install -y chromium",
      "(The tests never download a browser from anywhere else.)",
    ].join("\n"),
  );
}

const args = process.argv.slice(2);
const unitOnly = args.includes("--unit");
const e2eOnly = args.includes("--e2e");
const passThrough = args.filter((a) => a !== "--unit" && a !== "--e2e");

try {
  // First, and fatal: an import circle or a wrong-way arrow fails the run before anything else is spent (docs/where-things-go.md).
  console.log("\n== Layer check (dependency-cruiser: no circles, arrows one way) ==\n");
  const layers = await checkLayers();
  console.log(layers.report || "no import circles, no wrong-way arrows");
  if (!layers.ok) process.exit(1);
  if (!unitOnly) await ensureChromium();
  await buildSite();
  let failed = false;
  if (!e2eOnly) {
    console.log("\n== Type check (tsc --noEmit) ==\n");
    failed = (await run(["node", join(ROOT, "node_modules", "typescript", "bin", "tsc"), "--noEmit"])) !== 0 || failed;
    // In random order, so a test that leans on another one's leftovers fails here rather than some day on CI.
    // The run prints its --seed; `npm test -- --unit --seed=N` replays that order.
    console.log("\n== Unit and integration tests (bun test, random order) ==\n");
    // Bun 1.4 does not read bunfig.toml's [test] timeout (a test ran out at its default 5 s): given here.
    failed = (await run([process.execPath, "test", "--randomize", "--timeout", "30000", ...(unitOnly ? passThrough : [])])) !== 0 || failed;
  }
  if (!unitOnly) {
    console.log("\n== Browser journeys (Playwright, Chromium) ==\n");
    const cli = join(ROOT, "node_modules", "@playwright", "test", "cli.js");
    // The stack's data directory for this run (playwright.config.ts makes one when run directly); gone afterwards.
    const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(join(tmpdir(), "issuepool-e2e-"));
    try {
      failed = (await run(["node", cli, "test", ...(e2eOnly ? passThrough : [])], { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1", E2E_DATA_DIR: dataDir })) !== 0 || failed;
    } finally {
      if (!process.env.E2E_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    }
  }
  process.exit(failed ? 1 : 0);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
