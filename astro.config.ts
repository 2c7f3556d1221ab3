import { defineConfig } from "astro/config";
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import issuepoolAdapter from "./site/adapter/index.ts";
import issuepoolDirectives from "./site/lib/directives/index.ts";
import { configuredSiteDistDir } from "./api/env.ts";

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
  // The API is the only place that enforces CSRF; Astro serves no forms of its own.
  security: { checkOrigin: false },
  devToolbar: { enabled: false },
  // Scripts and styles as files, never inlined: cached once, not resent with every page.
  vite: { plugins: [tailwindcss()], build: { assetsInlineLimit: 0 } },
});
