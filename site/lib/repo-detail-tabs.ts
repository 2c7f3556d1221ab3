/**
 * Anonymous visitors get the repository detail page as server-rendered HTML
 * without React (docs/design.md, "No React for anonymous visitors"). This
 * small script makes that HTML's tabs work (WAI-ARIA tabs: click, arrow
 * keys, Home/End, `#rewards` in the URL) and turns its `data-rd-tooltip`
 * hints into the shared vanilla tooltips. For signed-in visitors the React
 * island owns the same markup, so this does nothing when it will hydrate.
 */
import { setupTooltips } from "./tooltip.ts";

export function ownTabs(group: Element): { tabs: HTMLElement[]; panels: HTMLElement[] } {
  const mine = (el: Element) => el.closest("[data-tabs]") === group;
  return {
    tabs: [...group.querySelectorAll<HTMLElement>('[role="tab"]')].filter(mine),
    panels: [...group.querySelectorAll<HTMLElement>('[role="tabpanel"]')].filter(mine),
  };
}

export function selectTab(group: Element, value: string, focus = false): boolean {
  const { tabs, panels } = ownTabs(group);
  const target = tabs.find((t) => t.dataset.tab === value);
  if (!target) return false;
  for (const tab of tabs) {
    const selected = tab === target;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    tab.dataset.state = selected ? "active" : "inactive";
  }
  for (const panel of panels) panel.hidden = panel.dataset.panel !== value;
  if (focus) target.focus();
  return true;
}

export function setupStaticTabs(root: ParentNode = document): void {
  root.querySelectorAll("[data-tabs]").forEach((group) => {
    const { tabs } = ownTabs(group);
    tabs.forEach((tab, index) => {
      tab.addEventListener("click", () => {
        selectTab(group, tab.dataset.tab!);
        if (group.hasAttribute("data-tabs-hash")) history.replaceState(history.state, "", `#${tab.dataset.tab}`);
      });
      tab.addEventListener("keydown", (event) => {
        const keys: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 };
        if (!(event.key in keys)) return;
        event.preventDefault();
        const next = tabs[(keys[event.key]! + tabs.length) % tabs.length]!;
        selectTab(group, next.dataset.tab!, true);
      });
    });
    if (group.hasAttribute("data-tabs-hash") && location.hash.length > 1) selectTab(group, location.hash.slice(1));
  });
}

export function setupStaticRepoDetail(): void {
  // The island hydrates for signed-in visitors (client:session) and runs its own tabs.
  if (document.documentElement.getAttribute("data-auth") === "yes") return;
  setupStaticTabs();
  document.querySelectorAll<HTMLElement>("[data-rd-tooltip]").forEach((el) => {
    el.dataset.tooltip = el.dataset.rdTooltip;
  });
  setupTooltips();
}
