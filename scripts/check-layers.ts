/**
 * The layer check (docs/where-things-go.md): dependency-cruiser with the
 * rules in .dependency-cruiser.cjs, over every folder of ours. Fails on any
 * import circle (type imports included) and on any arrow that runs the wrong
 * way. `npm test` runs it first; by hand:
 *
 *   bun scripts/check-layers.ts
 *
 * dependency-cruiser 18 refuses Node 20 at its door but runs under Bun, so it
 * is started with the Bun that runs this script.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
export const LAYER_FOLDERS = ["api", "db", "lib", "site", "scripts", "testing", "e2e", "node-agent", "vscode-extension", "contracts"];

export interface LayerCheck {
  ok: boolean;
  /** dependency-cruiser's report: one line per violation, then a summary. */
  report: string;
}

/** Runs the check in `cwd` (the repository, or a test's fixture) with the repository's rules. */
export async function checkLayers(cwd = ROOT, folders = LAYER_FOLDERS.filter((f) => existsSync(join(cwd, f)))): Promise<LayerCheck> {
  const cli = join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruiser.mjs");
  const config = join(ROOT, ".dependency-cruiser.cjs");
  const proc = Bun.spawn([process.execPath, cli, "--config", config, "--output-type", "err", ...folders], {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { ok: code === 0, report: `${stdout}${stderr}`.trim() };
}

if (import.meta.main) {
  const { ok, report } = await checkLayers();
  console.log(report || "no import circles, no wrong-way arrows");
  process.exit(ok ? 0 : 1);
}
