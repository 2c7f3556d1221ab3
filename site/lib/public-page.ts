
/** The progress bar reaches 100% after 500 ms; the skeleton ends 300 ms after the data arrived (spec sections 2 and 9). */
export const PROGRESS_MS = 500;
export const SKELETON_TAIL_MS = 300;
/** Refresh as often as the page's data may be cached (spec: public page repository details 60 s). */
export const REFRESH_EVERY_MS = 60_000;

export function setupPublicPage(root: Document = document): void {
  const page = root.querySelector<HTMLElement>("[data-public-page]");
  if (!page || page.dataset.state !== "managed") return;
  setupTabs(page);
  setupRefresh(page);
}

function setupTabs(page: HTMLElement): void {
  const list = page.querySelector<HTMLElement>("[data-tablist]");
  if (!list) return;
  const tabs = Array.from(list.querySelectorAll<HTMLButtonElement>('[role="tab"]'));
  const select = (tab: HTMLButtonElement, focus = false) => {
    for (const t of tabs) {
      const selected = t === tab;
      t.setAttribute("aria-selected", String(selected));
      t.tabIndex = selected ? 0 : -1;
      const panel = page.querySelector<HTMLElement>(`#${t.getAttribute("aria-controls")}`);
      if (panel) panel.hidden = !selected;
    }
    if (focus) tab.focus();
  };
  // Without JavaScript both panels show one after the other; with it they become tabs.
  list.classList.remove("hidden");
  list.classList.add("flex");
  select(tabs[0]!);
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (event) => {
      const next = event.key === "ArrowRight" ? i + 1 : event.key === "ArrowLeft" ? i - 1 : event.key === "Home" ? 0 : event.key === "End" ? tabs.length - 1 : -1;
      if (next === -1) return;
      event.preventDefault();
      select(tabs[(next + tabs.length) % tabs.length]!, true);
    });
  });
}

function setupRefresh(page: HTMLElement): void {
  const button = page.querySelector<HTMLButtonElement>("[data-refresh]");
  const body = page.querySelector<HTMLElement>("[data-bounty-body]");
  const skeleton = page.querySelector<HTMLElement>("[data-skeleton]");
  const progress = document.querySelector<HTMLElement>("[data-progress]");
  const status = document.querySelector<HTMLElement>("[data-loading-status]");
  if (!button || !body || !skeleton) return;
  button.hidden = false;
  let busy = false;

  const refresh = async () => {
    if (busy) return;
    busy = true;
    button.disabled = true;
    body.hidden = true;
    skeleton.hidden = false;
    if (status) status.textContent = "Loading Repository Details. Please wait while we fetch the latest information...";
    if (progress) {
      progress.style.transition = "none";
      progress.style.width = "0%";
      void progress.offsetWidth;
      progress.style.transition = `width ${PROGRESS_MS}ms ease-out`;
      progress.style.width = "100%";
    }
    let fresh: Document | undefined;
    try {
      const response = await fetch(location.pathname, { headers: { Accept: "text/html" } });
      if (response.ok) fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    } catch {
      // keep what is shown; the footer time says how old it is
    }
    await new Promise((resolve) => setTimeout(resolve, SKELETON_TAIL_MS));
    if (fresh) {
      for (const selector of ["[data-bounty-body]", "[data-funded-badge]", "[data-updated-at]", "[data-tvl]", "[data-info-panel] dl"]) {
        const current = page.querySelectorAll(selector);
        const replacement = fresh.querySelectorAll(selector);
        current.forEach((el, i) => {
          if (replacement[i]) el.innerHTML = replacement[i]!.innerHTML;
        });
      }
      const empty = page.querySelector("[data-empty-bounties]");
      const freshEmpty = fresh.querySelector("[data-empty-bounties]");
      if (empty && !freshEmpty) empty.remove();
    }
    skeleton.hidden = true;
    body.hidden = false;
    if (status) status.textContent = "";
    if (progress) setTimeout(() => (progress.style.width = "0%"), 200);
    button.disabled = false;
    busy = false;
  };

  button.addEventListener("click", () => void refresh());
  setInterval(() => {
    if (document.visibilityState === "visible") void refresh();
  }, REFRESH_EVERY_MS);
}
