/**
 * The "Save this search" button (site/components/SaveSearch.astro): POST /api/alerts/searches with the page's
 * query and the anti-forgery token. Signed out (401): to the sign-in page and back here. Kept free of the site's
 * API client and React, so a public page pays a few hundred bytes for it.
 */
export function setupSaveSearch(root: ParentNode = document): void {
  for (const container of Array.from(root.querySelectorAll<HTMLElement>("[data-save-search-root]"))) {
    const button = container.querySelector<HTMLButtonElement>("[data-save-search]");
    const status = container.querySelector<HTMLElement>("[data-save-search-status]");
    if (!button || !status) continue;
    button.addEventListener("click", async () => {
      button.disabled = true;
      status.textContent = "";
      try {
        const { csrfToken } = (await (await fetch("/api/auth/csrf-token", { credentials: "same-origin" })).json()) as { csrfToken: string };
        const query = new URLSearchParams(location.search);
        query.delete("cursor");
        const res = await fetch("/api/alerts/searches", {
          method: "POST",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken },
          body: JSON.stringify({ query: query.toString() }),
        });
        if (res.status === 401) {
          location.assign(`/auth?returnTo=${encodeURIComponent(location.pathname + location.search)}`);
          return;
        }
        if (res.status === 201) {
          button.textContent = "Saved";
          status.innerHTML = 'New matches come in a daily e-mail. <a class="text-primary hover:underline" href="/settings/alerts">Manage alerts</a>';
          return;
        }
        const body = (await res.json().catch(() => ({}))) as { message?: string };
        status.textContent = body.message ?? "The search could not be saved.";
        button.disabled = false;
      } catch {
        status.textContent = "The search could not be saved. Check your connection and try again.";
        button.disabled = false;
      }
    });
  }
}
