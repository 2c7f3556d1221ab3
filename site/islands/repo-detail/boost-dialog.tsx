import { useEffect, useState } from "react";
import { api, type ApiResponse } from "../../lib/api.ts";
import type { BountyInfo, RepoIssue, RepoView } from "../../lib/repo-detail-data.ts";
import { bountyAmount } from "../../lib/repo-detail-data.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";
import { Spinner } from "../ui/spinner.tsx";
import { Dialog } from "../ui/dialog.tsx";
import { serverMessage, useActionKey } from "./actions.ts";
import { inputClass } from "../../lib/ui.ts";
import { parseAmount } from "../../lib/funding-rules.ts";
import { decimalToUnits, formatFull, type Currency } from "../../lib/format.ts";
type Terms = ApiResponse<"getFundingTerms">;

/**
 * Boost (issue 29): anyone signed in adds to an issue's bounty from their own wallet, in the bounty's currency
 * (any currency when the issue has none yet: the boost starts a community bounty). It says the fee (read from the
 * contract), the minimum and what happens to the money before anything is sent.
 */
export function BoostDialog(props: { repo: RepoView; issue: RepoIssue | null; bounty: BountyInfo | null; open: boolean; onOpenChange: (open: boolean) => void; onDone: () => void }) {
  const { repo, issue, bounty } = props;
  const fixed: Currency | null = bounty ? bountyAmount(bounty).currency : null;
  const [currency, setCurrency] = useState<Currency>(fixed ?? "XDC");
  const [amount, setAmount] = useState("");
  const [anonymous, setAnonymous] = useState(false);
  const [expires, setExpires] = useState("");
  const [terms, setTerms] = useState<Terms | null>(null);
  const [busy, setBusy] = useState(false);
  const action = useActionKey();

  useEffect(() => {
    if (props.open) api("/api/funding/terms").then(setTerms, () => setTerms(null));
  }, [props.open]);

  if (!issue) return null;
  const minimum = terms?.minimums[currency] ?? (currency === "XDC" ? "1" : "0.0001");
  const fee = terms ? terms.feePercent : "0.5";
  // What leaves the wallet, the fee and what the bounty gets, in figures (issue 38: only words about the fee).
  const gross = parseAmount(amount.trim(), currency);
  const feeUnits = gross !== null && gross > 0n ? (gross * BigInt(terms?.feeBps ?? 50)) / 10_000n : null;
  const money = (value: bigint) => `${formatFull(value, currency)} ${currency}`;

  const submit = async () => {
    if (busy || !amount) return;
    setBusy(true);
    const body = { currency, amount: amount.trim(), anonymous, expiresAt: expires ? new Date(`${expires}T00:00:00Z`).toISOString() : null };
    try {
      await api(`/api/funding/issues/${repo.owner}/${repo.name}/${issue.number}/boosts`, {
        method: "POST",
        body,
        idempotencyKey: action.keyFor(JSON.stringify(body)),
        timeoutMs: 20_000,
      });
      action.settle();
      toast({ type: "success", title: "Boost sent", message: `${body.amount} ${currency} is on its way to the bounty of issue #${issue.number}.` });
      props.onOpenChange(false);
      props.onDone();
    } catch (err) {
      action.settle(err);
      toast({ type: "error", title: "Boost failed", message: serverMessage(err, "Please try again.") });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={props.open}
      onOpenChange={(open) => !busy && props.onOpenChange(open)}
      modalLocked={busy}
      title={`Boost issue #${issue.number}`}
      description={<span className="line-clamp-2">{issue.title}</span>}
      footer={
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => props.onOpenChange(false)} disabled={busy}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={busy || !amount} data-boost-submit>
            {busy && <Spinner className="h-3.5 w-3.5" />} Boost
          </Button>
        </div>
      }
    >
      <div className="mt-5 grid gap-4" data-boost-dialog>
        <label className="grid gap-1 text-sm font-medium">
          Amount
          <span className="flex gap-2">
            <input className={inputClass} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} placeholder={minimum} aria-label="Boost amount" name="boost-amount" />
            {fixed ? (
              <span className="self-center font-semibold">{fixed}</span>
            ) : (
              <select className={inputClass} value={currency} onChange={(e) => setCurrency(e.target.value as Currency)} aria-label="Currency">
                <option>XDC</option>
                <option>ROXN</option>
                <option>USDC</option>
              </select>
            )}
          </span>
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={anonymous} onChange={(e) => setAnonymous(e.target.checked)} name="boost-anonymous" /> Fund anonymously (your name is not shown)
        </label>
        <label className="grid gap-1 text-sm font-medium">
          Return it to me if not fixed by (optional)
          <input className={inputClass} type="date" value={expires} onChange={(e) => setExpires(e.target.value)} aria-label="Expiry date" />
        </label>
        {gross !== null && feeUnits !== null && (
          <dl className="grid gap-1 rounded-xl border border-border bg-background/60 p-3 text-sm" aria-label="What the boost costs" data-boost-figures>
            <div className="flex justify-between gap-3">
              <dt className="text-muted-foreground">Leaves your wallet</dt>
              <dd className="tabular-nums">{money(gross)}</dd>
            </div>
            <div className="flex justify-between gap-3">
              <dt className="text-muted-foreground">Platform fee ({fee} %)</dt>
              <dd className="tabular-nums">− {money(feeUnits)}</dd>
            </div>
            <div className="flex justify-between gap-3 border-t border-border pt-1 font-semibold">
              <dt>Added to the bounty</dt>
              <dd className="tabular-nums" data-boost-net>
                {money(gross - feeUnits)}
              </dd>
            </div>
          </dl>
        )}
        <p className="text-xs text-muted-foreground">
          Minimum {minimum} {currency}. A {fee} % platform fee (read from the contract) comes out of the amount; the rest is your share of the bounty. Your share is paid to
          whoever fixes the issue, or comes back to you: after your expiry date, if the issue is closed as not planned, or when you take it back while nobody has claimed the
          issue. {bounty ? "" : "This issue has no bounty yet: your boost starts a community bounty."}
        </p>
        {currency === "XDC" && terms?.funderLimit && (
          // The figure the server checks an XDC boost against (money/limits.ts): the funder's own, across pools and boosts.
          <p className="text-xs text-muted-foreground" data-boost-limit>
            You can boost up to {formatFull(decimalToUnits(terms.funderLimit.remainingXdc, "XDC") ?? 0n, "XDC")} XDC today: your own limit of{" "}
            {formatFull(decimalToUnits(terms.funderLimit.dailyLimitXdc, "XDC") ?? 0n, "XDC")} XDC a day across all pools and boosts.
          </p>
        )}
      </div>
    </Dialog>
  );
}
