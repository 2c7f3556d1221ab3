/**
 * The house's layers, checked by dependency-cruiser (scripts/check-layers.ts runs it first in `npm test`).
 * docs/where-things-go.md explains them; from the ground up:
 *
 *   lib/, contracts/artifacts   shared by everyone, import nothing of ours
 *   db/                         imports lib/
 *   api/                        imports db/, lib/, contracts/ (the composition root wires the services)
 *   site/ server side           pages, components, layouts, adapter: lib/, site/, and *types* from api/
 *                               (what they read at run time comes through Astro's `locals`)
 *   site/ islands               site/islands, site/stores, site/lib: lib/ and site/ only, plus the API
 *                               document's types (api/openapi/types.ts, type-only: nothing reaches the bundle)
 *   node-agent/, vscode-extension/src   programs of their own: lib/ only
 *   scripts/                    may import api/, db/, lib/, contracts/, node-agent/; never the reverse
 *   tests (*.test.ts), testing/, e2e/, scripts/bench/, scripts/probes/   may import anything; nothing shipped imports them
 *
 * Type imports count (tsPreCompilationDeps): a circle through `import type` is still a circle.
 */
const TEST = "(\\.test\\.tsx?$|^testing/|^e2e/|^scripts/bench/|^scripts/probes/|^vscode-extension/test/)";
const OURS = "^(api|db|lib|site|scripts|testing|e2e|node-agent|vscode-extension|contracts)/";
const ISLANDS = "^site/(islands|stores|lib)/";
const TYPE_ONLY = ["type-only", "type-import"];

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "An import circle (type imports included): break it with a small interface module or by moving the shared part down a layer.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "lib-imports-nothing-of-ours",
      comment: "lib/ is shared by everyone: it imports nothing of ours.",
      severity: "error",
      from: { path: "^lib/", pathNot: TEST },
      to: { path: OURS, pathNot: "^lib/" },
    },
    {
      name: "contracts-import-nothing-of-ours",
      comment: "contracts/ holds the compiled artifacts everyone reads: it imports nothing of ours.",
      severity: "error",
      from: { path: "^contracts/", pathNot: TEST },
      to: { path: OURS, pathNot: "^contracts/" },
    },
    {
      name: "db-imports-only-lib",
      comment: "db/ (schema, client) imports lib/ only.",
      severity: "error",
      from: { path: "^db/", pathNot: TEST },
      to: { path: OURS, pathNot: "^(db|lib)/" },
    },
    {
      name: "api-imports-db-lib-contracts",
      comment: "api/ imports db/, lib/ and contracts/; never scripts/, site/, test support or other programs.",
      severity: "error",
      from: { path: "^api/", pathNot: TEST },
      to: { path: OURS, pathNot: "^(api|db|lib|contracts)/" },
    },
    {
      name: "site-server-reads-api-through-locals",
      comment: "The site's server side takes types from api/; what it reads at run time comes through `locals`.",
      severity: "error",
      from: { path: "^site/", pathNot: `${TEST}|${ISLANDS}` },
      to: { path: "^api/", dependencyTypesNot: TYPE_ONLY },
    },
    {
      name: "site-server-layers",
      comment: "The site's server side imports lib/, site/ and (types of) api/ only.",
      severity: "error",
      from: { path: "^site/", pathNot: `${TEST}|${ISLANDS}` },
      to: { path: OURS, pathNot: "^(site|lib|api)/" },
    },
    {
      name: "islands-import-lib-and-site",
      comment: "Islands, stores and the site's browser library import lib/ and site/ only (and the API document's types).",
      severity: "error",
      from: { path: ISLANDS, pathNot: TEST },
      to: { path: OURS, pathNot: "^(site|lib)/|^api/openapi/types\\.ts$" },
    },
    {
      name: "islands-take-only-types-of-the-api",
      comment: "The API document's types reach the browser's code as types only.",
      severity: "error",
      from: { path: ISLANDS, pathNot: TEST },
      to: { path: "^api/", dependencyTypesNot: TYPE_ONLY },
    },
    {
      name: "node-agent-imports-lib",
      comment: "The compute node agent is a program of its own, run by other people: it imports lib/ only.",
      severity: "error",
      from: { path: "^node-agent/", pathNot: TEST },
      to: { path: OURS, pathNot: "^(lib|node-agent)/" },
    },
    {
      name: "extension-imports-lib",
      comment: "The VS Code extension is a program of its own, shipped apart: it imports lib/ only.",
      severity: "error",
      from: { path: "^vscode-extension/src/", pathNot: TEST },
      to: { path: OURS, pathNot: "^(lib|vscode-extension)/" },
    },
    {
      name: "scripts-never-reverse",
      comment: "scripts/ may import api/, db/, lib/, contracts/ and node-agent/; not the site's code or test support.",
      severity: "error",
      from: { path: "^scripts/", pathNot: TEST },
      to: { path: OURS, pathNot: "^(scripts|api|db|lib|contracts|node-agent)/" },
    },
    {
      name: "nothing-shipped-imports-tests",
      comment: "Tests and test support (testing/, e2e/, *.test.ts) may import anything; nothing else imports them.",
      severity: "error",
      from: { pathNot: TEST },
      to: { path: TEST },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".mjs", ".js", ".json"] },
  },
};
