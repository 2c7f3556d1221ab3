import { useState, type FormEvent, type ReactNode } from "react";
import { api, ApiRequestError, type ApiResponse } from "../../lib/api.ts";
import {
  FEE_PERCENT_LABEL,
  feeBreakdown,
  GAS_RESERVE,
  XDC_FUNDING_FLOOR,
  isLowRoxnBalance,
  maxXdcFunding,
  needsRoxnApproval,
  parseAmount,
  tokenFundingProblem,
  ROXN_STEP,
  toPlainDecimal,
  XDC_FUNDING_MIN_INPUT,
  xdcFundingProblem,
  type Currency,
} from "../../lib/funding-rules.ts";
import { formatAmount } from "../../lib/format.ts";
import type { RepoView } from "../../lib/repo-detail-data.ts";
import { inputClass } from "../../lib/ui.ts";
import { openOnramp } from "../../lib/wallet-onramp.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";
import { Dialog } from "../ui/dialog.tsx";
import { Spinner } from "../ui/spinner.tsx";
import { serverMessage, transactionToast, useActionKey, type TransactionResult } from "./actions.ts";

const VALIDATION_TITLES = new Set([
  "Invalid Amount",
  "Minimum funding amount not met",
  "Insufficient funds for gas",
  "Exceeds daily funding limit",
  "Repository details missing.",
  "Insufficient ROXN Balance",
  "Insufficient ROXN allowance",
  "Insufficient USDC Balance",
  "Insufficient USDC allowance",
  "Insufficient XDC Balance",
]);

/** A refusal keeps the server's own title when it is one of the spec's rule titles, else the action's error title. */
function errorTitle(err: unknown, fallback: string): string {
  if (err instanceof ApiRequestError && err.status === 400 && err.title && VALIDATION_TITLES.has(err.title)) return err.title;
  return fallback;
}

export function AmountField(props: {
  id: string;
  label: string;
  symbol: Currency;
  value: string;
  onChange: (value: string) => void;
  min: string;
  step: string;
  disabled?: boolean;
  max?: { label: string; onClick: () => void; disabled?: boolean };
  describedBy?: string;
}) {
  return (
    <div>
      <label htmlFor={props.id} className="text-sm font-medium">
        {props.label}
      </label>
      <div className="mt-1.5 flex gap-2">
        <div className="relative min-w-0 flex-1">
          <input
            id={props.id}
            type="number"
            inputMode="decimal"
            min={props.min}
            step={props.step}
            value={props.value}
            onChange={(e) => props.onChange(e.target.value)}
            placeholder={`0.00`}
            disabled={props.disabled}
            aria-describedby={props.describedBy}
            className={`${inputClass} pr-16 tabular-nums`}
          />
          <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-sm font-medium text-muted-foreground">{props.symbol}</span>
        </div>
        {props.max && (
          <Button variant="outline" onClick={props.max.onClick} disabled={props.disabled || props.max.disabled}>
            {props.max.label}
          </Button>
        )}
      </div>
    </div>
  );
}

/** Spec section 9: 0.5% of the funding goes to the platform, the net to the pool. */
export function FeeBreakdown({ amount, symbol, confirming = false }: { amount: bigint | null; symbol: Currency; confirming?: boolean }) {
  const parts = amount !== null && amount > 0n ? feeBreakdown(amount) : null;
  const show = (value: bigint | undefined) => (value === undefined ? "—" : `${formatAmount(value, symbol)} ${symbol}`);
  return (
    <dl
      className="grid grid-cols-1 gap-1.5 rounded-xl border border-border bg-background/60 p-3.5 text-sm"
      aria-label="Fee breakdown"
      {...(confirming ? { "data-confirm-fee-breakdown": symbol } : { "data-fee-breakdown": symbol })}
    >
      <div className="flex justify-between gap-3">
        <dt className="text-muted-foreground">Amount</dt>
        <dd className="tabular-nums">{show(parts?.gross)}</dd>
      </div>
      <div className="flex justify-between gap-3">
        <dt className="text-muted-foreground">Platform fee ({FEE_PERCENT_LABEL})</dt>
        <dd className="tabular-nums">{parts ? `− ${show(parts.fee)}` : "—"}</dd>
      </div>
      <div className="flex justify-between gap-3 border-t border-border pt-1.5 font-semibold">
        <dt>Net to pool</dt>
        <dd className="tabular-nums">{show(parts?.net)}</dd>
      </div>
    </dl>
  );
}

