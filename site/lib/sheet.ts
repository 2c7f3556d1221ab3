/**
 * Side sheets on the native <dialog> element: modal, so focus stays inside
 * and Escape closes it. `[data-sheet-open="id"]` opens the dialog with that
 * id; `[data-sheet-close]`, a click on the backdrop or on a link inside closes
 * it. The mobile sheet also closes when the window grows past 768 px.
 */
export const MOBILE_BREAKPOINT_PX = 768;

export function setupSheets(root: ParentNode = document): void {
  root.querySelectorAll<HTMLButtonElement>("[data-sheet-open]").forEach((button) => {
    const dialog = document.getElementById(button.dataset.sheetOpen ?? "") as HTMLDialogElement | null;
    if (!dialog || dialog.dataset.sheetReady !== undefined) return;
    dialog.dataset.sheetReady = "";
    button.addEventListener("click", () => {
      dialog.showModal();
      button.setAttribute("aria-expanded", "true");
    });
    dialog.addEventListener("close", () => button.setAttribute("aria-expanded", "false"));
    dialog.addEventListener("click", (event) => {
      const target = event.target as HTMLElement;
      if (target === dialog || target.closest("[data-sheet-close]") || target.closest("a[href]")) dialog.close();
    });
    matchMedia(`(min-width: ${MOBILE_BREAKPOINT_PX}px)`).addEventListener("change", (e) => e.matches && dialog.close());
  });
}
