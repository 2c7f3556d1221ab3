import { useEffect } from "react";
import { useResourceState } from "../ui/use-store.ts";
import { badgeClass } from "../../lib/ui.ts";
import { formatBalance, onrampTransactions, sentTransactions, type OnrampTransaction, type SentTransaction } from "../../lib/wallet-data.ts";
import { Button } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";

/** Spec section 4: success green, failed red, anything else amber; shown capitalised. */
export function statusTone(status: string): string {
  if (status === "success" || status === "confirmed") return "border-success/40 bg-success/10 text-success";
  if (status === "failed") return "border-destructive/40 bg-destructive/10 text-destructive";
  return "border-warning/40 bg-warning/10 text-warning";
}
const capitalise = (text: string) => (text ? text[0]!.toUpperCase() + text.slice(1) : text);
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
const shortHash = (hash: string) => `${hash.slice(0, 10)}…${hash.slice(-6)}`;

function HashLink({ hash, url }: { hash: string | null; url: string | null }) {
  if (!hash) return null;
  return url ? (
    <a href={url} target="_blank" rel="noopener noreferrer" className="inline-flex items-center gap-1 font-mono text-xs text-primary hover:underline">
      {shortHash(hash)} <Icon name="external" className="h-3 w-3" />
    </a>
  ) : (
    <span className="font-mono text-xs text-muted-foreground" title={hash}>
      {shortHash(hash)}
    </span>
  );
}

function OnrampRow({ tx }: { tx: OnrampTransaction }) {
  const sell = tx.metadata?.transactionType === "offramp" || tx.type === "offramp";
  return (
    <li className="flex flex-wrap items-start gap-x-4 gap-y-2 px-4 py-3" data-onramp-transaction={tx.orderId ?? tx.id}>
      <span className={`mt-0.5 flex h-9 w-9 shrink-0 items-center justify-center rounded-full ${sell ? "bg-secondary text-secondary-foreground" : "bg-primary/10 text-primary"}`}>
        <Icon name={sell ? "arrowUpRight" : "arrowDownLeft"} className="h-4 w-4" />
      </span>
      <div className="min-w-0 flex-1">
        <p className="flex flex-wrap items-center gap-2 font-semibold">
          <span data-transaction-type>{sell ? "Sell" : "Buy"}</span>
          <span className={`${badgeClass} border-border bg-muted font-medium text-foreground`}>{sell ? "Withdraw" : "Purchase"}</span>
        </p>
        <p className="text-xs text-muted-foreground">
          {when(tx.createdAt)}
          {tx.orderId && <> · Order {tx.orderId}</>}
        </p>
        <HashLink hash={tx.transactionHash} url={tx.explorerUrl} />
      </div>
      <div className="text-right">
        <p className="font-semibold tabular-nums">{tx.amount ? `${formatBalance(tx.amount, "XDC")} XDC` : "—"}</p>
        {tx.fiatAmount && <p className="text-xs tabular-nums text-muted-foreground">₹{Number(tx.fiatAmount).toLocaleString("en-IN", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}</p>}
        <span className={`${badgeClass} mt-1 ${statusTone(tx.status)}`} data-status={tx.status}>
          {capitalise(tx.status)}
        </span>
      </div>
    </li>
  );
}

function SendRow({ tx }: { tx: SentTransaction }) {
  return (
    <li className="flex flex-wrap items-start gap-x-4 gap-y-2 px-4 py-3" data-sent-transaction={tx.id}>
      <span className="mt-0.5 flex h-9 w-9 shrink-0 items-center justify-center rounded-full bg-muted">
        <Icon name="send" className="h-4 w-4" />
      </span>
      <div className="min-w-0 flex-1">
        <p className="font-semibold">Sent to <span className="break-all font-mono text-xs font-normal">{tx.to}</span></p>
        <p className="text-xs text-muted-foreground">{when(tx.createdAt)}</p>
        <HashLink hash={tx.transactionHash} url={tx.explorerUrl} />
      </div>
      <div className="text-right">
        <p className="font-semibold tabular-nums">
          {formatBalance(tx.amount, tx.token)} {tx.token}
        </p>
        <span className={`${badgeClass} mt-1 ${statusTone(tx.status)}`} data-status={tx.status}>
          {capitalise(tx.status)}
        </span>
      </div>
    </li>
  );
}

/**
 * The Transactions tab (spec sections 2 and 4): the 10 latest purchases and
 * withdrawals with a refresh button ('Failed to load transactions' and 'Try
 * Again' when the list cannot be read), and below them what was sent from
 * this wallet.
 */
export function TransactionsPanel() {
  const onramp = useResourceState(onrampTransactions);
  const sends = useResourceState(sentTransactions);
  useEffect(() => {
    void onrampTransactions.load();
    void sentTransactions.load();
  }, []);

  return (
    <div className="grid gap-8">
      <section aria-labelledby="onramp-title" className="grid gap-3">
        <div className="flex items-center justify-between gap-2">
          <h3 id="onramp-title" className="font-semibold">
            Purchases and withdrawals
          </h3>
          <Button variant="ghost" size="sm" onClick={() => void onrampTransactions.load({ force: true })} disabled={onramp.loading} aria-label="Refresh transactions">
            <Icon name="refresh" className={`h-4 w-4 ${onramp.loading ? "animate-spin" : ""}`} /> Refresh
          </Button>
        </div>
        {onramp.error && onramp.data === undefined ? (
          <div role="alert" className="grid justify-items-center gap-2 rounded-xl border border-destructive/40 bg-destructive/5 px-4 py-8 text-center">
            <Icon name="alert" className="h-6 w-6 text-destructive" />
            <p className="font-semibold">Failed to load transactions</p>
            <p className="text-sm text-muted-foreground">{onramp.error}</p>
            <Button variant="outline" size="sm" onClick={() => void onrampTransactions.load({ force: true })}>
              Try Again
            </Button>
          </div>
        ) : onramp.data === undefined ? (
          <div className="flex justify-center py-8">
            <Spinner className="h-6 w-6 text-muted-foreground" label="Loading transactions" />
          </div>
        ) : onramp.data.length === 0 ? (
          <p className="rounded-xl border border-dashed border-border px-4 py-8 text-center text-sm text-muted-foreground">
            No purchases or withdrawals yet. Buy XDC with INR from the XDC Wallet tab.
          </p>
        ) : (
          <ul className="divide-y divide-border rounded-xl border border-border">
            {onramp.data.map((tx) => (
              <OnrampRow key={tx.id} tx={tx} />
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="sends-title" className="grid gap-3">
        <div className="flex items-center justify-between gap-2">
          <h3 id="sends-title" className="font-semibold">
            Sent from this wallet
          </h3>
          <Button variant="ghost" size="sm" onClick={() => void sentTransactions.load({ force: true })} disabled={sends.loading} aria-label="Refresh sent transactions">
            <Icon name="refresh" className={`h-4 w-4 ${sends.loading ? "animate-spin" : ""}`} /> Refresh
          </Button>
        </div>
        {sends.error && sends.data === undefined ? (
          <p role="alert" className="text-sm text-destructive">
            {sends.error}
          </p>
        ) : sends.data === undefined ? null : sends.data.length === 0 ? (
          <p className="rounded-xl border border-dashed border-border px-4 py-6 text-center text-sm text-muted-foreground">Nothing sent yet.</p>
        ) : (
          <ul className="divide-y divide-border rounded-xl border border-border">
            {sends.data.map((tx) => (
              <SendRow key={tx.id} tx={tx} />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
