import { fileURLToPath } from "node:url";
import type { AstroIntegration } from "astro";

/** Registers the site's own client directives (see session.ts). */
export default function issuepoolDirectives(): AstroIntegration {
  return {
    name: "issuepool-directives",
    hooks: {
      "astro:config:setup": ({ addClientDirective }) => {
        addClientDirective({ name: "session", entrypoint: fileURLToPath(new URL("./session.ts", import.meta.url)) });
      },
    },
  };
}
