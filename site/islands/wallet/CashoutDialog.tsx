import { useEffect, useState, type FormEvent } from "react";
import { api, ApiRequestError, errorMessage, type ApiResponse } from "../../lib/api.ts";
import { inputClass } from "../../lib/ui.ts";
import { Button } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";
import { InlineAlert, WalletDialog } from "./WalletDialog.tsx";
import { cashouts, cashoutSettings, KYC_HELP } from "./cashout-data.ts";
import { useResourceState } from "../ui/use-store.ts";

type Quote = ApiResponse<"quoteCashout">;
type Cashout = ApiResponse<"confirmCashout">;
type Currency = "XDC" | "USDC" | "ROXN";
type Problem = { title?: string; message: string; kycUrl?: string | null } | null;

const problemOf = (err: unknown, fallback: string): Problem => {
  const details = err instanceof ApiRequestError ? (err.body?.details as { kycUrl?: string | null } | undefined) : undefined;
  return { title: err instanceof ApiRequestError ? err.title : undefined, message: errorMessage(err, fallback), kycUrl: details?.kycUrl };
};

const inr = (value: string) => `₹${Number(value).toLocaleString("en-IN", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** Seconds left of a quote, ticking. */
function useSecondsLeft(until: string | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!until) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [until]);
  return until ? Math.max(0, Math.ceil((new Date(until).getTime() - now) / 1000)) : 0;
}

/**
 * "Cash out to UPI" (issue 40): the amount and the UPI id (kept from last time), then the quote: what goes in,
 * the provider's rate and fee, the platform's fee, the network fee, the INR received and how long the quote
 * holds, with the provider's KYC state and what to do about it; then the confirmation, after which the
 * Transactions tab follows the order to its end. ROXN says plainly that it cannot be cashed out.
 */
export function CashoutDialog(props: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Prefilled from a reward's "Cash out" link. */
  initial?: { currency: "XDC" | "USDC"; amount: string };
  onStarted: () => void;
}) {
  const [currency, setCurrency] = useState<Currency>(props.initial?.currency ?? "XDC");
  const [amount, setAmount] = useState(props.initial?.amount ?? "");
  const [upiId, setUpiId] = useState("");
  const [quote, setQuote] = useState<Quote | null>(null);
  const [started, setStarted] = useState<Cashout | null>(null);
  const [busy, setBusy] = useState<"quote" | "confirm" | null>(null);
  const [problem, setProblem] = useState<Problem>(null);
  const secondsLeft = useSecondsLeft(quote?.expiresAt);

  const settings = useResourceState(cashoutSettings).data;
  useEffect(() => void cashoutSettings.load(), []);
  // The UPI id kept from last time fills the field once it has loaded (unless the person typed already).
  useEffect(() => {
    if (settings?.upiId) setUpiId((current) => current || settings.upiId!);
  }, [settings?.upiId]);
  const roxnReason = settings?.currencies.find((c) => c.symbol === "ROXN")?.reason ?? "ROXN cannot be cashed out directly.";

  const getQuote = async (event?: FormEvent) => {
    event?.preventDefault();
    setProblem(null);
    if (currency === "ROXN") return;
    setBusy("quote");
    try {
      setQuote(await api("/api/wallet/cashout/quote", { method: "POST", body: { currency, amount: amount.trim() } }));
    } catch (err) {
      setProblem(problemOf(err, "Could not get a quote."));
    } finally {
      setBusy(null);
    }
  };

  const confirm = async () => {
    if (!quote) return;
    setBusy("confirm");
    setProblem(null);
    try {
      const result = await api("/api/wallet/cashout", { method: "POST", timeoutMs: 30_000, body: { quoteId: quote.id, upiId: upiId.trim() } });
      setStarted(result);
      void cashouts.load({ force: true });
      void cashoutSettings.load({ force: true });
      props.onStarted();
    } catch (err) {
      setProblem(problemOf(err, "The cash-out could not start."));
    } finally {
      setBusy(null);
    }
  };

  const kyc = quote?.kyc.status ?? "approved";
  const expired = quote !== null && secondsLeft === 0;

  return (
    <WalletDialog
      open={props.open}
      onOpenChange={props.onOpenChange}
      title="Cash out to UPI"
      description="Sell XDC or USDC from your wallet for rupees paid to your UPI account, through the on-ramp provider."
      modalLocked={busy !== null}
    >
      {started ? (
        <div className="grid gap-3" data-cashout-started={started.id}>
          <InlineAlert
            tone={started.status === "cancelled" ? "error" : "success"}
            title={started.status === "cancelled" ? "Cash-out did not go ahead" : "Cash-out started"}
            message={
              started.status === "cancelled"
                ? `${started.failureReason ?? "It was cancelled"}. Nothing left your wallet.`
                : `${started.amount} ${started.currency} is on its way to the provider; ${inr(started.fiatAmount)} will be paid to ${started.upiId}. The Transactions tab shows each step.`
            }
          />
          <div className="flex justify-end">
            <Button onClick={() => props.onOpenChange(false)}>Done</Button>
          </div>
        </div>
      ) : !quote ? (
        <form className="grid gap-4" onSubmit={getQuote} noValidate>
          <fieldset className="grid gap-1.5">
            <legend className="mb-1.5 text-sm font-semibold">Currency</legend>
            <div className="flex gap-2">
              {(["XDC", "USDC", "ROXN"] as const).map((symbol) => (
                <label key={symbol} className={`flex cursor-pointer items-center gap-2 rounded-md border px-3 py-1.5 text-sm ${currency === symbol ? "border-primary bg-primary/10" : "border-border"}`}>
                  <input type="radio" name="cashout-currency" value={symbol} checked={currency === symbol} onChange={() => setCurrency(symbol)} />
                  {symbol}
                </label>
              ))}
            </div>
            {currency === "ROXN" && <InlineAlert tone="info" title="ROXN cannot be cashed out" message={roxnReason} />}
          </fieldset>
          {currency !== "ROXN" && (
            <>
              <div className="grid gap-1.5">
                <label htmlFor="cashout-amount" className="text-sm font-semibold">
                  Amount ({currency})
                </label>
                <input id="cashout-amount" className={`${inputClass} tabular-nums`} value={amount} onChange={(e) => setAmount(e.target.value)} inputMode="decimal" placeholder="0.0" autoComplete="off" />
                <p className="text-xs text-muted-foreground">{currency === "XDC" ? "0.1 XDC stays in the wallet for network fees." : "The network fee is paid in XDC."}</p>
              </div>
              <div className="grid gap-1.5">
                <label htmlFor="cashout-upi" className="text-sm font-semibold">
                  UPI id
                </label>
                <input id="cashout-upi" className={inputClass} value={upiId} onChange={(e) => setUpiId(e.target.value)} placeholder="name@bank" autoComplete="off" spellCheck={false} />
                <p className="text-xs text-muted-foreground">The rupees are paid here. It is kept for next time.</p>
              </div>
              <Button type="submit" disabled={busy !== null || !amount.trim() || !upiId.trim()}>
                {busy === "quote" ? <Spinner className="h-4 w-4" /> : null} Get quote
              </Button>
            </>
          )}
        </form>
      ) : (
        <div className="grid gap-4">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 rounded-lg border border-border p-4 text-sm" data-cashout-quote>
            <dt className="text-muted-foreground">You send</dt>
            <dd className="font-semibold tabular-nums" data-quote-amount>
              {quote.amount} {quote.currency}
            </dd>
            <dt className="text-muted-foreground">Provider's rate</dt>
            <dd className="tabular-nums" data-quote-rate>
              1 {quote.currency} = {inr(quote.rate)}
            </dd>
            <dt className="text-muted-foreground">Provider's fee</dt>
            <dd className="tabular-nums" data-quote-provider-fee>
              {inr(quote.providerFee)}
            </dd>
            <dt className="text-muted-foreground">Issuepool's fee</dt>
            <dd className="tabular-nums" data-quote-platform-fee>
              {Number(quote.platformFee) === 0 ? "None" : inr(quote.platformFee)}
            </dd>
            <dt className="text-muted-foreground">Network fee</dt>
            <dd className="tabular-nums" data-quote-gas>
              ≈ {Number(quote.gasFee).toFixed(6).replace(/0+$/, "").replace(/\.$/, "")} XDC
            </dd>
            <dt className="font-semibold">You receive</dt>
            <dd className="text-base font-semibold tabular-nums" data-quote-fiat>
              {inr(quote.fiatAmount)}
            </dd>
            <dt className="text-muted-foreground">Paid to</dt>
            <dd className="break-all">{upiId.trim()}</dd>
          </dl>
          <p className={`text-sm ${expired ? "text-destructive" : "text-muted-foreground"}`} role="status" data-quote-validity>
            {expired ? "This quote has expired: get a new one." : `This quote holds for ${secondsLeft} s.`}
          </p>
          {kyc !== "approved" && (
            <div data-kyc-state={kyc}>
              <InlineAlert tone={kyc === "rejected" ? "error" : "info"} title={KYC_HELP[kyc].title} message={KYC_HELP[kyc].message} />
              {quote.kyc.url && (
                <a href={quote.kyc.url} target="_blank" rel="noopener noreferrer" className="mt-2 inline-flex items-center gap-1 text-sm font-semibold text-primary hover:underline">
                  Verify your identity with the provider <Icon name="external" className="h-3 w-3" />
                </a>
              )}
            </div>
          )}
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="ghost" onClick={() => setQuote(null)} disabled={busy !== null}>
              <Icon name="arrowLeft" /> Back
            </Button>
            {expired ? (
              <Button onClick={() => void getQuote()} disabled={busy !== null}>
                {busy === "quote" ? <Spinner className="h-4 w-4" /> : null} Get a new quote
              </Button>
            ) : (
              <Button onClick={confirm} disabled={busy !== null || kyc !== "approved"}>
                {busy === "confirm" ? <Spinner className="h-4 w-4" /> : <Icon name="arrowUpRight" />} Confirm cash-out
              </Button>
            )}
          </div>
        </div>
      )}
      {problem && (
        <div className="grid gap-2">
          <InlineAlert title={problem.title} message={problem.message} />
          {problem.kycUrl && (
            <a href={problem.kycUrl} target="_blank" rel="noopener noreferrer" className="inline-flex items-center gap-1 text-sm font-semibold text-primary hover:underline">
              Verify your identity with the provider <Icon name="external" className="h-3 w-3" />
            </a>
          )}
        </div>
      )}
    </WalletDialog>
  );
}
