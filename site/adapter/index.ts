import type { AstroIntegration } from "astro";

/**
 * The in-repo adapter: Astro renders on demand inside our own Hono app, in the
 * same Bun process as the API. The server entry only exports a `handler`;
 * `api/site-host/index.ts` mounts it after the API routes.
 */
export default function issuepoolAdapter(): AstroIntegration {
  return {
    name: "issuepool-adapter",
    hooks: {
      "astro:config:done": ({ setAdapter }) => {
        setAdapter({
          name: "issuepool-adapter",
          entrypointResolution: "auto",
          serverEntrypoint: new URL("./server.ts", import.meta.url),
          supportedAstroFeatures: {
            staticOutput: "stable",
            serverOutput: "stable",
            hybridOutput: "stable",
            sharpImageService: "unsupported",
            envGetSecret: "unsupported",
          },
        });
      },
    },
  };
}
