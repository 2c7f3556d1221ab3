import { defineConfig } from "astro/config";
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import issuepoolAdapter from "./site/adapter/index.ts";
import issuepoolDirectives from "./site/lib/directives/index.ts";
import { configuredSiteDistDir } from "./api/env.ts";
import { inlineScriptHashes } from "./site/lib/inline-scripts.ts";

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
  vite: { plugins: [tailwindcss()], build: { assetsInlineLimit: 0 } },
});
