import { formatAmount } from "./format.ts";

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

/**
 * The pool badge of a /repos card (spec section 2: the XDC amount, or ROXN if XDC is zero, else '0.0 XDC'), with
 * USDC where it is the only currency funded (issue 27: a USDC-only pool read '0.0 XDC'). Each currency in its
 * own decimals on every card: XDC 4, ROXN 2, USDC 2.
 */
export function poolBadge(pools: { XDC: bigint; ROXN: bigint; USDC: bigint }): string {
  if (pools.XDC > 0n) return `${formatAmount(pools.XDC, "XDC", 4)} XDC`;
  if (pools.ROXN > 0n) return `${formatAmount(pools.ROXN, "ROXN", 2)} ROXN`;
  if (pools.USDC > 0n) return `${formatAmount(pools.USDC, "USDC", 2)} USDC`;
  return "0.0 XDC";
}
