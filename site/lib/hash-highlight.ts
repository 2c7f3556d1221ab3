/** Scrolls to the element named by the URL hash and highlights it for 2 s (spec: FAQ). */
export const HASH_HIGHLIGHT_MS = 2000;

export function highlightHashTarget(hash = location.hash): void {
  const id = decodeURIComponent(hash.replace(/^#/, ""));
  if (!id) return;
  const target = document.getElementById(id);
  if (!target) return;
  target.scrollIntoView({ behavior: "smooth", block: "start" });
  target.classList.remove("faq-highlight");
  void target.offsetWidth; // restart the animation when the same hash is chosen again
  target.classList.add("faq-highlight");
  target.setAttribute("data-highlighted", "");
  setTimeout(() => {
    target.classList.remove("faq-highlight");
    target.removeAttribute("data-highlighted");
  }, HASH_HIGHLIGHT_MS);
}

/**
 * Highlights on load, on hash changes, and when a link to the hash already
 * in the URL is followed again (which fires no hashchange).
 */
export function setupHashHighlight(): void {
  highlightHashTarget();
  window.addEventListener("hashchange", () => highlightHashTarget());
  document.addEventListener("click", (event) => {
    const link = (event.target as HTMLElement).closest<HTMLAnchorElement>("a[href*='#']");
    if (!link || link.pathname !== location.pathname || !link.hash || link.hash !== location.hash) return;
    highlightHashTarget(link.hash);
  });
}
