/**
 * The layer check can fail: a deliberate circle, a circle through type
 * imports only, and a wrong-way arrow, each in a small fixture tree checked
 * with the repository's own rules, fail it; the same tree without them passes.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeTempDir } from "../testing/temp-dirs.ts";
import { astroViolations, checkLayers } from "./check-layers.ts";

async function fixture(files: Record<string, string>): Promise<string> {
  const dir = await makeTempDir("issuepool-layers-");
  const all = { "tsconfig.json": JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true, module: "ESNext", moduleResolution: "bundler" } }), ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const CLEAN = {
  "lib/amounts.ts": "export const ONE = 1n;\n",
  "db/client.ts": 'import { ONE } from "../lib/amounts.ts";\nexport const db = { one: ONE };\n',
  "api/context.ts": 'import type { Logger } from "./logger.ts";\nexport interface AppContext { log: Logger }\n',
  "api/logger.ts": "export interface Logger { info(message: string): void }\n",
  "api/service.ts": 'import type { AppContext } from "./context.ts";\nimport { db } from "../db/client.ts";\nexport const run = (ctx: AppContext) => ctx.log.info(String(db.one));\n',
  "scripts/dev.ts": 'import { run } from "../api/service.ts";\nrun({ log: console });\n',
};

describe("the layer check", () => {
  test("passes a tree whose arrows run one way", async () => {
    const { ok, report } = await checkLayers(await fixture(CLEAN), ["api", "db", "lib", "scripts"]);
    expect(report).not.toContain("error");
    expect(ok).toBe(true);
  });

  test("fails on an import circle", async () => {
    const dir = await fixture({
      ...CLEAN,
      "api/logger.ts": 'import { run } from "./service.ts";\nexport interface Logger { info(message: string): void }\nexport const again = run;\n',
    });
    const { ok, report } = await checkLayers(dir, ["api", "db", "lib", "scripts"]);
    expect(ok).toBe(false);
    expect(report).toContain("no-circular");
  });

  test("fails on a circle made of type imports only", async () => {
    const dir = await fixture({
      ...CLEAN,
      "api/logger.ts": 'import type { AppContext } from "./context.ts";\nexport interface Logger { info(message: string): void; ctx?: AppContext }\n',
    });
    const { ok, report } = await checkLayers(dir, ["api", "db", "lib", "scripts"]);
    expect(ok).toBe(false);
    expect(report).toContain("no-circular");
  });

  test("fails on an arrow that runs the wrong way", async () => {
    const dir = await fixture({
      ...CLEAN,
      "scripts/secrets.ts": 'export const SECRET = "dev";\n',
      "api/service.ts": 'import type { AppContext } from "./context.ts";\nimport { SECRET } from "../scripts/secrets.ts";\nexport const run = (ctx: AppContext) => ctx.log.info(SECRET);\n',
    });
    const { ok, report } = await checkLayers(dir, ["api", "db", "lib", "scripts"]);
    expect(ok).toBe(false);
    expect(report).toContain("api-imports-db-lib-contracts");
  });

  test("checks the imports of .astro pages, which dependency-cruiser does not read", async () => {
    const page = (imports: string) => `---\n${imports}\n---\n<p>{ONE}</p>\n`;
    const clean = await fixture({
      ...CLEAN,
      "site/pages/index.astro": page('import type { AppContext } from "../../api/context.ts";\nimport { ONE } from "../../lib/amounts.ts";'),
    });
    expect(await checkLayers(clean, ["api", "db", "lib", "scripts", "site"])).toMatchObject({ ok: true });
    const valueFromApi = await fixture({ "site/pages/index.astro": page('import { run } from "../../api/service.ts";') });
    expect(astroViolations(valueFromApi)).toEqual([
      "astro-site-server-reads-api-through-locals: site/pages/index.astro → api/service.ts (types only: what a page reads comes through locals)",
    ]);
    const fromDb = await fixture({ "site/components/Card.astro": page('import { db } from "../../db/client.ts";') });
    expect(astroViolations(fromDb)).toEqual([
      "astro-site-server-layers: site/components/Card.astro → db/client.ts (the site's server side imports lib/, site/ and types of api/)",
    ]);
  });
});
