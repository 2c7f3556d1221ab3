/**
 * The only inline scripts of the site's own (`is:inline` in Base.astro). The Content-Security-Policy allows
 * inline scripts by hash only (astro.config.ts): these hashes, and the ones Astro computes for its own island
 * and directive scripts. Change a script here and its hash follows at the next build.
 */
import { createHash } from "node:crypto";
import { HEAD_BOOT_SCRIPT } from "./theme.ts";

export { HEAD_BOOT_SCRIPT };

/** Loads the configured third-party support chat script (its URL in data-src), if it is an http(s) URL. */
export const SUPPORT_LOADER_SCRIPT = String.raw`(function(s){var u=s.getAttribute('data-src');if(/^https?:\/\//.test(u||'')){var e=document.createElement('script');e.async=true;e.src=u;e.setAttribute('data-support-widget','');document.head.appendChild(e)}})(document.currentScript)`;

export function inlineScriptHashes(): `sha256-${string}`[] {
  return [HEAD_BOOT_SCRIPT, SUPPORT_LOADER_SCRIPT].map((script) => `sha256-${createHash("sha256").update(script).digest("base64")}` as const);
}
