import { lazy, Suspense, useEffect, type ReactNode } from "react";
import { api, type ApiResponse } from "../../lib/api.ts";
import { createResource } from "../../lib/wallet-resource.ts";
import { useResourceState } from "../ui/use-store.ts";
import { decimalToUnits, formatAmount, shortAddress, shortHash } from "../../lib/format.ts";
import { badgeClass } from "../../lib/ui.ts";
import {
  bountyHistory,
  formatBalance,
  myTips,
  type TipEntry,
  onrampTransactions,
  sentTransactions,
  type BountyHistoryEntry,
  type OnrampTransaction,
  type SentTransaction,
} from "../../lib/wallet-data.ts";
import { Button } from "../ui/button.tsx";
import { CopyButton } from "../ui/copy-button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";

/** Cash-outs and statements (issue 40) load with the tab's first view, apart from the rest of the wallet. */
const CashoutsSection = lazy(() => import("./CashoutsSection.tsx").then((m) => ({ default: m.CashoutsSection })));
const StatementsSection = lazy(() => import("./StatementsSection.tsx").then((m) => ({ default: m.StatementsSection })));

/** A reward's way to rupees (issue 40): the wallet's cash-out, prefilled. ROXN cannot be cashed out. */
function CashoutLink({ entry }: { entry: BountyHistoryEntry }) {
  if (entry.kind !== "reward" || entry.currency === "ROXN") return null;
  return (
    <a href={`/wallet?cashout=${entry.currency}&amount=${entry.amount}`} className="ml-2 whitespace-nowrap font-semibold text-primary hover:underline" data-history-cashout>
      Cash out
    </a>
  );
}

/** Spec section 4: success green, failed red, anything else amber; shown capitalised. */
export function statusTone(status: string): string {
  if (status === "success" || status === "confirmed") return "border-success/40 bg-success/10 text-success";
  if (status === "failed") return "border-destructive/40 bg-destructive/10 text-destructive";
  return "border-warning/40 bg-warning/10 text-warning";
}
const capitalise = (text: string) => (text ? text[0]!.toUpperCase() + text.slice(1) : text);
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A hash, short on screen (the full value in its title, on copy and behind the explorer link). */
function HashLink({ hash, url }: { hash: string | null; url: string | null }) {
  if (!hash) return null;
  return (
    <span className="inline-flex items-center gap-0.5" data-transaction-hash={hash}>
      {url ? (
        <a href={url} target="_blank" rel="noopener noreferrer" title={hash} className="inline-flex items-center gap-1 font-mono text-primary hover:underline">
          {shortHash(hash)} <Icon name="external" className="h-3 w-3" />
        </a>
      ) : (
        <span className="font-mono" title={hash}>
          {shortHash(hash)}
        </span>
      )}
      <CopyButton value={hash} label="Copy transaction hash" small />
    </span>
  );
}

/**
 * One row of either list, stacked so it reads at 375 px (issue 16: the full
 * address broke over five lines, the date over four): what and how much;
 * to whom or which order, and the status; when, and the hash. Addresses and
 * hashes are shortened as in the header, the full value in a title and on
 * copy.
 */
function TransactionRow(props: {
  icon: "arrowUpRight" | "arrowDownLeft" | "send";
  iconTone: string;
  title: ReactNode;
  amount: ReactNode;
  detail: ReactNode;
  status: string;
  createdAt: string;
  hash: string | null;
  explorerUrl: string | null;
  data: Record<string, string>;
}) {
  return (
    <li className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 px-3 py-3 sm:px-4" {...props.data}>
      <span className={`mt-0.5 flex h-8 w-8 shrink-0 items-center justify-center rounded-full sm:h-9 sm:w-9 ${props.iconTone}`}>
        <Icon name={props.icon} className="h-4 w-4" />
      </span>
      <div className="grid min-w-0 gap-1">
        <div className="flex items-start justify-between gap-3">
          <div className="min-w-0 font-semibold">{props.title}</div>
          <div className="shrink-0 text-right font-semibold tabular-nums">{props.amount}</div>
        </div>
        <div className="flex min-h-6 flex-wrap items-center justify-between gap-x-3 gap-y-1 text-sm">
          <div className="min-w-0">{props.detail}</div>
          <span className={`${badgeClass} ${statusTone(props.status)}`} data-status={props.status}>
            {capitalise(props.status)}
          </span>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-x-3 text-xs text-muted-foreground">
          <time dateTime={props.createdAt} className="whitespace-nowrap">
            {when(props.createdAt)}
          </time>
          <HashLink hash={props.hash} url={props.explorerUrl} />
        </div>
      </div>
    </li>
  );
}

