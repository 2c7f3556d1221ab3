import { lazy, Suspense, useEffect, useState } from "react";
import { useResourceState } from "../ui/use-store.ts";
import { QRCodeSVG } from "qrcode.react";
import { CURRENCIES, type Currency } from "../../lib/format.ts";
import { cardClass } from "../../lib/ui.ts";
import { formatBalance, toUnits, usdcBalance, walletInfo } from "../../lib/wallet-data.ts";
import { openOnramp, type ReturnPage } from "../../lib/wallet-onramp.ts";
import { Button } from "../ui/button.tsx";
import { CopyButton } from "../ui/copy-button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";

/**
 * The dialogs load when opened (or when the pointer or focus reaches their
 * button): most visits never open them, and the send form brings address
 * checks of its own (issue 16: signed-in pages were heavy).
 */
const loadSend = () => import("./SendDialog.tsx");
const loadExport = () => import("./ExportDialog.tsx");
const loadCashout = () => import("./CashoutDialog.tsx");
const CashoutDialog = lazy(() => loadCashout().then((m) => ({ default: m.CashoutDialog })));
const SendDialog = lazy(() => loadSend().then((m) => ({ default: m.SendDialog })));
const ExportDialog = lazy(() => loadExport().then((m) => ({ default: m.ExportDialog })));

/** The QR payload (spec section 2): `xdc:` and the address without its leading 'xdc'. */
export const qrValue = (address: string) => `xdc:${address.replace(/^xdc/i, "")}`;

/**
 * The XDC Wallet tab (spec section 2): the address as a QR code and text
 * with a copy button, the three balances with a refresh button, buying and
 * withdrawing XDC for INR, and (beyond the spec) sending and the export.
 */
export function XdcWalletPanel(props: {
  address: string;
  userId: number;
  returnTo: ReturnPage;
  onSent: () => void;
  compact?: boolean;
  /** A reward's "Cash out" link opened the page: the cash-out dialog opens prefilled. */
  cashout?: { currency: "XDC" | "USDC"; amount: string };
}) {
  const info = useResourceState(walletInfo);
  const usdc = useResourceState(usdcBalance(props.userId));
  const [opening, setOpening] = useState<"buy" | "sell" | null>(null);
  const [dialog, setDialog] = useState<"send" | "export" | "cashout" | null>(null);
  useEffect(() => {
    if (props.cashout) setDialog("cashout");
  }, [props.cashout]);
  const closeDialog = (open: boolean) => !open && setDialog(null);
  const refreshing = info.loading || usdc.loading;

  const balances: Record<Currency, string | undefined> = { XDC: info.data?.xdcBalance, ROXN: info.data?.roxnBalance, USDC: usdc.data?.balance };
  const xdc = toUnits(info.data?.xdcBalance, "XDC");
  const canWithdraw = Boolean(props.address) && xdc !== undefined && xdc > 0n;

  const refresh = () => {
    void walletInfo.load({ force: true });
    void usdcBalance(props.userId).load({ force: true });
  };
  const onramp = async (kind: "buy" | "sell") => {
    setOpening(kind);
    await openOnramp(kind, props.returnTo);
    setOpening(null);
  };

  return (
    <div className={`grid gap-6 ${props.compact ? "" : "md:grid-cols-[auto_1fr]"}`}>
      <figure className="mx-auto flex flex-col items-center gap-2">
        <div className="rounded-xl border border-border bg-white p-3 shadow-sm" data-wallet-qr={qrValue(props.address)}>
          <QRCodeSVG value={qrValue(props.address)} level="H" size={180} title="QR code of your XDC address" />
        </div>
        <figcaption className="text-xs text-muted-foreground">Scan to send XDC to this wallet</figcaption>
      </figure>

      <div className="grid min-w-0 content-start gap-5">
        <div>
          <p className="text-sm font-medium text-muted-foreground" id="wallet-address-label">
            Your XDC address
          </p>
          <div className="mt-1 flex items-start gap-1 rounded-lg bg-muted px-3 py-2">
            <span className="min-w-0 flex-1 break-all font-mono text-sm" aria-labelledby="wallet-address-label" data-wallet-page-address>
              {props.address}
            </span>
            <CopyButton value={props.address} label="Copy address" />
          </div>
        </div>

        <div>
          <div className="flex items-center justify-between gap-2">
            <h2 className="text-sm font-medium text-muted-foreground">Balances</h2>
            <Button variant="ghost" size="sm" onClick={refresh} disabled={refreshing} aria-label="Refresh balances">
              <Icon name="refresh" className={`h-4 w-4 ${refreshing ? "animate-spin" : ""}`} /> Refresh
            </Button>
          </div>
          <dl className="mt-2 grid grid-cols-1 gap-2 sm:grid-cols-3">
            {CURRENCIES.map((symbol) => {
              const state = symbol === "USDC" ? usdc : info;
              return (
                <div key={symbol} className={`${cardClass} flex items-baseline justify-between gap-3 px-4 py-3 sm:block`} data-balance={symbol}>
                  <dt className="text-xs font-medium text-muted-foreground">{symbol}</dt>
                  <dd className="text-lg font-semibold tabular-nums sm:mt-1 sm:text-xl">
                    {state.data === undefined && state.loading ? (
                      <Spinner className="h-5 w-5 text-muted-foreground" label={`Loading ${symbol} balance`} />
                    ) : state.data === undefined && state.error ? (
                      <span className="text-sm font-normal text-destructive" role="alert">
                        {state.error}
                      </span>
                    ) : (
                      <span data-balance-value>{formatBalance(balances[symbol], symbol)}</span>
                    )}
                  </dd>
                </div>
              );
            })}
          </dl>
        </div>

        <div className="grid grid-cols-1 gap-2 min-[420px]:grid-cols-2">
          <Button onClick={() => onramp("buy")} disabled={!props.address || opening !== null}>
            {opening === "buy" ? <Spinner className="h-4 w-4" /> : <Icon name="arrowDownLeft" />} Buy XDC with INR
          </Button>
          <Button variant="secondary" onClick={() => onramp("sell")} disabled={!canWithdraw || opening !== null}>
            {opening === "sell" ? <Spinner className="h-4 w-4" /> : <Icon name="arrowUpRight" />} Withdraw XDC to INR
          </Button>
          {!props.compact && (
            <Button variant="secondary" className="min-[420px]:col-span-2" onClick={() => setDialog("cashout")} onPointerEnter={loadCashout} onFocus={loadCashout}>
              <Icon name="arrowUpRight" /> Cash out to UPI
            </Button>
          )}
          <Button variant="outline" onClick={() => setDialog("send")} onPointerEnter={loadSend} onFocus={loadSend}>
            <Icon name="send" /> Send
          </Button>
          <Button variant="outline" onClick={() => setDialog("export")} onPointerEnter={loadExport} onFocus={loadExport}>
            <Icon name="key" /> Export to MetaMask
          </Button>
          <Suspense fallback={null}>
            {dialog === "send" && <SendDialog open onOpenChange={closeDialog} address={props.address} balances={balances} onSent={props.onSent} />}
            {dialog === "export" && <ExportDialog open onOpenChange={closeDialog} address={props.address} />}
            {dialog === "cashout" && <CashoutDialog open onOpenChange={closeDialog} initial={props.cashout} onStarted={props.onSent} />}
          </Suspense>
        </div>
      </div>
    </div>
  );
}