/**
 * The last look before money leaves the wallet for a pool (issue 38: adding funds moved 200 XDC in one click, while
 * cancel, release and send confirm): the amount, the fee and the net, and where it goes.
 */
export function ConfirmFunding(props: {
  amount: bigint | null;
  symbol: Currency;
  repo: RepoView;
  busy: boolean;
  busyLabel: string;
  note?: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { amount, symbol } = props;
  return (
    <Dialog
      open={amount !== null}
      onOpenChange={(open) => !open && !props.busy && props.onCancel()}
      modalLocked={props.busy}
      title={amount !== null ? `Add ${formatAmount(amount, symbol)} ${symbol} to the pool?` : "Add funds"}
      description={`From your wallet to the ${props.repo.fullName} pool.`}
    >
      <div className="mt-4 grid gap-4" data-confirm-funding={symbol}>
        <FeeBreakdown amount={amount} symbol={symbol} confirming />
        <p className="text-sm text-muted-foreground">
          The net amount funds bounties on this repository's issues; the pool manager can withdraw what no bounty holds. The fee is not refunded.
          {props.note ? ` ${props.note}` : ""}
        </p>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={props.onCancel} disabled={props.busy}>
            Cancel
          </Button>
          <Button onClick={props.onConfirm} disabled={props.busy}>
            {props.busy ? (
              <>
                <Spinner className="h-4 w-4" /> {props.busyLabel}
              </>
            ) : (
              `Confirm and add ${symbol}`
            )}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}

export function SubmitButton({ busy, busyLabel, children, disabled, describedBy }: { busy: boolean; busyLabel: string; children: ReactNode; disabled?: boolean; describedBy?: string }) {
  return (
    <Button type="submit" disabled={busy || disabled} aria-describedby={describedBy} className="w-full sm:w-auto">
      {busy ? (
        <>
          <Spinner className="h-4 w-4" /> {busyLabel}
        </>
      ) : (
        children
      )}
    </Button>
  );
}

// ---- XDC ----

export function XdcFundingForm(props: {
  repo: RepoView;
  balance: bigint | null;
  remainingLimit: bigint | null;
  disabled: boolean;
  onFunded: () => void;
  onLimitHit: () => void;
}) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<bigint | null>(null);
  const action = useActionKey();
  const amount = parseAmount(text, "XDC");

  const review = (event: FormEvent) => {
    event.preventDefault();
    if (busy || !props.repo.repoId) return;
    const problem = xdcFundingProblem({ amount, balance: props.balance, remainingLimit: props.remainingLimit, repositoryFullName: props.repo.fullName });
    if (problem) {
      // Not enough XDC: the way to get some, the wallet's Buy XDC (the on-ramp), beside the refusal (issue 11, item 10).
      const short = problem.title === "Insufficient XDC Balance" || problem.title === "Insufficient funds for gas";
      toast({ type: "error", ...problem, ...(short ? { action: { label: "Buy XDC", href: "/wallet" } } : {}) });
      return;
    }
    setConfirming(amount);
  };

  const fund = async () => {
    if (busy || confirming === null || !props.repo.repoId) return;
    const amount = confirming;
    const amountXdc = toPlainDecimal(amount, "XDC");
    setBusy(true);
    try {
      const result = await api(`/api/blockchain/repository/${props.repo.repoId}/fund`, {
        method: "POST",
        body: { amountXdc, repositoryFullName: props.repo.fullName },
        idempotencyKey: action.keyFor(`${props.repo.repoId}/xdc/${amountXdc}`),
      });
      action.settle();
      const { net } = feeBreakdown(amount);
      transactionToast({
        title: "XDC Funding Submitted",
        message: `${formatAmount(net, "XDC")} XDC goes to the pool after the ${FEE_PERCENT_LABEL} fee.`,
        actionLabel: "View on Explorer",
        result,
      });
      setText("");
      props.onFunded();
    } catch (err) {
      action.settle(err);
      if (err instanceof ApiRequestError && err.status === 429) {
        const details = (err.body?.details ?? {}) as { remainingLimit?: string; limitResetTime?: string };
        const remaining = parseAmount(details.remainingLimit ?? "", "XDC");
        const resets = details.limitResetTime ? new Date(details.limitResetTime) : null;
        toast({
          type: "error",
          title: "Error Adding XDC Funds",
          message:
            remaining !== null && resets && !Number.isNaN(resets.getTime())
              ? `Daily funding limit reached. Remaining: ${formatAmount(remaining, "XDC")} XDC. Limit resets at ${resets.toLocaleString()}.`
              : err.message,
        });
        props.onLimitHit();
      } else {
        toast({ type: "error", title: errorTitle(err, "Error Adding XDC Funds"), message: serverMessage(err, "Failed to add XDC funds") });
      }
    } finally {
      setBusy(false);
      setConfirming(null);
    }
  };

  const max = () => {
    if (props.balance === null) return;
    setText(toPlainDecimal(maxXdcFunding(props.balance, props.remainingLimit), "XDC"));
  };

  return (
    <form onSubmit={review} noValidate className="grid grid-cols-1 gap-4" aria-labelledby="add-xdc-title" data-add-xdc-form>
      <h4 id="add-xdc-title" className="text-sm font-semibold">
        Add XDC funds
      </h4>
      <AmountField
        id="fund-xdc-amount"
        label="Amount (XDC)"
        symbol="XDC"
        value={text}
        onChange={setText}
        min={XDC_FUNDING_MIN_INPUT}
        step="0.01"
        disabled={props.disabled || busy}
        describedBy="fund-xdc-help"
        max={{ label: "Max", onClick: max, disabled: props.balance === null }}
      />
      <p id="fund-xdc-help" className="-mt-2 text-xs text-muted-foreground">
        More than 1 XDC. At least 0.1 XDC stays in your wallet for gas.
      </p>
      {props.balance !== null && props.balance < XDC_FUNDING_FLOOR + GAS_RESERVE && (
        // Too little XDC to fund at all: the way to get some (the on-ramp), not only a refusal (issue 11, item 10).
        <p className="-mt-2 text-xs" data-buy-xdc>
          Your wallet holds {formatAmount(props.balance, "XDC")} XDC.{" "}
          <button type="button" className="font-medium text-primary underline underline-offset-2" onClick={() => void openOnramp("buy", "/wallet")}>
            Buy XDC with INR
          </button>
        </p>
      )}
      <FeeBreakdown amount={amount} symbol="XDC" />
      <div className="flex justify-end">
        <SubmitButton busy={busy} busyLabel="Adding XDC..." disabled={props.disabled || text.trim() === ""}>
          Add XDC
        </SubmitButton>
      </div>
      <ConfirmFunding amount={confirming} symbol="XDC" repo={props.repo} busy={busy} busyLabel="Adding XDC..." onConfirm={() => void fund()} onCancel={() => setConfirming(null)} />
    </form>
  );
}

// ---- ROXN and USDC: approve, then add ----

type RoxnStep = "idle" | "approving" | "adding";

export function RoxnFundingForm(props: Omit<Parameters<typeof TokenFundingForm>[0], "token">) {
  return <TokenFundingForm token="ROXN" {...props} />;
}

export function TokenFundingForm(props: {
  token: "ROXN" | "USDC";
  repo: RepoView;
  balance: bigint | null;
  allowance: bigint | null;
  disabled: boolean;
  onAllowance: (allowance: bigint) => void;
  onFunded: () => void;
}) {
  const { token } = props;
  const lower = token.toLowerCase();
  const [text, setText] = useState("");
  const [step, setStep] = useState<RoxnStep>("idle");
  const approveKey = useActionKey();
  const fundKey = useActionKey();
  const [confirming, setConfirming] = useState<bigint | null>(null);
  const amount = parseAmount(text, token);
  const approvalFirst = needsRoxnApproval(amount, props.allowance);

  const review = (event: FormEvent) => {
    event.preventDefault();
    if (step !== "idle" || !props.repo.repoId) return;
    const problem = tokenFundingProblem(token, { amount, balance: props.balance, repositoryFullName: props.repo.fullName });
    if (problem) {
      toast({ type: "error", ...problem });
      return;
    }
    setConfirming(amount);
  };

  const submit = async () => {
    if (step !== "idle" || confirming === null || !props.repo.repoId) return;
    const amount = confirming;
    const tokenAmount = toPlainDecimal(amount, token);
    if (approvalFirst) {
      setStep("approving");
      try {
        const approved = await api<ApiResponse<"approveRoxn">>(`/api/blockchain/approve-${lower}`, {
          method: "POST",
          body: { amount: tokenAmount },
          idempotencyKey: approveKey.keyFor(`approve/${token}/${tokenAmount}`),
        });
        approveKey.settle();
        if (typeof approved.allowance !== "string") {
          toast({ type: "error", title: `${token} Approval Failed`, message: "Invalid allowance format received from server." });
          setStep("idle");
          setConfirming(null);
          return;
        }
        const allowance = parseAmount(approved.allowance, token) ?? 0n;
        props.onAllowance(allowance);
        if (allowance < amount) {
          toast({ type: "info", title: `${token} Approval Pending`, message: `${approved.message}. Try again once it is confirmed.` });
          setStep("idle");
          setConfirming(null);
          return;
        }
        transactionToast({ title: `${token} Approved`, message: approved.message || `${token} approved`, actionLabel: "View on Explorer", result: approved });
      } catch (err) {
        approveKey.settle(err);
        toast({ type: "error", title: `${token} Approval Failed`, message: serverMessage(err, `Failed to approve ${token}`) });
        setStep("idle");
        setConfirming(null);
        return;
      }
    }
    setStep("adding");
    try {
      const result = await api<ApiResponse<"fundRepositoryRoxn">>(`/api/blockchain/fund-${lower}/${props.repo.repoId}`, {
        method: "POST",
        body: { [`${lower}Amount`]: tokenAmount, repositoryFullName: props.repo.fullName },
        idempotencyKey: fundKey.keyFor(`${props.repo.repoId}/${lower}/${tokenAmount}`),
      });
      fundKey.settle();
      const { net } = feeBreakdown(amount);
      transactionToast({
        title: `${token} Funding Submitted`,
        message: `${formatAmount(net, token)} ${token} goes to the pool after the ${FEE_PERCENT_LABEL} fee.`,
        actionLabel: "View on Explorer",
        result,
      });
      setText("");
      props.onFunded();
    } catch (err) {
      fundKey.settle(err);
      toast({ type: "error", title: errorTitle(err, `Error Adding ${token} Funds`), message: serverMessage(err, `Failed to add ${token} funds`) });
    } finally {
      setStep("idle");
      setConfirming(null);
    }
  };

  const max = () => {
    if (props.balance === null || props.balance === 0n) return;
    if (isLowRoxnBalance(token === "ROXN" ? props.balance : props.balance * 10n ** 12n)) {
      toast({ type: "error", title: `Low ${token} Balance`, message: `Your ${token} balance is ${formatAmount(props.balance, token, 4)} ${token}, too little to fund the pool.` });
      return;
    }
    setText(toPlainDecimal(props.balance, token));
  };

  const busy = step !== "idle";
  return (
    <form onSubmit={review} noValidate className="grid grid-cols-1 gap-4" aria-labelledby={`add-${lower}-title`} {...{ [`data-add-${lower}-form`]: "" }}>
      <h4 id={`add-${lower}-title`} className="text-sm font-semibold">
        Add {token} funds
      </h4>
      <AmountField
        id={`fund-${lower}-amount`}
        label={`Amount (${token})`}
        symbol={token}
        value={text}
        onChange={setText}
        min={ROXN_STEP}
        step={ROXN_STEP}
        disabled={props.disabled || busy}
        describedBy={`fund-${lower}-help`}
        max={{ label: `Max ${token}`, onClick: max, disabled: props.balance === null || props.balance === 0n }}
      />
      <p id={`fund-${lower}-help`} className="-mt-2 text-xs text-muted-foreground">
        {approvalFirst
          ? `Your allowance does not cover this amount: the pool contract is approved first, then the ${token} is added.`
          : `${token} moves from your wallet to the pool in one transaction.`}
      </p>
      <FeeBreakdown amount={amount} symbol={token} />
      <div className="flex justify-end">
        <SubmitButton busy={busy} busyLabel={step === "approving" ? "Approving..." : `Adding ${token}...`} disabled={props.disabled || text.trim() === ""}>
          {approvalFirst ? `Approve & Add ${token}` : `Add ${token}`}
        </SubmitButton>
      </div>
      <ConfirmFunding
        amount={confirming}
        symbol={token}
        repo={props.repo}
        busy={busy}
        busyLabel={step === "approving" ? "Approving..." : `Adding ${token}...`}
        note={confirming !== null && needsRoxnApproval(confirming, props.allowance) ? `The pool contract is approved to take this ${token} first (one more transaction).` : undefined}
        onConfirm={() => void submit()}
        onCancel={() => setConfirming(null)}
      />
    </form>
  );
}
