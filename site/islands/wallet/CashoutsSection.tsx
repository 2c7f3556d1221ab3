import { useEffect, useState, type FormEvent } from "react";
import { api, errorMessage } from "../../lib/api.ts";
import { badgeClass, inputClass } from "../../lib/ui.ts";
import { formatBalance } from "../../lib/wallet-data.ts";
import { watchUntilSettled } from "../../lib/wallet-resource.ts";
import { shortHash } from "../../lib/format.ts";
import { useResourceState } from "../ui/use-store.ts";
import { Button } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import { InlineAlert } from "./WalletDialog.tsx";
import { CASHOUT_STATE_TEXT, cashouts, cashoutSettings, isOpenCashout, type CashoutEntry } from "./cashout-data.ts";

const TONES = {
  success: "border-success/40 bg-success/10 text-success",
  failed: "border-destructive/40 bg-destructive/10 text-destructive",
  pending: "border-warning/40 bg-warning/10 text-warning",
} as const;
const inr = (value: string) => `₹${Number(value).toLocaleString("en-IN", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

function TxLink({ label, hash, url }: { label: string; hash: string | null; url: string | null }) {
  if (!hash) return null;
  return url ? (
    <a href={url} target="_blank" rel="noopener noreferrer" title={hash} className="inline-flex items-center gap-1 font-mono text-primary hover:underline">
      {label} {shortHash(hash)} <Icon name="external" className="h-3 w-3" />
    </a>
  ) : (
    <span className="font-mono" title={hash}>
      {label} {shortHash(hash)}
    </span>
  );
}

/** One cash-out: what, to which UPI id, the step it is at in words, and its transactions. */
function CashoutRow({ entry }: { entry: CashoutEntry }) {
  const state = CASHOUT_STATE_TEXT[entry.status];
  return (
    <li className="grid gap-1 px-3 py-3 sm:px-4" data-cashout={entry.id} data-cashout-status={entry.status}>
      <div className="flex items-start justify-between gap-3">
        <span className="font-semibold">
          Cash-out to {entry.upiId}
          {entry.trigger === "auto" && <span className={`${badgeClass} ml-2 border-border bg-muted font-medium text-foreground`}>Automatic</span>}
        </span>
        <span className="shrink-0 text-right font-semibold tabular-nums">
          -{formatBalance(entry.amount, entry.currency)} {entry.currency}
        </span>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 text-sm">
        <span className="text-muted-foreground">
          {inr(entry.fiatAmount)} at {inr(entry.rate)} per {entry.currency}
          {entry.orderId && ` · Order ${entry.orderId}`}
          {entry.payoutReference && ` · UTR ${entry.payoutReference}`}
        </span>
        <span className={`${badgeClass} ${TONES[state.tone]}`} data-status={entry.status}>
          {state.label}
        </span>
      </div>
      {(entry.status === "refunded" || entry.status === "failed" || entry.status === "cancelled") && (
        <p className="text-sm" data-cashout-outcome>
          {entry.status === "refunded"
            ? `The payout failed (${entry.failureReason}); the ${entry.amount} ${entry.currency} came back to your wallet.`
            : entry.status === "failed"
              ? `The payout failed (${entry.failureReason}); the provider is returning the ${entry.currency} to your wallet.`
              : `${entry.failureReason ?? "Cancelled"}: nothing left your wallet.`}
        </p>
      )}
      <div className="flex flex-wrap items-center justify-between gap-x-3 text-xs text-muted-foreground">
        <time dateTime={entry.createdAt}>{when(entry.createdAt)}</time>
        <span className="flex flex-wrap gap-3">
          <TxLink label="Sent" hash={entry.transactionHash} url={entry.explorerUrl} />
          <TxLink label="Returned" hash={entry.refundTransactionHash} url={entry.refundExplorerUrl} />
        </span>
      </div>
    </li>
  );
}

/** Automatic cash-out: every reward above a threshold goes to the UPI id when it arrives. */
function AutoCashout() {
  const settings = useResourceState(cashoutSettings);
  const [editing, setEditing] = useState<{ enabled: boolean; upiId: string; minXdc: string; minUsdc: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const data = settings.data;
  if (!data || !data.available) return null;
  const form = editing ?? { enabled: data.auto.enabled, upiId: data.upiId ?? "", minXdc: data.auto.minXdc ?? "", minUsdc: data.auto.minUsdc ?? "" };
  const change = (patch: Partial<typeof form>) => setEditing({ ...form, ...patch });
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setProblem(null);
    try {
      await api("/api/wallet/cashout/settings", {
        method: "PUT",
        body: { upiId: form.upiId.trim() || null, auto: { enabled: form.enabled, minXdc: form.minXdc.trim() || null, minUsdc: form.minUsdc.trim() || null } },
      });
      setEditing(null);
      await cashoutSettings.load({ force: true });
    } catch (err) {
      setProblem(errorMessage(err, "Could not save."));
    } finally {
      setSaving(false);
    }
  };
  return (
    <form className="grid gap-3 rounded-xl border border-border p-4" onSubmit={save} data-auto-cashout={data.auto.enabled ? "on" : "off"}>
      <label className="flex items-center gap-2 font-semibold">
        <input type="checkbox" checked={form.enabled} onChange={(e) => change({ enabled: e.target.checked })} />
        Cash out rewards automatically
      </label>
      <p className="text-sm text-muted-foreground">
        Each reward above the amount you set is cashed out to your UPI id when it arrives. If that cannot happen (the provider is unavailable, your identity check is not
        done), the reward simply stays in your wallet and we tell you why.
      </p>
      <div className="grid gap-3 sm:grid-cols-3">
        <label className="grid gap-1 text-sm">
          <span className="font-semibold">UPI id</span>
          <input className={inputClass} value={form.upiId} onChange={(e) => change({ upiId: e.target.value })} placeholder="name@bank" autoComplete="off" spellCheck={false} aria-label="UPI id for automatic cash-out" />
        </label>
        <label className="grid gap-1 text-sm">
          <span className="font-semibold">XDC rewards above</span>
          <input className={`${inputClass} tabular-nums`} value={form.minXdc} onChange={(e) => change({ minXdc: e.target.value })} inputMode="decimal" placeholder="never" aria-label="XDC threshold" />
        </label>
        <label className="grid gap-1 text-sm">
          <span className="font-semibold">USDC rewards above</span>
          <input className={`${inputClass} tabular-nums`} value={form.minUsdc} onChange={(e) => change({ minUsdc: e.target.value })} inputMode="decimal" placeholder="never" aria-label="USDC threshold" />
        </label>
      </div>
      <div className="flex items-center justify-end gap-2">
        {editing && (
          <Button variant="ghost" onClick={() => setEditing(null)} disabled={saving}>
            Cancel
          </Button>
        )}
        <Button type="submit" disabled={saving || !editing}>
          Save
        </Button>
      </div>
      {problem && <InlineAlert message={problem} />}
      {data.kept.length > 0 && (
        <ul className="grid gap-1 text-sm" data-kept-rewards>
          {data.kept.map((kept) => (
            <li key={kept.transactionHash} className="text-muted-foreground">
              {when(kept.createdAt)}: {kept.amount} {kept.currency} kept in your wallet, not cashed out automatically ({kept.reason}).
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

/**
 * The Transactions tab's cash-outs (issue 40): each with the step it is at (docs/wallet.md, "Cash out to UPI"),
 * read again until it settles; and the automatic cash-out setting.
 */
export function CashoutsSection({ onSettled }: { onSettled: () => void }) {
  const list = useResourceState(cashouts);
  useEffect(() => {
    void cashouts.load();
    void cashoutSettings.load();
    return watchUntilSettled(cashouts, isOpenCashout, onSettled);
  }, [onSettled]);
  return (
    <section aria-labelledby="cashouts-title" className="grid gap-3" data-cashouts>
      <div className="flex items-center justify-between gap-2">
        <h2 id="cashouts-title" className="font-semibold">
          Cash-outs to UPI
        </h2>
        <Button variant="ghost" size="sm" onClick={() => void cashouts.load({ force: true })} disabled={list.loading} aria-label="Refresh cash-outs">
          <Icon name="refresh" className={`h-4 w-4 ${list.loading ? "animate-spin" : ""}`} /> Refresh
        </Button>
      </div>
      {list.error && list.data === undefined ? (
        <p role="alert" className="text-sm text-destructive">
          {list.error}
        </p>
      ) : list.data === undefined ? null : list.data.length === 0 ? (
        <p className="rounded-xl border border-dashed border-border px-4 py-6 text-center text-sm text-muted-foreground">No cash-outs yet. Cash out XDC or USDC to UPI from the XDC Wallet tab.</p>
      ) : (
        <ul className="divide-y divide-border rounded-xl border border-border">
          {list.data.map((entry) => (
            <CashoutRow key={entry.id} entry={entry} />
          ))}
        </ul>
      )}
      <AutoCashout />
    </section>
  );
}
