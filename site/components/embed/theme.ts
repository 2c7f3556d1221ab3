import globalCss from "../../styles/global.css?raw";

/**
 * Themes of the embeddable board. The host page picks one with `?theme=light`
 * or `?theme=dark`; otherwise the board follows the visitor's system setting.
 * The site's own theme (localStorage + a head script) does not apply: an
 * iframe on someone else's page has its own partitioned storage, and the
 * board runs no script at all.
 */
export type EmbedTheme = "light" | "dark" | "system";

export function embedTheme(value: string | null): EmbedTheme {
  return value === "light" || value === "dark" ? value : "system";
}

/**
 * The site's dark palette, applied by a media query instead of the `.dark`
 * class, so 'system' works without JavaScript. It is taken from
 * global.css's `.dark` block when the site is built, so there is one palette
 * to maintain. `:root:not(.light)` outranks `:root`, and an explicit
 * `?theme=light` (class "light") opts out.
 */
export const SYSTEM_DARK_CSS = systemDarkCss(globalCss);

export function systemDarkCss(css: string): string {
  const block = /(?:^|\n)\.dark\s*\{([^}]*)\}/.exec(css)?.[1];
  if (!block || !block.includes("--background")) {
    throw new Error("site/styles/global.css has no top-level .dark { ... } block with the dark palette");
  }
  return `@media (prefers-color-scheme: dark){:root:not(.light){${block.replace(/\s+/g, " ").trim()}}}`;
}
