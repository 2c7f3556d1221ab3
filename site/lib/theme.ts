/**
 * Theme: 'light', 'dark' or 'system' (the default), kept in localStorage under
 * `ui-theme` and applied as a `light`/`dark` class on <html>. The same logic
 * runs inline in <head> (HEAD_BOOT_SCRIPT) so the first paint already has
 * the right colours; that script also reads the signed-in hint cookie into
 * <html data-auth data-role> so the header shows the right state at once, and
 * marks <html data-guide-seen> when the Rewards Guide was dismissed, so the
 * guide is in the first paint or not at all (issue 38: revealed by a module
 * script, it was the page's largest paint, late on a slow phone).
 */
export type Theme = "light" | "dark" | "system";
export const THEME_STORAGE_KEY = "ui-theme";

export const HEAD_BOOT_SCRIPT = `(function(){try{var r=document.documentElement;var t=localStorage.getItem('${THEME_STORAGE_KEY}');if(t!=='light'&&t!=='dark')t='system';var d=t==='dark'||(t==='system'&&matchMedia('(prefers-color-scheme: dark)').matches);r.classList.remove('light','dark');r.classList.add(d?'dark':'light');var m=/(?:^|;\\s*)ip_signed_in=([a-z]+)/.exec(document.cookie);if(m){r.setAttribute('data-auth','yes');r.setAttribute('data-role',m[1])}if(localStorage.getItem('ip-onboarding:rewards-guide')==='seen')r.setAttribute('data-guide-seen','')}catch(e){}})();`;

export function readTheme(): Theme {
  try {
    const value = localStorage.getItem(THEME_STORAGE_KEY);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system";
  }
}

export function applyTheme(theme: Theme): void {
  const dark = theme === "dark" || (theme === "system" && matchMedia("(prefers-color-scheme: dark)").matches);
  const root = document.documentElement;
  root.classList.remove("light", "dark");
  root.classList.add(dark ? "dark" : "light");
}

export function setTheme(theme: Theme): void {
  try {
    localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // storage may be unavailable (private mode); the choice still applies to this page
  }
  applyTheme(theme);
  document.dispatchEvent(new CustomEvent("ip:theme", { detail: theme }));
}

/** Follows the system setting while the choice is 'system'. */
export function watchSystemTheme(): void {
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
    if (readTheme() === "system") applyTheme("system");
  });
}
