/**
 * Builds the extension: one CommonJS bundle for VS Code's extension host
 * (`vscode` left to the host), then the .vsix with @vscode/vsce, offline
 * (no dependencies to list: everything is in the bundle).
 *
 *   node_modules/.bin/bun vscode-extension/scripts/build.ts [--out DIR]
 *
 * Without --out the bundle goes to vscode-extension/dist and the package to
 * vscode-extension/dist/issuepool-<version>.vsix. With --out, the extension
 * is copied to DIR first and built there, so a test leaves the tree as it was.
 */
import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const EXTENSION_DIR = resolve(import.meta.dir, "..");
const ROOT = resolve(EXTENSION_DIR, "..");

export interface BuiltExtension {
  dir: string;
  bundle: string;
  vsix: string;
}

export async function buildExtension(outDir?: string): Promise<BuiltExtension> {
  const dir = outDir ? resolve(outDir) : EXTENSION_DIR;
  if (outDir) {
    mkdirSync(dir, { recursive: true });
    for (const file of ["package.json", "README.md", ".vscodeignore"]) cpSync(join(EXTENSION_DIR, file), join(dir, file));
  }
  const result = await Bun.build({
    entrypoints: [join(EXTENSION_DIR, "src", "extension.ts")],
    outdir: join(dir, "dist"),
    naming: "extension.js",
    target: "node",
    format: "cjs",
    external: ["vscode"],
    sourcemap: "none",
    minify: false,
  });
  if (!result.success) throw new Error(`bundling the extension failed:\n${result.logs.map(String).join("\n")}`);

  const { version, name } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string; name: string };
  const vsix = join(dir, "dist", `${name}-${version}.vsix`);
  const vsce = join(ROOT, "node_modules", "@vscode", "vsce", "vsce");
  const proc = Bun.spawn(
    ["node", vsce, "package", "--no-dependencies", "--skip-license", "--allow-missing-repository", "--allow-star-activation", "--out", vsix],
    { cwd: dir, stdout: "pipe", stderr: "pipe", stdin: "ignore", env: { ...process.env, VSCE_TELEMETRY: "false" } },
  );
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`vsce package failed (${code}):\n${stdout}\n${stderr}`);
  return { dir, bundle: join(dir, "dist", "extension.js"), vsix };
}

if (import.meta.main) {
  const at = process.argv.indexOf("--out");
  const built = await buildExtension(at > 0 ? process.argv[at + 1] : undefined);
  console.log(`built ${built.vsix}`);
}
