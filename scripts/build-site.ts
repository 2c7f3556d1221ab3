/**
 * Builds the Astro site into dist/ when its sources changed since the last
 * build (a content hash is kept in dist/.build-stamp), so `npm start` and
 * `npm test` build once and then start in a second.
 *
 *   bun scripts/build-site.ts [--force]
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { configuredSiteDistDir } from "../api/env.ts";

const ROOT = resolve(import.meta.dir, "..");
// Same setting the server reads (SITE_DIST_DIR in api/env.ts), relative to the project.
const DIST = resolve(ROOT, configuredSiteDistDir());
const STAMP = join(DIST, ".build-stamp");
const INPUTS = ["site", "astro.config.ts", "package-lock.json", "tsconfig.json"];

function sourceHash(): string {
  const hasher = new Bun.CryptoHasher("sha256");
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else {
      hasher.update(path.slice(ROOT.length));
      hasher.update(readFileSync(path));
    }
  };
  for (const input of INPUTS) visit(join(ROOT, input));
  return hasher.digest("hex");
}

export async function buildSite(options: { force?: boolean; quiet?: boolean } = {}): Promise<boolean> {
  const hash = sourceHash();
  const built = existsSync(join(DIST, "server", "entry.mjs")) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === hash;
  if (built && !options.force) return false;
  if (!options.quiet) console.log("Building the site (astro build)...");
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, "--bun", join(ROOT, "node_modules", "astro", "bin", "astro.mjs"), "build"], {
    cwd: ROOT,
    // Always the production bundle: under `bun test` NODE_ENV is "test", and a site built from a test then shipped
    // React's development build (131 KB gzip instead of ~60; page-weight journeys red after a local `bun test site`).
    env: { ...process.env, NODE_ENV: "production", ASTRO_TELEMETRY_DISABLED: "1" },
    stdout: options.quiet ? "pipe" : "inherit",
    stderr: "inherit",
  });
  const code = await proc.exited;
  if (code !== 0) {
    if (options.quiet) console.error(await new Response(proc.stdout).text());
    throw new Error(`astro build failed with exit code ${code}`);
  }
  writeFileSync(STAMP, hash);
  if (!options.quiet) console.log(`Site built in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  return true;
}

if (import.meta.main) {
  await buildSite({ force: process.argv.includes("--force") });
}
