/**
 * Asks `client:session="name"` islands to hydrate now, even for an anonymous
 * visitor (e.g. the Toaster when the first toast appears). The request is
 * also left on <html>, so an island whose directive runs later still sees it.
 */
export function requestHydration(name: string): void {
  if (typeof document === "undefined") return;
  document.documentElement.setAttribute(`data-need-${name}`, "");
  window.dispatchEvent(new Event(`ip:need:${name}`));
}