function OnrampRow({ tx }: { tx: OnrampTransaction }) {
  const sell = tx.metadata?.transactionType === "offramp" || tx.type === "offramp";
  return (
    <TransactionRow
      data={{ "data-onramp-transaction": tx.orderId ?? tx.id }}
      icon={sell ? "arrowUpRight" : "arrowDownLeft"}
      iconTone={sell ? "bg-secondary text-secondary-foreground" : "bg-primary/10 text-primary"}
      title={
        <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <span data-transaction-type>{sell ? "Sell" : "Buy"}</span>
          <span className={`${badgeClass} border-border bg-muted font-medium text-foreground`}>{sell ? "Withdraw" : "Purchase"}</span>
        </span>
      }
      // What came in (a purchase) or left (a sale), signed like every other row (issue 38: sales had no minus sign).
      amount={tx.amount ? `${sell ? "-" : "+"}${formatBalance(tx.amount, "XDC")} XDC` : "—"}
      detail={
        <span className="text-muted-foreground">
          {tx.fiatAmount && (
            <span className="tabular-nums text-foreground">
              ₹{Number(tx.fiatAmount).toLocaleString("en-IN", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}
            </span>
          )}
          {tx.fiatAmount && tx.orderId && " · "}
          {tx.orderId && <span className="whitespace-nowrap">Order {tx.orderId}</span>}
        </span>
      }
      status={tx.status}
      createdAt={tx.createdAt}
      hash={tx.transactionHash}
      explorerUrl={tx.explorerUrl}
    />
  );
}

function SendRow({ tx }: { tx: SentTransaction }) {
  return (
    <TransactionRow
      data={{ "data-sent-transaction": tx.id }}
      icon="send"
      iconTone="bg-muted"
      title={`Sent ${tx.token}`}
      amount={`-${formatBalance(tx.amount, tx.token)} ${tx.token}`}
      detail={
        <span className="inline-flex items-center gap-1 text-muted-foreground">
          to
          <span className="font-mono text-xs text-foreground" title={tx.to} data-full-address={tx.to}>
            {shortAddress(tx.to)}
          </span>
          <CopyButton value={tx.to} label="Copy recipient address" small />
        </span>
      }
      status={tx.status}
      createdAt={tx.createdAt}
      hash={tx.transactionHash}
      explorerUrl={tx.explorerUrl}
    />
  );
}

const HISTORY_TITLES = {
  reward: "Reward received",
  held: "Reward share held in escrow for you",
  withdrawal: "Pool withdrawal",
  refund: "Bounty cancelled: back to the pool",
  funding: "Pool funded",
} as const;

/**
 * Money the platform moved for this user (issue 11): a bounty paid to them, a pool withdrawal, their own funding of a
 * pool, a bounty back to their pool. The sign follows which way the money went for this wallet (issue 38: a cancelled
 * bounty read as if the pool manager had received it; it went back to the pool).
 */
function HistoryRow({ entry }: { entry: BountyHistoryEntry }) {
  const sign = entry.direction === "in" ? "+" : entry.direction === "out" ? "-" : "";
  return (
    <TransactionRow
      data={{ "data-history-entry": entry.id, "data-history-kind": entry.kind, "data-direction": entry.direction }}
      icon={entry.direction === "in" ? "arrowDownLeft" : "arrowUpRight"}
      iconTone={entry.kind === "reward" ? "bg-success/10 text-success" : "bg-muted"}
      title={HISTORY_TITLES[entry.kind]}
      amount={<span className={entry.direction === "none" ? "text-muted-foreground" : undefined}>{`${sign}${formatBalance(entry.amount, entry.currency)} ${entry.currency}`}</span>}
      detail={
        <span className="text-muted-foreground">
          {entry.kind === "refund" && "Into the pool of "}
          {entry.kind === "funding" && "To the pool of "}
          {entry.repository}
          {entry.fee && ` · incl. ${formatBalance(entry.fee, entry.currency)} ${entry.currency} fee`}
          {entry.kind === "refund" && " (not your wallet)"}
          {entry.issueNumber !== null && (
            <>
              {" · "}
              {entry.issueUrl ? (
                <a href={entry.issueUrl} target="_blank" rel="noopener noreferrer" className="text-foreground hover:underline" data-history-issue>
                  {entry.issueTitle ?? `Issue #${entry.issueNumber}`} #{entry.issueNumber}
                </a>
              ) : (
                <span className="text-foreground" data-history-issue>
                  {entry.issueTitle ?? `Issue #${entry.issueNumber}`} #{entry.issueNumber}
                </span>
              )}
            </>
          )}
          <CashoutLink entry={entry} />
        </span>
      }
      status="confirmed"
      createdAt={entry.createdAt}
      hash={entry.transactionHash}
      explorerUrl={entry.explorerUrl}
    />
  );
}

/** A tip given or received (issue 29): held ones say for whom they wait. */
function TipRow({ tip, given }: { tip: TipEntry; given: boolean }) {
  // What left the tipper (the amount), or what reached the recipient (less the contract's fee), in units.
  const gross = decimalToUnits(tip.amount, tip.currency) ?? 0n;
  const net = given ? gross : gross - (decimalToUnits(tip.fee, tip.currency) ?? 0n);
  return (
    <TransactionRow
      data={{ "data-tip": String(tip.id), "data-tip-direction": given ? "given" : "received" }}
      icon={given ? "arrowUpRight" : "arrowDownLeft"}
      iconTone={given ? "bg-muted" : "bg-success/10 text-success"}
      title={given ? `Tip to @${tip.to}` : `Tip from @${tip.from}`}
      amount={`${given ? "-" : "+"}${formatAmount(net, tip.currency)} ${tip.currency}`}
      detail={<span className="text-muted-foreground">{tip.message}</span>}
      status={tip.status}
      createdAt={tip.createdAt}
      hash={tip.transactionHash}
      explorerUrl={tip.explorerUrl}
    />
  );
}

/**
 * GET /api/funding/my-boosts (api/services/funding): the user's boosts, and what became of each. Here, not in
 * lib/wallet-data.ts: that module is in every page's shell, and the repository page is at its 100 KB budget.
 */
type BoostEntry = ApiResponse<"getMyBoosts">["boosts"][number];
const myBoosts = createResource(async () => (await api("/api/funding/my-boosts")).boosts, { freshMs: 15_000, retry: 1, fallbackError: "Failed to load boosts" });

const REFUND_REASONS = { expired: "its expiry passed", cancelled: "you took it back", not_planned: "the issue was closed as not planned" } as const;

/**
 * A boost the user funded (issue 29): what left the wallet (the share and the fee: issue 38 showed the share alone,
 * 4.975 of the 5 XDC that left), on which repository's issue, and its transaction; or the share that came back and why.
 */
function BoostRow({ boost }: { boost: BoostEntry }) {
  const back = boost.status === "refunded";
  const gross = (decimalToUnits(boost.amount, boost.currency) ?? 0n) + (decimalToUnits(boost.fee, boost.currency) ?? 0n);
  const issue = boost.repository ? `${boost.repository}#${boost.issueNumber}` : `Issue #${boost.issueNumber}`;
  return (
    <TransactionRow
      data={{ "data-boost": String(boost.id), "data-boost-status": boost.status }}
      icon={back ? "arrowDownLeft" : "arrowUpRight"}
      iconTone={back ? "bg-success/10 text-success" : "bg-muted"}
      title={back ? "Boost refunded to you" : boost.status === "refunding" ? "Boost on its way back to you" : "Boost"}
      amount={back ? `+${formatBalance(boost.amount, boost.currency)} ${boost.currency}` : `-${formatAmount(gross, boost.currency)} ${boost.currency}`}
      detail={
        <span className="text-muted-foreground">
          {boost.repository ? (
            <a href={`/repos/${boost.repository}`} className="text-foreground hover:underline" data-boost-issue>
              {issue}
            </a>
          ) : (
            <span data-boost-issue>{issue}</span>
          )}
          {back
            ? boost.refundReason && ` · ${REFUND_REASONS[boost.refundReason]}`
            : ` · ${formatBalance(boost.amount, boost.currency)} ${boost.currency} to the bounty, ${formatBalance(boost.fee, boost.currency)} ${boost.currency} fee`}
        </span>
      }
      status={boost.status}
      createdAt={boost.fundedAt}
      hash={back ? (boost.refundTransactionHash ?? boost.transactionHash) : boost.transactionHash}
      explorerUrl={back ? (boost.refundExplorerUrl ?? boost.explorerUrl) : boost.explorerUrl}
    />
  );
}

/**
 * The Transactions tab (spec sections 2 and 4): rewards received, refunds
 * and pool withdrawals (issue 11); the 10 latest purchases and
 * withdrawals with a refresh button ('Failed to load transactions' and 'Try
 * Again' when the list cannot be read), and below them what was sent from
 * this wallet.
 */
/** A cash-out that settled moved the wallet's money: its sends and balances are read again. */
const settledCashout = () => void sentTransactions.load({ force: true });

export function TransactionsPanel() {
  const onramp = useResourceState(onrampTransactions);
  const sends = useResourceState(sentTransactions);
  const history = useResourceState(bountyHistory);
  const tips = useResourceState(myTips);
  const boosts = useResourceState(myBoosts);
  useEffect(() => {
    void myBoosts.load();
    void myTips.load();
    void onrampTransactions.load();
    void sentTransactions.load();
    void bountyHistory.load();
  }, []);

  return (
    <div className="grid gap-8">
      <section aria-labelledby="history-title" className="grid gap-3" data-bounty-history>
        <div className="flex items-center justify-between gap-2">
          <h2 id="history-title" className="font-semibold">
            Rewards, pool fundings, refunds and withdrawals
          </h2>
          <Button variant="ghost" size="sm" onClick={() => void bountyHistory.load({ force: true })} disabled={history.loading} aria-label="Refresh rewards and refunds">
            <Icon name="refresh" className={`h-4 w-4 ${history.loading ? "animate-spin" : ""}`} /> Refresh
          </Button>
        </div>
        {history.error && history.data === undefined ? (
          <p role="alert" className="text-sm text-destructive">
            {history.error}
          </p>
        ) : history.data === undefined ? null : history.data.length === 0 ? (
          <p className="rounded-xl border border-dashed border-border px-4 py-6 text-center text-sm text-muted-foreground">
            No rewards yet. Bounties you earn on Issuepool appear here.
          </p>
        ) : (
          <ul className="divide-y divide-border rounded-xl border border-border">
            {history.data.map((entry) => (
              <HistoryRow key={entry.id} entry={entry} />
            ))}
          </ul>
        )}
      </section>

      {tips.data && tips.data.given.length + tips.data.received.length > 0 && (
        <section aria-labelledby="tips-title" className="grid gap-3" data-tips>
          <h2 id="tips-title" className="font-semibold">
            Tips
          </h2>
          <ul className="divide-y divide-border rounded-xl border border-border">
            {[...tips.data.received.map((tip) => ({ tip, given: false })), ...tips.data.given.map((tip) => ({ tip, given: true }))]
              .sort((a, b) => b.tip.createdAt.localeCompare(a.tip.createdAt))
              .map(({ tip, given }) => (
                <TipRow key={`${given ? "g" : "r"}${tip.id}`} tip={tip} given={given} />
              ))}
          </ul>
        </section>
      )}

      {boosts.data && boosts.data.length > 0 && (
        <section aria-labelledby="boosts-title" className="grid gap-3" data-boosts>
          <h2 id="boosts-title" className="font-semibold">
            Boosts
          </h2>
          <ul className="divide-y divide-border rounded-xl border border-border">
            {boosts.data.map((boost) => (
              <BoostRow key={boost.id} boost={boost} />
            ))}
          </ul>
        </section>
      )}

      <Suspense fallback={null}>
        <CashoutsSection onSettled={settledCashout} />
      </Suspense>

      <section aria-labelledby="onramp-title" className="grid gap-3">
        <div className="flex items-center justify-between gap-2">
          <h2 id="onramp-title" className="font-semibold">
            Purchases and withdrawals
          </h2>
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
          <h2 id="sends-title" className="font-semibold">
            Sent from this wallet
          </h2>
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

      <Suspense fallback={null}>
        <StatementsSection />
      </Suspense>
    </div>
  );
}
