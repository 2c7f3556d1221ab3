import { useState, type FormEvent } from "react";
import { api } from "../../lib/api.ts";
import { parseAmount, toPlainDecimal, type Currency } from "../../lib/funding-rules.ts";
import { formatAmount } from "../../lib/format.ts";
import type { RepoIssue, RepoView } from "../../lib/repo-detail-data.ts";
import { inputClass } from "../../lib/ui.ts";
import { toast } from "../../stores/toast.ts";
import { serverMessage, transactionToast, useActionKey, type TransactionResult } from "./actions.ts";
import { AmountField, SubmitButton } from "./funding-forms.tsx";

/** The funding panel's assign-bounty form (spec section 5: an issue selected, an amount above 0, the repository name). */

export function AssignBountyForm(props: {
  repo: RepoView;
  currency: Currency;
  issues: RepoIssue[];
  pool: bigint | null;
  disabled: boolean;
  onAllocated: (issueNumber: number, result: TransactionResult | null) => void;
}) {
  const { currency } = props;
  const [issueNumber, setIssueNumber] = useState("");
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const action = useActionKey();
  const selected = props.issues.find((i) => String(i.number) === issueNumber) ?? null;
  const id = `assign-${currency.toLowerCase()}`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const fail = (message: string) => toast({ type: "error", title: `Error Assigning ${currency} Bounty`, message });
    if (!selected) return fail("Please select an issue.");
    const amount = parseAmount(text, currency);
    if (amount === null || amount <= 0n) return fail("Please enter a valid bounty amount.");
    if (!props.repo.fullName || !props.repo.repoId) return fail("Repository details missing.");
    const bountyAmount = toPlainDecimal(amount, currency);
    setBusy(true);
    try {
      const result = await api(`/api/blockchain/allocate-bounty/${props.repo.repoId}/${selected.number}`, {
        method: "POST",
        body: {
          bountyAmount,
          isRoxn: currency === "ROXN",
          currency,
          githubRepoFullName: props.repo.fullName,
          issueTitle: selected.title,
          issueUrl: selected.html_url,
        },
        idempotencyKey: action.keyFor(`${props.repo.repoId}/${selected.number}/${currency}/${bountyAmount}`),
        timeoutMs: 15_000,
      });
      action.settle();
      transactionToast({
        title: `${currency} Bounty Assigned`,
        message: `${formatAmount(amount, currency)} ${currency} on issue #${selected.number}.`,
        actionLabel: "View on Explorer",
        result,
      });
      props.onAllocated(selected.number, result);
      setIssueNumber("");
      setText("");
    } catch (err) {
      action.settle(err);
      fail(serverMessage(err, "Failed to allocate bounty"));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-4" aria-labelledby={`${id}-title`} data-assign-bounty={currency}>
      <h4 id={`${id}-title`} className="text-sm font-semibold">
        Assign {currency === "XDC" ? "an" : "a"} {currency} bounty
      </h4>
      <div>
        <label htmlFor={`${id}-issue`} className="text-sm font-medium">
          Issue
        </label>
        <select
          id={`${id}-issue`}
          value={issueNumber}
          onChange={(e) => setIssueNumber(e.target.value)}
          disabled={props.disabled || busy || props.issues.length === 0}
          className={`${inputClass} mt-1.5`}
        >
          <option value="">{props.issues.length ? "Select an issue" : "No open issue without a bounty"}</option>
          {props.issues.map((issue) => (
            <option key={issue.id} value={issue.number}>
              #{issue.number} {issue.title}
            </option>
          ))}
        </select>
      </div>
      {selected && (
        <>
          <AmountField
            id={`${id}-amount`}
            label={`Bounty amount (${currency})`}
            symbol={currency}
            value={text}
            onChange={setText}
            min={currency === "XDC" ? "1" : "0.0001"}
            step={currency === "XDC" ? "0.01" : "0.0001"}
            disabled={props.disabled || busy}
            describedBy={`${id}-help`}
          />
          <p id={`${id}-help`} className="-mt-2 text-xs text-muted-foreground">
            Available: {props.pool !== null ? `${formatAmount(props.pool, currency)} ${currency}` : "—"}. Bounties are final once set.
          </p>
          <div className="flex justify-end">
            <SubmitButton busy={busy} busyLabel="Assigning..." disabled={props.disabled}>
              Assign {currency} Bounty
            </SubmitButton>
          </div>
        </>
      )}
    </form>
  );
}
