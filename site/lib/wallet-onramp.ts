import { api, errorMessage, type ApiResponse } from "./api.ts";
import { toast, type ToastInput } from "../stores/toast.ts";

/**
 * Buying and selling XDC for INR (spec sections 2, 4 and 8): the provider's
 * page opens in a new tab; coming back, `status` and `orderId` in the query
 * become a notice, then the query string is removed.
 */
export type ReturnPage = "/wallet" | "/vscode/wallet";

const NOTICE_MS = 10_000;

/**
 * Opens the tab at once, while the click still counts as the user's (a tab
 * opened after the request returns would be blocked), then points it at the
 * provider. If the browser refuses a tab, this one goes there instead.
 */
export async function openOnramp(kind: "buy" | "sell", returnTo: ReturnPage): Promise<boolean> {
  const tab = window.open("about:blank", "_blank");
  try {
    const { url } = await api<ApiResponse<"startXdcPurchase">>(`/api/wallet/${kind}-xdc-url?returnTo=${encodeURIComponent(returnTo)}`);
    if (typeof url !== "string" || !/^https?:\/\//.test(url)) throw new Error("no url");
    if (tab) {
      tab.opener = null;
      tab.location.href = url;
    } else {
      window.location.assign(url);
    }
    return true;
  } catch (err) {
    tab?.close();
    toast(
      kind === "buy"
        ? { type: "error", title: "Purchase Error", message: errorMessage(err, "Failed to initiate XDC purchase"), duration: NOTICE_MS }
        : { type: "error", title: "Withdrawal Error", message: errorMessage(err, "Failed to initiate XDC withdrawal"), duration: NOTICE_MS },
    );
    return false;
  }
}

/**
 * The notice for a return from the provider (spec section 4), or null when
 * the page was not opened by one. The spec's texts are a purchase's; a sale
 * comes back with `onramp=sell` (api/services/onramp/orders.ts) and says so
 * (issue 16: a sale read "Purchase Successful").
 */
export function returnNotice(search: string): ToastInput | null {
  const params = new URLSearchParams(search);
  const status = params.get("status");
  if (!status) return null;
  const orderId = params.get("orderId");
  const order = orderId ? `Order ${orderId}` : "Your order";
  if (params.get("onramp") === "sell") {
    if (status === "success") return { type: "success", title: "Sale Successful", message: `${order} is complete: the XDC went to the provider, who pays out the INR. Your balance has been refreshed.` };
    if (status === "failed") return { type: "error", title: "Sale Failed", message: `${order} did not go through.` };
    return { type: "info", title: "Sale Update", message: `${order} is ${status}. It will update here when the provider confirms it.` };
  }
  if (status === "success") return { type: "success", title: "Purchase Successful", message: `${order} is complete. Your balance has been refreshed.` };
  if (status === "failed") return { type: "error", title: "Purchase Failed", message: `${order} did not go through.` };
  return { type: "info", title: "Purchase Update", message: `${order} is ${status}. It will update here when the provider confirms it.` };
}

/** Shows the notice, refreshes the balances, then drops `status` and `orderId` from the address bar. */
export function handleOnrampReturn(refresh: () => Promise<unknown>): boolean {
  const notice = returnNotice(window.location.search);
  if (!notice) return false;
  toast(notice);
  void refresh();
  history.replaceState(history.state, "", window.location.pathname + window.location.hash);
  return true;
}
