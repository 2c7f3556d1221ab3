/**
 * Accessible menu buttons for the shell (WAI-ARIA menu button pattern),
 * without a framework so anonymous pages stay light. Markup:
 *   <div data-menu>
 *     <button data-menu-trigger aria-haspopup="menu" aria-expanded="false">…</button>
 *     <div data-menu-content role="menu" hidden> <a role="menuitem">…</a> … </div>
 *   </div>
 */
export function setupMenus(root: ParentNode = document): void {
  root.querySelectorAll<HTMLElement>("[data-menu]:not([data-menu-ready])").forEach(setupMenu);
}

function setupMenu(menu: HTMLElement): void {
  menu.dataset.menuReady = "";
  const trigger = menu.querySelector<HTMLButtonElement>("[data-menu-trigger]");
  const content = menu.querySelector<HTMLElement>("[data-menu-content]");
  if (!trigger || !content) return;
  // Items hidden by role (data-role-only) are skipped by the arrow keys like disabled ones.
  const items = () =>
    Array.from(content.querySelectorAll<HTMLElement>('[role^="menuitem"]:not([disabled])')).filter((item) => item.getClientRects().length > 0);

  const open = (focus: "first" | "last" | "none" = "none") => {
    content.hidden = false;
    trigger.setAttribute("aria-expanded", "true");
    const list = items();
    if (focus === "first") list[0]?.focus();
    if (focus === "last") list[list.length - 1]?.focus();
    document.addEventListener("pointerdown", onOutside, true);
  };
  const close = (returnFocus = false) => {
    if (content.hidden) return;
    content.hidden = true;
    trigger.setAttribute("aria-expanded", "false");
    document.removeEventListener("pointerdown", onOutside, true);
    if (returnFocus) trigger.focus();
  };
  const onOutside = (event: Event) => {
    if (!menu.contains(event.target as Node)) close();
  };

  trigger.addEventListener("click", () => (content.hidden ? open("none") : close()));
  trigger.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      open("first");
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      open("last");
    }
  });
  content.addEventListener("keydown", (event) => {
    const list = items();
    const index = list.indexOf(document.activeElement as HTMLElement);
    const move = (to: number) => list[(to + list.length) % list.length]?.focus();
    switch (event.key) {
      case "ArrowDown": event.preventDefault(); move(index + 1); break;
      case "ArrowUp": event.preventDefault(); move(index - 1); break;
      case "Home": event.preventDefault(); move(0); break;
      case "End": event.preventDefault(); move(list.length - 1); break;
      case "Escape": event.preventDefault(); close(true); break;
      case "Tab": close(); break;
    }
  });
  content.addEventListener("click", (event) => {
    if ((event.target as HTMLElement).closest('[role^="menuitem"]')) close(true);
  });
}
