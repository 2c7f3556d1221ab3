import { useEffect } from "react";

/**
 * Stands in for `react-style-singleton` (aliased in astro.config.ts), which the dialogs' scroll lock
 * (react-remove-scroll, under Radix Dialog) uses to put `body { overflow: hidden }` and the scrollbar gap in a
 * `<style>` element. The site's Content-Security-Policy allows no inline `<style>` (style-src is 'self' and
 * hashes; the rules change with the scrollbar's width, so no hash can cover them), so Chromium refused it on
 * every dialog open, logged a violation and left the page scrolling behind the dialog (issue 27). A
 * constructed stylesheet adopted by the document is not an inline style: the policy does not apply to it, and
 * nothing is loosened. Same API and behaviour as the package: added when the first user mounts, removed when
 * the last one unmounts.
 */
export function stylesheetSingleton() {
  let counter = 0;
  let sheet: CSSStyleSheet | null = null;
  return {
    add(style: string) {
      if (counter === 0 && typeof document !== "undefined") {
        sheet = new CSSStyleSheet();
        sheet.replaceSync(style);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
      }
      counter++;
    },
    remove() {
      counter--;
      if (!counter && sheet) {
        const removed = sheet;
        document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== removed);
        sheet = null;
      }
    },
  };
}

export function styleHookSingleton() {
  const sheet = stylesheetSingleton();
  return (styles: string, isDynamic?: boolean) => {
    useEffect(() => {
      sheet.add(styles);
      return () => sheet.remove();
      // eslint-disable-next-line react-hooks/exhaustive-deps -- as the package: re-applied only when dynamic
    }, [styles && isDynamic]);
  };
}

export function styleSingleton() {
  const useStyle = styleHookSingleton();
  return function Sheet({ styles, dynamic }: { styles: string; dynamic?: boolean }) {
    useStyle(styles, dynamic);
    return null;
  };
}
