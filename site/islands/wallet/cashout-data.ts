import { api, type ApiResponse } from "../../lib/api.ts";
import { createResource } from "../../lib/wallet-resource.ts";

/**
 * The wallet's cash-out data (issue 40), loaded only by the cash-out dialog and the Transactions tab's sections
 * (not in lib/wallet-data.ts, which every page's shell carries).
 */
export type CashoutEntry = ApiResponse<"listCashouts">["cashouts"][number];
export type CashoutSettings = ApiResponse<"getCashoutSettings">;
export type StatementItem = ApiResponse<"getStatement">["items"][number];

export const cashouts = createResource(async () => (await api("/api/wallet/cashouts?limit=10")).cashouts, { freshMs: 10_000, retry: 1, fallbackError: "Failed to load cash-outs" });
export const cashoutSettings = createResource(() => api("/api/wallet/cashout/settings"), { freshMs: 30_000, retry: 1, fallbackError: "Failed to load cash-out settings" });

/** The KYC states the provider reports, and what the person does about each. */
export const KYC_HELP = {
  required: { title: "Identity check required", message: "The provider must verify your identity before it pays rupees to you. Verify with the provider, then get a new quote." },
  pending: { title: "Identity check in review", message: "The provider is reviewing your identity check. You can cash out once it is approved; your crypto stays in your wallet meanwhile." },
  rejected: { title: "Identity check declined", message: "The provider declined your identity check, so it cannot pay rupees to you. Your crypto stays in your wallet; contact the provider's support." },
} as const;

/** What each state of a cash-out means, in the words the Transactions tab shows (docs/wallet.md). */
export const CASHOUT_STATE_TEXT: Record<CashoutEntry["status"], { label: string; tone: "success" | "failed" | "pending" }> = {
  initiated: { label: "Sending to provider", tone: "pending" },
  crypto_received: { label: "Crypto received", tone: "pending" },
  fiat_sent: { label: "INR sent", tone: "pending" },
  completed: { label: "Completed", tone: "success" },
  failed: { label: "Failed: crypto being returned", tone: "failed" },
  refunded: { label: "Failed: crypto returned", tone: "failed" },
  cancelled: { label: "Cancelled: nothing sent", tone: "failed" },
};

export const isOpenCashout = (entry: CashoutEntry) => entry.status === "initiated" || entry.status === "crypto_received" || entry.status === "fiat_sent" || entry.status === "failed";
