/**
 * The funded-only filter of /repos: on by default, switched in place without
 * a reload (the links still work without JavaScript), and kept in the URL.
 */
export function setupFundedToggle(root: ParentNode = document): void {
  const list = root.querySelector<HTMLElement>("[data-repo-list]");
  if (!list) return;
  const toggle = list.querySelector<HTMLAnchorElement>("[data-funded-toggle]");
  const funded = list.querySelectorAll('[data-cards] > [data-funded="true"]').length;
  list.dataset.fundedCount = String(funded);

  const apply = (show: "funded" | "all") => {
    list.dataset.show = show;
    toggle?.setAttribute("aria-checked", String(show === "funded"));
    toggle?.setAttribute("href", show === "funded" ? "/repos?show=all" : "/repos");
    const url = new URL(location.href);
    if (show === "all") url.searchParams.set("show", "all");
    else url.searchParams.delete("show");
    history.replaceState(history.state, "", url);
  };
  toggle?.addEventListener("click", (event) => {
    event.preventDefault();
    apply(list.dataset.show === "funded" ? "all" : "funded");
  });
  list.querySelector("[data-show-all]")?.addEventListener("click", (event) => {
    event.preventDefault();
    apply("all");
  });
}
