import { useEffect, useState, type FormEvent } from "react";
import { api, errorMessage } from "../../lib/api.ts";
import { inputClass } from "../../lib/ui.ts";
import { formatBalance } from "../../lib/wallet-data.ts";
import { Button } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";
import { InlineAlert } from "./WalletDialog.tsx";
import type { StatementItem } from "./cashout-data.ts";

const KIND_TITLE = { payout: "Payout", funding: "Pool funding", boost: "Boost", tip: "Tip" } as const;
const linkClass = "inline-flex items-center gap-1 text-sm font-semibold text-primary hover:underline";

/** The sponsor's invoice details (name, address, tax id), shown on their invoices. */
function InvoiceProfileForm() {
  const [profile, setProfile] = useState<{ name: string; address: string; taxId: string } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    api("/api/statements/invoice-profile").then(setProfile, (err) => setProblem(errorMessage(err, "Could not load your invoice details.")));
  }, []);
  if (!profile) return problem ? <InlineAlert message={problem} /> : null;
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(null);
    setProblem(null);
    try {
      setProfile(await api("/api/statements/invoice-profile", { method: "PUT", body: profile }));
      setSaved("Saved: your invoices show these details.");
    } catch (err) {
      setProblem(errorMessage(err, "Could not save."));
    }
  };
  return (
    <details className="rounded-xl border border-border p-4">
      <summary className="cursor-pointer font-semibold">Invoice details</summary>
      <form className="mt-3 grid gap-3" onSubmit={save}>
        <p className="text-sm text-muted-foreground">Shown on the invoices of what you fund, boost or tip, for your accounts.</p>
        <label className="grid gap-1 text-sm">
          <span className="font-semibold">Name on invoices</span>
          <input className={inputClass} value={profile.name} onChange={(e) => setProfile({ ...profile, name: e.target.value })} maxLength={200} />
        </label>
        <label className="grid gap-1 text-sm">
          <span className="font-semibold">Address</span>
          <textarea className={inputClass} rows={3} value={profile.address} onChange={(e) => setProfile({ ...profile, address: e.target.value })} maxLength={500} />
        </label>
        <label className="grid gap-1 text-sm">
          <span className="font-semibold">Tax id (GSTIN, VAT number…)</span>
          <input className={inputClass} value={profile.taxId} onChange={(e) => setProfile({ ...profile, taxId: e.target.value })} maxLength={64} />
        </label>
        <div className="flex justify-end">
          <Button type="submit">Save</Button>
        </div>
        {saved && <InlineAlert tone="success" message={saved} />}
        {problem && <InlineAlert message={problem} />}
      </form>
    </details>
  );
}

