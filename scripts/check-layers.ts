/**
 * The layer check (docs/where-things-go.md): dependency-cruiser with the
 * rules in .dependency-cruiser.cjs, over every folder of ours. Fails on any
 * import circle (type imports included) and on any arrow that runs the wrong
 * way. `npm test` runs it first; by hand:
 *
 *   bun scripts/check-layers.ts
 *
 * dependency-cruiser 18 refuses Node 20 at its door but runs under Bun, so it
 * is started with the Bun that runs this script. It does not read `.astro`
 * files, so their imports are checked here against the site's server-side
 * rule: types only from api/, nothing from db/, scripts/ or test support.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

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
  const astro = folders.includes("site") ? astroViolations(cwd) : [];
  const report = [`${stdout}${stderr}`.trim(), ...astro.map((line) => `  error ${line}`)].filter(Boolean).join("\n");
  return { ok: code === 0 && astro.length === 0, report };
}

const ASTRO_FORBIDDEN = /^(db|scripts|testing|e2e|node-agent|vscode-extension|contracts)\//;
/** `import type {...} from "x"`, `import {...} from "x"`, `import "x"`, `import("x")`: the specifier, and whether it is type-only. */
const ASTRO_IMPORT = /\bimport\s+(type\s+)?(?:[^'"();]*?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The `.astro` files' imports that break the site's server-side rule (dependency-cruiser does not parse them). */
export function astroViolations(cwd: string): string[] {
  const found: string[] = [];
  for (const file of new Bun.Glob("site/**/*.astro").scanSync({ cwd })) {
    const text = readFileSync(join(cwd, file), "utf8");
    for (const match of text.matchAll(ASTRO_IMPORT)) {
      const specifier = match[2] ?? match[3]!;
      if (!specifier.startsWith(".")) continue;
      const target = relative(cwd, resolve(cwd, dirname(file), specifier));
      if (ASTRO_FORBIDDEN.test(target)) found.push(`astro-site-server-layers: ${file} → ${target} (the site's server side imports lib/, site/ and types of api/)`);
      else if (target.startsWith("api/") && !match[1]) found.push(`astro-site-server-reads-api-through-locals: ${file} → ${target} (types only: what a page reads comes through locals)`);
    }
  }
  return found;
}

if (import.meta.main) {
  const { ok, report } = await checkLayers();
  console.log(report || "no import circles, no wrong-way arrows");
  process.exit(ok ? 0 : 1);
}
