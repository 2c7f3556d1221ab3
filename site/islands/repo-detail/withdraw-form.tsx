import { useState, type FormEvent } from "react";
import { api } from "../../lib/api.ts";
import { parseAmount, toPlainDecimal, type Currency } from "../../lib/funding-rules.ts";
import { formatAmount } from "../../lib/format.ts";
import type { RepoView } from "../../lib/repo-detail-data.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";
import { serverMessage, transactionToast, useActionKey, type TransactionResult } from "./actions.ts";
import { AmountField, SubmitButton } from "./funding-forms.tsx";
import { Dialog } from "../ui/dialog.tsx";

const shortAddress = (address: string) => (address.length > 14 ? `${address.slice(0, 7)}…${address.slice(-5)}` : address);

/**
 * Withdraw unallocated funds (issue 11): a pool manager takes money that no bounty holds back to their own
 * wallet, fee-free. A confirm dialog names the amount, where it goes and what it means before anything is sent.
 */
export function WithdrawForm(props: { repo: RepoView; currency: Currency; pool: bigint | null; walletAddress: string | null; disabled: boolean; onWithdrawn: () => void }) {
  const { currency, repo } = props;
  const [text, setText] = useState("");
  const [confirming, setConfirming] = useState<bigint | null>(null);
  const [busy, setBusy] = useState(false);
  const action = useActionKey();
  const id = `withdraw-${currency.toLowerCase()}`;
  // Nothing to withdraw (issue 27: the button was enabled beside '0.0000' and answered with an error): disabled, and the line below says why.
  const empty = props.pool === 0n;
  const entered = parseAmount(text, currency);
  const canReview = !props.disabled && !busy && !empty && entered !== null && entered > 0n;
  const fail = (message: string) => toast({ type: "error", title: `Error Withdrawing ${currency}`, message });

  const review = (event: FormEvent) => {
    event.preventDefault();
    const amount = parseAmount(text, currency);
    if (amount === null || amount <= 0n) return fail(`Please enter a valid ${currency} amount.`);
    if (props.pool !== null && amount > props.pool) return fail(`Amount cannot exceed available ${currency} pool balance (${formatAmount(props.pool, currency, 4)} ${currency})`);
    setConfirming(amount);
  };

  const withdraw = async () => {
    if (confirming === null || busy || !repo.repoId) return;
    const amountText = toPlainDecimal(confirming, currency);
    setBusy(true);
    try {
      const result = await api(`/api/blockchain/repository/${repo.repoId}/withdraw`, {
        method: "POST",
        body: { currency, amount: amountText, repositoryFullName: repo.fullName },
        idempotencyKey: action.keyFor(`${repo.repoId}/${currency}/${amountText}`),
        timeoutMs: 15_000,
      });
      action.settle();
      transactionToast({ title: `${currency} Withdrawn`, message: `${formatAmount(confirming, currency)} ${currency} went to your wallet.`, actionLabel: "View on Explorer", result });
      setConfirming(null);
      setText("");
      props.onWithdrawn();
    } catch (err) {
      action.settle(err);
      fail(serverMessage(err, "The withdrawal failed."));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={review} noValidate className="grid grid-cols-1 gap-4" aria-labelledby={`${id}-title`} data-withdraw={currency}>
      <h4 id={`${id}-title`} className="text-sm font-semibold">
        Withdraw {currency} from the pool
      </h4>
      <AmountField
        id={`${id}-amount`}
        label={`Amount to withdraw (${currency})`}
        symbol={currency}
        value={text}
        onChange={setText}
        min="0.0001"
        step="0.0001"
        disabled={props.disabled || busy || empty}
        describedBy={`${id}-help`}
        max={{ label: "All", onClick: () => props.pool !== null && setText(toPlainDecimal(props.pool, currency)), disabled: !props.pool }}
      />
      <p id={`${id}-help`} className="-mt-2 text-xs text-muted-foreground">
        Unallocated: {props.pool !== null ? `${formatAmount(props.pool, currency)} ${currency}` : "—"}. Bounties already set stay as they are. No fee.
      </p>
      {empty && (
        <p id={`${id}-why`} className="-mt-2 text-xs font-medium text-muted-foreground" data-withdraw-empty>
          Nothing to withdraw: no {currency} in this pool is free of bounties.
        </p>
      )}
      <div className="flex justify-end">
        <SubmitButton busy={false} busyLabel="" disabled={!canReview} describedBy={empty ? `${id}-why` : undefined}>
          Withdraw {currency}
        </SubmitButton>
      </div>
      <Dialog
        open={confirming !== null}
        onOpenChange={(open) => !open && !busy && setConfirming(null)}
        modalLocked={busy}
        title={confirming !== null ? `Withdraw ${formatAmount(confirming, currency, 4)} ${currency}?` : "Withdraw"}
        description={`From the ${repo.fullName} pool to your wallet${props.walletAddress ? ` ${shortAddress(props.walletAddress)}` : ""}.`}
      >
        <div className="mt-4 grid gap-4" data-withdraw-confirm>
          <p className="text-sm">
            The amount leaves the pool for your Issuepool wallet, with no fee (the transaction's gas is paid from your wallet). It is then no longer
            available for new bounties; bounties already set are not touched.
          </p>
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Button variant="outline" onClick={() => setConfirming(null)} disabled={busy}>
              Cancel
            </Button>
            <Button onClick={() => void withdraw()} disabled={busy}>
              {busy ? "Withdrawing..." : `Withdraw ${currency}`}
            </Button>
          </div>
        </div>
      </Dialog>
    </form>
  );
}