/** Items of a statement, each with its PDF receipt or invoice. */
function ItemList({ items }: { items: StatementItem[] }) {
  return (
    <ul className="divide-y divide-border rounded-xl border border-border">
      {items.map((item) => (
        <li key={item.id} className="grid gap-1 px-3 py-3 text-sm sm:px-4" data-statement-item={item.id} data-statement-kind={item.kind}>
          <div className="flex items-start justify-between gap-3">
            <span className="font-semibold">
              {KIND_TITLE[item.kind]}
              {item.repository && ` · ${item.repository}`}
              {item.issueNumber !== null && ` #${item.issueNumber}`}
              {item.pullNumber !== null && ` (PR #${item.pullNumber})`}
            </span>
            <span className="shrink-0 font-semibold tabular-nums">
              {item.direction === "out" ? "-" : "+"}
              {formatBalance(item.direction === "out" ? item.amount : item.net, item.currency)} {item.currency}
            </span>
          </div>
          <div className="flex flex-wrap items-center justify-between gap-x-3 text-muted-foreground">
            <span>
              {new Date(item.date).toLocaleDateString(undefined, { dateStyle: "medium" })} · {item.from.label} → {item.to.label}
              {item.fee !== "0" && ` · fee ${item.fee} ${item.currency}`}
            </span>
            <span data-statement-value>
              {item.price ? [item.valueInr && `₹${item.valueInr}`, item.valueUsd && `$${item.valueUsd}`].filter(Boolean).join(" · ") : "no price recorded"}
            </span>
          </div>
          <div className="flex flex-wrap items-center justify-between gap-x-3 text-xs text-muted-foreground">
            <span>{item.price ? `${item.price.source}, ${new Date(item.price.pricedAt).toLocaleString()}` : ""}</span>
            <a className={linkClass} href={`/api/statements/items/${item.id}/pdf`} download data-receipt-pdf>
              <Icon name="fileText" className="h-3 w-3" /> {item.direction === "out" || (item.kind !== "payout" && item.kind !== "tip") ? "Invoice" : "Receipt"} (PDF)
            </a>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** A repository's statement (its pool's fundings, boosts and payouts), loaded when opened. */
function RepositoryStatement({ repoId, name, year }: { repoId: number; name: string; year: number }) {
  const [items, setItems] = useState<StatementItem[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const load = () => {
    if (items || problem) return;
    api(`/api/statements/repositories/${repoId}?year=${year}`).then((s) => setItems(s.items), (err) => setProblem(errorMessage(err, "Failed to load the statement")));
  };
  return (
    <details className="rounded-xl border border-border p-3" onToggle={load} data-repository-statement={name}>
      <summary className="cursor-pointer text-sm font-semibold">
        {name}: fundings, boosts and payouts in {year}
      </summary>
      <div className="mt-3 grid gap-2">
        <a className={linkClass} href={`/api/statements/repositories/${repoId}/csv?year=${year}`} download data-repository-csv={name}>
          <Icon name="fileText" className="h-4 w-4" /> {name} {year} as CSV
        </a>
        {problem ? <InlineAlert message={problem} /> : !items ? <Spinner className="h-5 w-5 text-muted-foreground" label="Loading" /> : items.length ? <ItemList items={items} /> : <p className="text-sm text-muted-foreground">Nothing in {year}.</p>}
      </div>
    </details>
  );
}

/**
 * Statements (issue 40): the year's payouts, fundings, boosts and tips with their value at the time (and the
 * price source that gave it), each with its PDF receipt or invoice; the year as CSV for a tax tool; a yearly CSV
 * for each repository the user registered or funded; the invoice details.
 */
export function StatementsSection() {
  const thisYear = new Date().getUTCFullYear();
  const [year, setYear] = useState(thisYear);
  const [statement, setStatement] = useState<{ priceSource: string | null; items: StatementItem[] } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    setStatement(null);
    setProblem(null);
    api(`/api/statements?year=${year}`).then(setStatement, (err) => setProblem(errorMessage(err, "Failed to load the statement")));
  }, [year]);
  const repositories = new Map<number, string>();
  for (const item of statement?.items ?? []) if (item.repoId !== null && item.repository && (item.direction === "out" || item.kind !== "payout")) repositories.set(item.repoId, item.repository);

  return (
    <section aria-labelledby="statements-title" className="grid gap-3" data-statements>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="statements-title" className="font-semibold">
          Statements and receipts
        </h2>
        <label className="flex items-center gap-2 text-sm">
          Year
          <select className={`${inputClass} w-auto`} value={year} onChange={(e) => setYear(Number(e.target.value))} aria-label="Statement year">
            {[thisYear, thisYear - 1, thisYear - 2].map((y) => (
              <option key={y} value={y}>
                {y}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="flex flex-wrap gap-4">
        <a className={linkClass} href={`/api/statements/csv?year=${year}&fiat=INR`} download data-statement-csv>
          <Icon name="fileText" className="h-4 w-4" /> {year} as CSV (INR)
        </a>
        <a className={linkClass} href={`/api/statements/csv?year=${year}&fiat=USD`} download>
          <Icon name="fileText" className="h-4 w-4" /> {year} as CSV (USD)
        </a>
      </div>
      <p className="text-xs text-muted-foreground">
        CSV columns follow Koinly's universal format. Values are at the price recorded when each transaction happened
        {statement?.priceSource ? ` (now from ${statement.priceSource})` : "; no price source is configured now"}.
      </p>
      {problem ? (
        <p role="alert" className="text-sm text-destructive">
          {problem}
        </p>
      ) : !statement ? (
        <div className="flex justify-center py-4">
          <Spinner className="h-5 w-5 text-muted-foreground" label="Loading the statement" />
        </div>
      ) : statement.items.length === 0 ? (
        <p className="rounded-xl border border-dashed border-border px-4 py-6 text-center text-sm text-muted-foreground">Nothing in {year} yet.</p>
      ) : (
        <ItemList items={statement.items} />
      )}
      {[...repositories].map(([repoId, name]) => (
        <RepositoryStatement key={`${repoId}-${year}`} repoId={repoId} name={name} year={year} />
      ))}
      <InvoiceProfileForm />
    </section>
  );
}
