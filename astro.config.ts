import { fileURLToPath } from "node:url";
import { defineConfig } from "astro/config";
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import issuepoolAdapter from "./site/adapter/index.ts";
import issuepoolDirectives from "./site/lib/directives/index.ts";
import { configuredSiteDistDir } from "./api/env.ts";
import { inlineScriptHashes } from "./site/lib/inline-scripts.ts";

/**
 * How the browser's JavaScript is split (issue 16: a signed-in page loaded 25 files). Two shared chunks: "react"
 * (React, ReactDOM and the islands' UI kit, loaded by every page with an island and by no anonymous page) and
 * "shell" (the small modules every page's scripts share: the API client, session and toast stores, formatting).
 * Each island and page script stays its own entry; dialogs and rarely used panels are dynamic imports, loaded
 * when opened. Figures: docs/performance.md, scripts/bench/page-weight.ts.
 */
const clientChunks = {
  groups: [
    {
      name: "react",
      test: /node_modules[\\/](react|react-dom|scheduler)[\\/]|site[\\/]islands[\\/]ui[\\/](button|icon|spinner|use-store|copy-button|tabs)\.tsx?$/,
      priority: 2,
    },
    {
      name: "shell",
      test: /site[\\/](lib[\\/](api|format|onboarding-flags|tooltip|wallet-data|wallet-resource)|stores[\\/](session|toast))\.ts$|node_modules[\\/]nanostores[\\/]/,
      priority: 1,
    },
    {
      // The repository page's own small shared modules (its panels, dialogs and page script import them too): one file,
      // not nine (issue 39: the attempts panel took the page to 102.2 KB in 12 files, three of them under 1.3 KB; now 8).
      name: "repo-detail",
      test: /site[\\/](islands[\\/]repo-detail[\\/](actions|tokens|use-resource|ui|bounty-cache)|lib[\\/](funding-rules|auth-flow|repo-detail-data))\.tsx?$|[\\/]lib[\\/]attempt-rules\.ts$/,
      priority: 1,
    },
  ],
};

export default defineConfig({
  srcDir: "./site",
  publicDir: "./site/public",
  // The server reads the same setting (api/env.ts); separate directories let builds run side by side.
  outDir: configuredSiteDistDir(),
  output: "static",
  adapter: issuepoolAdapter(),
  integrations: [react(), issuepoolDirectives()],
  image: { service: { entrypoint: "astro/assets/services/noop" } },
  fetchFile: null,
  trailingSlash: "ignore",
  build: { format: "directory" },
  security: {
    // The API is the only place that enforces CSRF; Astro serves no forms of its own.
    checkOrigin: false,
    // A Content-Security-Policy on every page (a <meta> tag Astro writes): scripts only from this site or by the hash
    // of an inline script (Astro's island and directive scripts, and ours: site/lib/inline-scripts.ts); inline
    // style attributes allowed (React and Radix position things with them), no plugins, no <base>, forms and
    // connections to this site only. The embed's own, stricter policy and frame-ancestors are HTTP headers
    // (api/middleware/edge.ts).
    csp: {
      directives: [
        "default-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "connect-src 'self'",
        "img-src 'self' data: https: http:",
        "font-src 'self'",
        "manifest-src 'self'",
        "worker-src 'self'",
      ],
      scriptDirective: { hashes: inlineScriptHashes() },
      styleDirective: { resources: ["'self'", { resource: "'unsafe-inline'", kind: "attribute" }] },
    },
  },
  devToolbar: { enabled: false },
  // Scripts and styles as files, never inlined: cached once, not resent with every page.
  vite: {
    plugins: [tailwindcss()],
    // The dialogs' scroll lock writes its rules through a constructed stylesheet, not an inline <style> the policy refuses.
    resolve: { alias: [{ find: /^react-style-singleton$/, replacement: fileURLToPath(new URL("./site/islands/ui/style-singleton.ts", import.meta.url)) }] },
    build: { assetsInlineLimit: 0 },
    environments: { client: { build: { rolldownOptions: { output: { codeSplitting: clientChunks } } } } },
  },
});
