import { api, type ApiResponse } from "./api.ts";
import { createResource, type Resource } from "./wallet-resource.ts";
import { decimalToUnits, formatAmount, type Currency } from "./format.ts";

/**
 * The wallet's server data (spec sections 3 and 7) with the spec's caching:
 * wallet info fresh 30 s, refetched every 30 s, on focus and on reconnect;
 * USDC the same; on-ramp transactions fresh 60 s, one retry, no refetch on
 * focus. Shared by every island of the page.
 */
/** GET /api/wallet/info: `balance`/`tokenBalance` in wei for the spec's clients; the site reads the decimal fields. */
export type WalletInfo = ApiResponse<"getWalletInfo">;

export type OnrampTransactionStatus = "initiated" | "pending" | "processing" | "success" | "failed" | (string & {});

export type OnrampTransaction = ApiResponse<"listOnrampTransactions">["transactions"][number];

/** A send from the custodial wallet, as `GET /api/wallet/sends` lists it. */
export type SentTransaction = ApiResponse<"listSends">["sends"][number];

export type TokenInfo = ApiResponse<"listWalletTokens">["tokens"][number];

export const BALANCE_REFRESH_MS = 30_000;

export const walletInfo = createResource(() => api("/api/wallet/info"), {
  freshMs: BALANCE_REFRESH_MS,
  retry: 1,
  fallbackError: "Failed to fetch wallet info",
  refetchIntervalMs: BALANCE_REFRESH_MS,
  refetchOnFocus: true,
  refetchOnReconnect: true,
});

const usdcResources = new Map<number, Resource<{ balance: string }>>();
/** GET /api/wallet/usdc-balance/{userId}: a separate call in the spec, with its own error text. */
export function usdcBalance(userId: number): Resource<{ balance: string }> {
  let resource = usdcResources.get(userId);
  if (!resource) {
    resource = createResource(() => api(`/api/wallet/usdc-balance/${userId}`), {
      freshMs: BALANCE_REFRESH_MS,
      retry: 1,
      fallbackError: "Failed to fetch USDC balance",
      refetchIntervalMs: BALANCE_REFRESH_MS,
      refetchOnFocus: true,
      refetchOnReconnect: true,
    });
    usdcResources.set(userId, resource);
  }
  return resource;
}

export const onrampTransactions = createResource(
  async () => (await api("/api/wallet/onramp-transactions?limit=10", { csrfHeader: true })).transactions,
  { freshMs: 60_000, retry: 1, fallbackError: "Failed to fetch onramp transactions" },
);

export const sentTransactions = createResource(async () => (await api("/api/wallet/sends?limit=10")).sends, {
  freshMs: 15_000,
  retry: 1,
  fallbackError: "Failed to load sent transactions",
});

/** GET /api/wallet/bounty-history (api/services/wallets/bounty-history.ts): rewards received, pool withdrawals, refunds to pools. */
export type BountyHistoryEntry = ApiResponse<"listBountyHistory">["entries"][number];

export const bountyHistory = createResource(async () => (await api("/api/wallet/bounty-history?limit=20")).entries, {
  freshMs: 15_000,
  retry: 1,
  fallbackError: "Failed to load rewards and refunds",
});

/** GET /api/tips (api/services/tips): tips given and received, with those held for someone without a wallet. */
export type TipEntry = ApiResponse<"listMyTips">["given"][number];

export const myTips = createResource(() => api("/api/tips"), {
  freshMs: 15_000,
  retry: 1,
  fallbackError: "Failed to load tips",
});

export const tokenCatalogue = createResource(() => api("/api/wallet/tokens"), {
  freshMs: Number.POSITIVE_INFINITY,
  retry: 1,
  fallbackError: "Failed to load tokens",
});

/** After money moved: every figure again, now. */
export function refreshWallet(userId: number): Promise<unknown> {
  return Promise.all([
    walletInfo.load({ force: true }),
    usdcBalance(userId).load({ force: true }),
    sentTransactions.load({ force: true }),
    bountyHistory.load({ force: true }),
  ]);
}

/** A decimal string from the API ("12.5") in the token's smallest unit; undefined when it is not one. */
export function toUnits(decimal: string | null | undefined, symbol: Currency): bigint | undefined {
  return decimalToUnits(decimal, symbol);
}

/** The one money formatter, for the API's decimal strings. */
export function formatBalance(decimal: string | null | undefined, symbol: Currency): string {
  const units = toUnits(decimal, symbol);
  return units === undefined ? "—" : formatAmount(units, symbol);
}
