/**
 * Tooltips for `[data-tooltip]` elements: shown after 700 ms of hover or on
 * keyboard focus, and at once when another tooltip closed less than 300 ms
 * ago (the spec's open and skip delays).
 */
export const TOOLTIP_OPEN_DELAY_MS = 700;
export const TOOLTIP_SKIP_DELAY_MS = 300;

let lastClosedAt = 0;

export function setupTooltips(root: ParentNode = document): void {
  root.querySelectorAll<HTMLElement>("[data-tooltip]:not([data-tooltip-ready])").forEach((el) => {
    el.dataset.tooltipReady = "";
    // The tooltip exists only while shown (no hidden copies left in the page), described by while it does.
    const tip = document.createElement("div");
    tip.role = "tooltip";
    tip.id = `tip-${Math.random().toString(36).slice(2)}`;
    tip.className =
      "pointer-events-none fixed z-[60] max-w-xs break-words rounded-md bg-foreground px-2.5 py-1.5 text-xs font-medium text-background shadow-md";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const show = () => {
      if (!el.isConnected) return;
      tip.textContent = el.dataset.tooltip ?? "";
      document.body.append(tip);
      el.setAttribute("aria-describedby", tip.id);
      const box = el.getBoundingClientRect();
      const width = tip.offsetWidth;
      tip.style.left = `${Math.max(8, Math.min(window.innerWidth - width - 8, box.left + box.width / 2 - width / 2))}px`;
      tip.style.top = `${box.bottom + 6}px`;
    };
    const schedule = () => {
      clearTimeout(timer);
      const skip = Date.now() - lastClosedAt < TOOLTIP_SKIP_DELAY_MS;
      timer = setTimeout(show, skip ? 0 : TOOLTIP_OPEN_DELAY_MS);
    };
    const hide = () => {
      clearTimeout(timer);
      if (tip.isConnected) lastClosedAt = Date.now();
      tip.remove();
      el.removeAttribute("aria-describedby");
    };
    el.addEventListener("pointerenter", schedule);
    el.addEventListener("pointerleave", hide);
    el.addEventListener("focus", show);
    el.addEventListener("blur", hide);
    el.addEventListener("keydown", (e) => e.key === "Escape" && hide());
  });
}
