import { useState, type FormEvent } from "react";
import { api, ApiRequestError, errorMessage, newIdempotencyKey, type ApiResponse } from "../../lib/api.ts";
import { CURRENCIES, DECIMALS, formatAmount, formatUnits, type Currency } from "../../lib/format.ts";
import { inputClass } from "../../lib/ui.ts";
import { OtpInput } from "../ui/otp-input.tsx";
import { toUnits } from "../../lib/wallet-data.ts";
import { amountProblem, recipientProblem } from "../../lib/wallet-send-rules.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";
import { InlineAlert, WalletDialog } from "./WalletDialog.tsx";

type Quote = ApiResponse<"quoteSend">;

type Problem = { title?: string; message: string } | null;

const problemOf = (err: unknown, fallback: string): Problem => ({
  title: err instanceof ApiRequestError ? err.title : undefined,
  message: errorMessage(err, fallback),
});

/**
 * Sending XDC, ROXN or USDC to an outside address (beyond the spec). The
 * form checks what it can at once; 'Review' asks the server for every rule
 * and the fee; the confirmation shows fee and total and, above the
 * threshold, asks for the e-mailed code; 'Send' goes with one idempotency
 * key per confirmation, so a retry after a lost answer never sends twice.
 */
export function SendDialog(props: {
  address: string;
  balances: Record<Currency, string | undefined>;
  onSent: () => void;
  open: boolean;
  /** Closing unmounts it (XdcWalletPanel), which forgets the form. */
  onOpenChange: (open: boolean) => void;
}) {
  const { open } = props;
  const [token, setToken] = useState<Currency>("XDC");
  const [to, setTo] = useState("");
  const [amount, setAmount] = useState("");
  const [fieldErrors, setFieldErrors] = useState<{ to?: string; amount?: string }>({});
  const [quote, setQuote] = useState<Quote | null>(null);
  const [idempotencyKey, setIdempotencyKey] = useState("");
  const [otp, setOtp] = useState("");
  const [codeSent, setCodeSent] = useState<string | null>(null);
  const [busy, setBusy] = useState<"quote" | "max" | "code" | "send" | null>(null);
  const [problem, setProblem] = useState<Problem>(null);

  const balance = toUnits(props.balances[token], token);

  const reset = () => {
    setQuote(null);
    setOtp("");
    setCodeSent(null);
    setProblem(null);
    setFieldErrors({});
  };
  const onOpenChange = (next: boolean) => props.onOpenChange(next);

  const review = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    const errors = { to: recipientProblem(to, props.address) ?? undefined, amount: amountProblem(amount, token, balance) ?? undefined };
    setFieldErrors(errors);
    if (errors.to || errors.amount) return;
    setBusy("quote");
    try {
      const params = new URLSearchParams({ token, to: to.trim(), amount: amount.trim() });
      setQuote(await api(`/api/wallet/send-quote?${params}`));
      setIdempotencyKey(newIdempotencyKey());
    } catch (err) {
      setProblem(problemOf(err, "Could not check this transfer."));
    } finally {
      setBusy(null);
    }
  };

  /** Max from the server, with the fee it will charge: for XDC the balance less the 0.1 XDC reserve and that fee. */
  const fillMax = async () => {
    setBusy("max");
    setProblem(null);
    setFieldErrors({});
    try {
      const params = new URLSearchParams({ token, ...(recipientProblem(to, props.address) ? {} : { to: to.trim() }) });
      const max = await api(`/api/wallet/send-max?${params}`);
      setAmount(max.amount);
    } catch (err) {
      setProblem(problemOf(err, "Could not work out the most you can send."));
    } finally {
      setBusy(null);
    }
  };

  const sendCode = async () => {
    if (!quote) return;
    setBusy("code");
    setProblem(null);
    try {
      const { message } = await api("/api/wallet/send-code", { method: "POST", body: { token, to: to.trim(), amount: amount.trim() } });
      setCodeSent(message);
    } catch (err) {
      const found = problemOf(err, "Failed to send OTP");
      setProblem(found?.message === "Failed to send OTP" ? { message: found.message } : found);
    } finally {
      setBusy(null);
    }
  };

  const send = async () => {
    if (!quote) return;
    setBusy("send");
    setProblem(null);
    try {
      const result = await api("/api/wallet/send", {
        method: "POST",
        idempotencyKey,
        timeoutMs: 30_000,
        body: { token, to: to.trim(), amount: amount.trim(), ...(quote.otpRequired ? { otp } : {}) },
      });
      toast({
        type: "success",
        title: `${result.token} Sent`,
        message: `${result.amount} ${result.token} sent to ${result.to.slice(0, 8)}…${result.to.slice(-4)}.`,
        action: result.explorerUrl ? { label: "View on Explorer", href: result.explorerUrl, external: true } : undefined,
        duration: 9000,
      });
      props.onSent();
      onOpenChange(false);
    } catch (err) {
      // A refusal means nothing was sent: the next attempt is a new request. A lost answer keeps the key, so a retry replays.
      if (err instanceof ApiRequestError && err.status > 0 && err.status < 500) setIdempotencyKey(newIdempotencyKey());
      setProblem(problemOf(err, "The transfer could not be sent."));
    } finally {
      setBusy(null);
    }
  };

  // Fees are tiny next to the 4 decimals balances show: 6 here, and the total follows them.
  const feeText = (fee: string) => {
    const units = toUnits(fee, "XDC") ?? 0n;
    return `${units > 0n && units < 10n ** 12n ? "< 0.000001" : formatUnits(units, DECIMALS.XDC, 6)} XDC`;
  };
  const totalText = (q: Quote) => (q.total ? `${formatUnits(toUnits(q.total, "XDC") ?? 0n, DECIMALS.XDC, 6)} XDC` : `${q.amount} ${q.token} + ${feeText(q.fee)}`);

  return (
    <>
      <WalletDialog
        open={open}
        onOpenChange={onOpenChange}
        modalLocked={busy !== null}
        title={quote ? "Confirm the transfer" : "Send from your wallet"}
        description={quote ? "Check every detail: a transfer on the blockchain cannot be undone." : "Send XDC, ROXN or USDC to an address outside Issuepool."}
      >
        {!quote ? (
          <form className="grid gap-4" onSubmit={review} noValidate>
            <fieldset className="grid gap-2">
              <legend className="mb-2 text-sm font-semibold">Token</legend>
              <div className="grid grid-cols-3 gap-2" role="radiogroup" aria-label="Token">
                {CURRENCIES.map((symbol) => (
                  <label
                    key={symbol}
                    className="flex cursor-pointer flex-col rounded-lg border border-border px-3 py-2 text-sm has-[:checked]:border-primary has-[:checked]:bg-primary/5 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-ring"
                  >
                    <input
                      type="radio"
                      name="send-token"
                      value={symbol}
                      checked={token === symbol}
                      onChange={() => {
                        setToken(symbol);
                        setFieldErrors({});
                      }}
                      className="sr-only"
                    />
                    <span className="font-semibold">{symbol}</span>
                    <span className="truncate text-xs tabular-nums text-muted-foreground">
                      {toUnits(props.balances[symbol], symbol) === undefined ? "—" : formatAmount(toUnits(props.balances[symbol], symbol)!, symbol)}
                    </span>
                  </label>
                ))}
              </div>
            </fieldset>
            <div className="grid gap-1.5">
              <label htmlFor="send-to" className="text-sm font-semibold">
                Recipient address
              </label>
              <input
                id="send-to"
                className={`${inputClass} font-mono`}
                value={to}
                onChange={(e) => setTo(e.target.value)}
                placeholder="xdc… or 0x…"
                autoComplete="off"
                spellCheck={false}
                aria-invalid={Boolean(fieldErrors.to)}
                aria-describedby={fieldErrors.to ? "send-to-error" : undefined}
              />
              {fieldErrors.to && (
                <p id="send-to-error" className="text-sm text-destructive">
                  {fieldErrors.to}
                </p>
              )}
            </div>
            <div className="grid gap-1.5">
              <label htmlFor="send-amount" className="text-sm font-semibold">
                Amount ({token})
              </label>
              <div className="flex gap-2">
                <input
                  id="send-amount"
                  className={`${inputClass} tabular-nums`}
                  value={amount}
                  onChange={(e) => setAmount(e.target.value)}
                  inputMode="decimal"
                  placeholder="0.0"
                  autoComplete="off"
                  aria-invalid={Boolean(fieldErrors.amount)}
                  aria-describedby={fieldErrors.amount ? "send-amount-error" : "send-amount-hint"}
                />
                <Button variant="outline" disabled={!balance || busy !== null} onClick={fillMax}>
                  {busy === "max" ? <Spinner className="h-4 w-4" /> : null} Max
                </Button>
              </div>
              {fieldErrors.amount ? (
                <p id="send-amount-error" className="text-sm text-destructive">
                  {fieldErrors.amount}
                </p>
              ) : (
                <p id="send-amount-hint" className="text-xs text-muted-foreground">
                  {token === "XDC" ? "0.1 XDC stays in the wallet for network fees." : "The network fee is paid in XDC."}
                </p>
              )}
            </div>
            <Button type="submit" disabled={busy !== null}>
              {busy === "quote" ? <Spinner className="h-4 w-4" /> : null} Review
            </Button>
          </form>
        ) : (
          <div className="grid gap-4">
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 rounded-lg border border-border p-4 text-sm" data-send-confirmation>
              <dt className="text-muted-foreground">To</dt>
              <dd className="break-all font-mono text-xs">{quote.to}</dd>
              <dt className="text-muted-foreground">Amount</dt>
              <dd className="font-semibold tabular-nums">
                {quote.amount} {quote.token}
              </dd>
              <dt className="text-muted-foreground">Network fee</dt>
              <dd className="tabular-nums">≈ {feeText(quote.fee)}</dd>
              <dt className="text-muted-foreground">Total</dt>
              <dd className="font-semibold tabular-nums">≈ {totalText(quote)}</dd>
            </dl>
            {quote.otpRequired && (
              <div className="grid gap-2">
                <p className="text-sm">
                  Transfers above {quote.otpThreshold} {quote.token} need a one-time code, which we e-mail to you for exactly this amount and recipient.
                </p>
                <div>
                  <Button variant="outline" onClick={sendCode} disabled={busy !== null}>
                    {busy === "code" ? <Spinner className="h-4 w-4" /> : <Icon name="mail" />} {codeSent ? "Send a new code" : "Send code"}
                  </Button>
                </div>
                {codeSent && <InlineAlert tone="success" message={codeSent} />}
                <label htmlFor="send-otp" className="text-sm font-semibold">
                  One-time code
                </label>
                <OtpInput id="send-otp" value={otp} onChange={setOtp} />
              </div>
            )}
            <div className="flex flex-wrap justify-end gap-2">
              <Button variant="ghost" onClick={reset} disabled={busy !== null}>
                <Icon name="arrowLeft" /> Back
              </Button>
              <Button onClick={send} disabled={busy !== null || (quote.otpRequired && otp.length !== 6)}>
                {busy === "send" ? <Spinner className="h-4 w-4" /> : <Icon name="send" />} Confirm and send
              </Button>
            </div>
          </div>
        )}
        {problem && <InlineAlert title={problem.title} message={problem.message} />}
      </WalletDialog>
    </>
  );
}
