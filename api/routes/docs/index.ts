import { Hono } from "hono";
import { dirname, join } from "node:path";
import type { AppBindings } from "../../context.ts";
import { ANONYMOUS, declareRoute, json, noJson, z } from "../../openapi/declare.ts";

/**
 * GET /api/openapi.json      the API document (OpenAPI 3.1), generated from the routes' declarations
 * GET /api/docs              the reference page: Scalar's standalone viewer, served from this origin
 * GET /api/docs/scalar.js    the viewer's bundle (from node_modules, no CDN)
 * GET /api/docs/init.js      starts the viewer on the document (a file, so the page's policy needs no inline script)
 *
 * The page has its own Content-Security-Policy: scripts and connections to
 * this origin only (no CDN, no telemetry, no default fonts from Scalar's
 * servers), styles inline (the viewer injects its stylesheet), no framing.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join("; ");

const VIEWER_PATH = join(dirname(Bun.resolveSync("@scalar/api-reference", import.meta.dir)), "browser", "standalone.js");

/**
 * The viewer bundles zod, which probes `Function("")` to decide whether to compile its parsers; the page's policy
 * (no 'unsafe-eval') refuses that and the browser reports a violation. zod's own switch skips the probe.
 */
const ZOD_WITHOUT_EVAL = "globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });\n";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Issuepool API reference</title>
<meta name="description" content="The Issuepool HTTP API, generated from the routes' schemas (OpenAPI 3.1).">
</head>
<body>
<noscript>This reference needs JavaScript. The document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript>
<main id="app" aria-label="API reference"></main>
<script src="/api/docs/scalar.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;

/**
 * Starts the viewer. Beyond its options, two accessibility repairs (axe, e2e/api-docs.e2e.ts): colours of the method
 * badges and the search placeholder with enough contrast (the theme's are 3.2 to 4:1), and names for what the viewer
 * leaves unnamed (code blocks' copy buttons) or unreachable by keyboard (the scrollable list of a tag's endpoints).
 */
const INIT = `const CONTRAST = \`
.light-mode {
  --scalar-color-2: #575757 !important;
  --scalar-color-3: #616161 !important;
  --scalar-color-blue: #0b5cad !important;
  --scalar-color-green: #0a6b36 !important;
  --scalar-color-orange: #9a4a00 !important;
  --scalar-color-red: #b3261e !important;
  --scalar-color-purple: #6a3ea8 !important;
  --scalar-color-yellow: #735c00 !important;
}
.dark-mode {
  --scalar-color-3: #a8a8a8 !important;
}
\`;
Scalar.createApiReference("#app", {
  url: "/api/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
  documentDownloadType: "json",
  metaData: { title: "Issuepool API reference" },
  customCss: CONTRAST,
});
let pending = false;
new MutationObserver(() => {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    for (const button of document.querySelectorAll("button.scalar-code-copy:not([aria-label])")) button.setAttribute("aria-label", "Copy");
    for (const list of document.querySelectorAll("ul.endpoints:not([tabindex])")) list.setAttribute("tabindex", "0");
  });
}).observe(document.body, { childList: true, subtree: true });
`;

export function docsRoutes(document: () => unknown) {
  let body: string | undefined;
  let viewer: Promise<{ plain: Uint8Array<ArrayBuffer>; gzip: Uint8Array<ArrayBuffer> }> | undefined;
  return new Hono<AppBindings>()
    .get("/openapi.json", (c) => {
      body ??= JSON.stringify(document());
      c.header("Cache-Control", "public, max-age=300");
      return c.body(body, 200, { "Content-Type": "application/json; charset=utf-8" });
    })
    .get("/docs", (c) =>
      c.html(PAGE, 200, { "Content-Security-Policy": DOCS_CSP, "Cache-Control": "public, max-age=300", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY" }),
    )
    .get("/docs/init.js", (c) => c.body(INIT, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=300" }))
    .get("/docs/scalar.js", async (c) => {
      // Read (and gzipped) once, on the first visit of the reference page: 4.3 MB, 1.2 MB gzipped.
      viewer ??= Bun.file(VIEWER_PATH)
        .bytes()
        .then((bytes) => {
          const prefix = new TextEncoder().encode(ZOD_WITHOUT_EVAL);
          const plain = new Uint8Array(prefix.length + bytes.length);
          plain.set(prefix);
          plain.set(bytes, prefix.length);
          return { plain, gzip: Bun.gzipSync(plain) };
        });
      const { plain, gzip } = await viewer;
      const headers: Record<string, string> = { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=86400", Vary: "Accept-Encoding" };
      if (/\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) return c.body(gzip, 200, { ...headers, "Content-Encoding": "gzip" });
      return c.body(plain, 200, headers);
    });
}

export const docsApi = [
  declareRoute({
    method: "get", path: "/api/openapi.json", operationId: "getApiDocument", tags: ["public"], security: ANONYMOUS,
    summary: "This document (OpenAPI 3.1)",
    responses: { 200: json("The document", z.record(z.string(), z.unknown())) },
  }),
  declareRoute({
    method: "get", path: "/api/docs", operationId: "getApiReference", tags: ["public"], security: ANONYMOUS,
    summary: "The API reference page", responses: { 200: noJson("An HTML page", "text/html") },
  }),
  declareRoute({
    method: "get", path: "/api/docs/scalar.js", operationId: "getApiReferenceViewer", tags: ["public"], security: ANONYMOUS,
    summary: "The reference page's viewer (Scalar)", responses: { 200: noJson("JavaScript", "text/javascript") },
  }),
  declareRoute({
    method: "get", path: "/api/docs/init.js", operationId: "getApiReferenceStart", tags: ["public"], security: ANONYMOUS,
    summary: "Starts the viewer on this document", responses: { 200: noJson("JavaScript", "text/javascript") },
  }),
];
