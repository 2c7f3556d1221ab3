import { useEffect, useState } from "react";
import { Tabs } from "../ui/tabs.tsx";
import { watchSession } from "../../stores/session.ts";
import { onrampTransactions, refreshWallet, sentTransactions, usdcBalance, walletInfo } from "../../lib/wallet-data.ts";
import { watchUntilSettled } from "../../lib/wallet-resource.ts";
import { handleOnrampReturn, type ReturnPage } from "../../lib/wallet-onramp.ts";
import { cardClass } from "../../lib/ui.ts";
import { XdcWalletPanel } from "./XdcWalletPanel.tsx";
import { TokensPanel } from "./TokensPanel.tsx";
import { TransactionsPanel } from "./TransactionsPanel.tsx";

export interface WalletAppProps {
  /** The user's wallet (xdc…), or null: 'No wallet is connected...'. */
  address: string | null;
  userId: number;
  /** Where the on-ramp sends the user back. */
  returnTo?: ReturnPage;
  /** The editor's page: the XDC Wallet panel alone. */
  compact?: boolean;
}

const tabTrigger =
  "inline-flex flex-1 items-center justify-center gap-2 whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-medium text-muted-foreground transition-colors " +
  "hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring data-[state=active]:bg-card data-[state=active]:text-foreground data-[state=active]:shadow-sm sm:flex-none";

/**
 * /wallet (spec section 2): tabs XDC Wallet, Tokens and Transactions over
 * the shared wallet data. Balances refresh every 30 s, on focus and when the
 * network comes back; a return from the on-ramp shows its notice, refreshes
 * and clears the query string.
 */
/** A reward's "Cash out" link (the payout mail, the bot's comment, a history row): `?cashout=XDC&amount=50`, read once. */
function cashoutRequest(): { currency: "XDC" | "USDC"; amount: string } | undefined {
  const params = new URLSearchParams(window.location.search);
  const currency = params.get("cashout");
  if (currency !== "XDC" && currency !== "USDC") return undefined;
  const amount = params.get("amount") ?? "";
  params.delete("cashout");
  params.delete("amount");
  const rest = params.toString();
  window.history.replaceState(null, "", `${window.location.pathname}${rest ? `?${rest}` : ""}${window.location.hash}`);
  return { currency, amount: /^\d+(\.\d+)?$/.test(amount) ? amount : "" };
}

export default function WalletApp({ address, userId, returnTo = "/wallet", compact = false }: WalletAppProps) {
  const [section, setSection] = useState<"wallet" | "tokens" | "transactions">("wallet");
  // Read after hydration (the server's render has no query string to go by).
  const [cashout, setCashout] = useState<ReturnType<typeof cashoutRequest>>();
  useEffect(() => setCashout(cashoutRequest()), []);
  useEffect(() => watchSession(), []);
  useEffect(() => {
    if (!address) return;
    const stops = [walletInfo.watch(), usdcBalance(userId).watch()];
    handleOnrampReturn(() => Promise.all([refreshWallet(userId), onrampTransactions.load({ force: true })]));
    // Rows still under way are read again until they settle, and the balances with them (issue 16).
    const balances = () => {
      void walletInfo.load({ force: true });
      void usdcBalance(userId).load({ force: true });
    };
    stops.push(
      watchUntilSettled(sentTransactions, (tx) => tx.status === "pending", balances),
      watchUntilSettled(onrampTransactions, (tx) => tx.status === "pending" || tx.status === "processing", balances),
    );
    return () => stops.forEach((stop) => stop());
  }, [address, userId]);

  if (!address) {
    return (
      <section className={`${cardClass} p-6`} aria-label="XDC Wallet">
        <p className="text-sm text-muted-foreground" role="status">
          No wallet is connected. Please check your profile settings.
        </p>
      </section>
    );
  }

  const onSent = () => void refreshWallet(userId);
  if (compact) {
    return (
      <section className={`${cardClass} p-5`} aria-label="XDC Wallet">
        <XdcWalletPanel address={address} userId={userId} returnTo={returnTo} onSent={onSent} compact />
      </section>
    );
  }

  // The site's own tabs (Radix Tabs cost 11 KB here; issue 16), a panel rendered only while selected.
  return (
    <Tabs
      id="wallet"
      label="Wallet sections"
      value={section}
      onChange={setSection}
      selectedOnly
      className="grid gap-4"
      listClassName="flex w-full gap-1 overflow-x-auto rounded-lg bg-muted p-1 sm:w-fit"
      tabClassName={tabTrigger}
      panelClassName={`${cardClass} p-4 focus-visible:outline-2 focus-visible:outline-ring sm:p-6`}
      items={[
        { value: "wallet", label: "XDC Wallet" },
        { value: "tokens", label: "Tokens" },
        { value: "transactions", label: "Transactions" },
      ]}
      panel={(value) =>
        value === "wallet" ? (
          <XdcWalletPanel address={address} userId={userId} returnTo={returnTo} onSent={onSent} cashout={cashout} />
        ) : value === "tokens" ? (
          <TokensPanel userId={userId} />
        ) : (
          <TransactionsPanel />
        )
      }
    />
  );
}
