import { useEffect, useState } from "react";
import { sharesTotal } from "../../lib/split-shares.ts";
import { api, errorMessage, newIdempotencyKey, type ApiResponse } from "../../lib/api.ts";
import { toast } from "../../stores/toast.ts";
import { buttonClass, cardClass, inputClass } from "../../lib/ui.ts";
import TipButton from "../tips/TipButton.tsx";

type Split = ApiResponse<"getIssueSplit">;
type Row = { login: string; percent: string };

const when = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;
const STATUS_TEXT: Record<Split["status"], string> = {
  window: "Release window open",
  releasing: "Being paid",
  released: "Paid",
  superseded: "Paid another way",
};

/**
 * Shared rewards on the repository page (issue 29, item 4): the bounties of co-authored pull requests, each
 * person's share and when the payout goes out (the release window); the pool manager (`canEdit`, checked again by
 * the server) edits the shares while they may. A Tip button beside each person.
 */
export default function SharedRewards({ repoId, canEdit = false, initial }: { repoId: number; canEdit?: boolean; initial?: Split[] }) {
  const [splits, setSplits] = useState<Split[] | null>(initial ?? null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<{ splits: Split[] }>(`/api/splits/${repoId}`).then(
      (r) => setSplits(r.splits),
      (err) => setError(errorMessage(err, "Shared rewards could not be loaded.")),
    );
  useEffect(() => {
    // The repository page may already have asked (it loads this island only when there are splits).
    if (!initial) void load();
  }, [repoId]);

  if (error) return <p role="alert" className="text-sm text-destructive">{error}</p>;
  if (!splits || splits.length === 0) return null;
  return (
    <section aria-labelledby="shared-rewards-title" className={`${cardClass} grid gap-4 p-4`} data-shared-rewards>
      <div>
        <h2 id="shared-rewards-title" className="font-semibold">Shared rewards</h2>
        <p className="text-sm text-muted-foreground">
          Bounties earned by pull requests with co-authors are shared: equal shares by default, paid after a release window in which the pool manager can change them. The rounding remainder goes to the pull request's author.
        </p>
      </div>
      {splits.map((split) => (
        <SplitCard key={`${split.repoId}:${split.issueNumber}`} split={split} canEdit={canEdit} onSaved={(s) => setSplits((all) => all?.map((x) => (x.issueNumber === s.issueNumber ? s : x)) ?? null)} />
      ))}
    </section>
  );
}

function SplitCard({ split, canEdit, onSaved }: { split: Split; canEdit: boolean; onSaved: (split: Split) => void }) {
  const [editing, setEditing] = useState<Row[] | null>(null);
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  /** The held share the pool manager is asked to confirm returning, with the key of that one action (sent again on a retry). */
  const [returning, setReturning] = useState<{ login: string; key: string; busy: boolean } | null>(null);
  const editable = canEdit && (split.status === "window" || (split.status === "releasing" && split.shares.some((s) => s.status === "held")));

  const returnShare = async (login: string, key: string) => {
    setReturning({ login, key, busy: true });
    setMessage(null);
    try {
      const result = await api<ApiResponse<"returnHeldShare">>(`/api/splits/${split.repoId}/${split.issueNumber}/shares/${encodeURIComponent(login)}/return`, { method: "POST", idempotencyKey: key });
      toast({ type: "success", title: "Share returned", message: result.message });
      onSaved(await api<Split>(`/api/splits/${split.repoId}/${split.issueNumber}`));
      setReturning(null);
    } catch (err) {
      setMessage(errorMessage(err, "The share could not be returned to the pool."));
      setReturning({ login, key, busy: false });
    }
  };
  // Saved only when the shares make the whole bounty (issue 38: the button was enabled at any total).
  const { percent: sum, saveable } = sharesTotal(editing ?? []);

  const save = async () => {
    if (!editing) return;
    setSaving(true);
    setMessage(null);
    try {
      const saved = await api<Split>(`/api/splits/${split.repoId}/${split.issueNumber}`, { method: "PUT", body: { shares: editing.filter((r) => r.login.trim()) } });
      onSaved(saved);
      setEditing(null);
    } catch (err) {
      setMessage(errorMessage(err, "The shares could not be saved."));
    } finally {
      setSaving(false);
    }
  };

  return (
    <article className="rounded-lg border border-border p-3" data-split={split.issueNumber} data-split-status={split.status}>
      <header className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="text-sm font-medium">
          Issue #{split.issueNumber} · pull request #{split.pullNumber} by @{split.author} · {split.amount} {split.currency}
        </h3>
        <span className="text-xs text-muted-foreground" data-split-release>
          {STATUS_TEXT[split.status]}
          {split.status === "window" && <> · paid after {when(split.releaseAt)}</>}
        </span>
      </header>
      {editing ? (
        <div className="mt-3 grid gap-2">
          {editing.map((row, i) => (
            <div key={i} className="flex items-center gap-2">
              <input aria-label="GitHub login" className={`${inputClass} w-40`} value={row.login} onChange={(e) => setEditing(editing.map((r, j) => (j === i ? { ...r, login: e.target.value } : r)))} />
              <input aria-label="Percent" className={`${inputClass} w-20`} inputMode="decimal" value={row.percent} onChange={(e) => setEditing(editing.map((r, j) => (j === i ? { ...r, percent: e.target.value } : r)))} />
              <span className="text-sm">%</span>
              <button type="button" className={buttonClass("ghost", "sm")} onClick={() => setEditing(editing.filter((_, j) => j !== i))} aria-label={`Remove @${row.login}`}>
                Remove
              </button>
            </div>
          ))}
          <div className="flex flex-wrap items-center gap-2">
            <button type="button" className={buttonClass("outline", "sm")} onClick={() => setEditing([...editing, { login: "", percent: "" }])}>
              Add a person
            </button>
            <span id={`split-sum-${split.issueNumber}`} className={`text-sm ${saveable ? "text-muted-foreground" : "text-destructive"}`} data-split-sum>
              Total {sum} %{!saveable && " (the shares must add up to 100 %)"}
            </span>
            <button
              type="button"
              className={buttonClass("default", "sm")}
              disabled={saving || !saveable}
              aria-describedby={`split-sum-${split.issueNumber}`}
              onClick={() => void save()}
            >
              {saving ? "Saving…" : "Save shares"}
            </button>
            <button type="button" className={buttonClass("ghost", "sm")} onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <ul className="mt-2 grid gap-1 text-sm">
          {split.shares.map((share) => (
            <li key={share.githubUserId} className="flex flex-wrap items-center justify-between gap-2" data-share={share.login}>
              <span>
                <a className="font-medium hover:underline" href={`/@${share.login}`} data-share-profile={share.login}>
                  @{share.login}
                </a>
                {share.isAuthor ? " (author)" : ""}: {share.percent} %, {share.amount} {split.currency}
                {share.status === "held" && <span className="text-warning"> · held until they register</span>}
                {share.status === "held" && canEdit && share.returnableAt && !share.returnable && (
                  <span className="text-muted-foreground" data-share-returnable-at> (unclaimed, it may go back to the pool from {when(share.returnableAt)})</span>
                )}
                {share.status === "queued" && <span className="text-warning"> · queued by the contract (paid after its delay)</span>}
                {share.status === "returned" && <span className="text-muted-foreground"> · unclaimed for 30 days, returned to the pool</span>}
                {share.status === "paid" && share.explorerUrl && (
                  <>
                    {" · "}
                    <a className="hover:underline" href={share.explorerUrl} target="_blank" rel="noopener noreferrer">paid</a>
                  </>
                )}
                {share.status === "paid" && !share.explorerUrl && " · paid"}
              </span>
              <span className="flex flex-wrap items-center gap-2">
                {share.status === "held" && canEdit && share.returnable && (
                  returning?.login === share.login ? (
                    <span className="flex flex-wrap items-center gap-2" data-return-confirm={share.login}>
                      <span>Return @{share.login}'s {share.amount} {split.currency} to the pool? It can go nowhere else.</span>
                      <button type="button" className={buttonClass("default", "sm")} disabled={returning.busy} onClick={() => void returnShare(share.login, returning.key)}>
                        {returning.busy ? "Returning…" : "Return"}
                      </button>
                      <button type="button" className={buttonClass("ghost", "sm")} disabled={returning.busy} onClick={() => setReturning(null)}>
                        Cancel
                      </button>
                    </span>
                  ) : (
                    <button type="button" className={buttonClass("outline", "sm")} onClick={() => setReturning({ login: share.login, key: newIdempotencyKey(), busy: false })} data-return-share={share.login}>
                      Return to pool
                    </button>
                  )
                )}
                <TipButton login={share.login} />
              </span>
            </li>
          ))}
          {split.unresolved.length > 0 && (
            <li className="text-xs text-muted-foreground">Co-authors not found on GitHub (not paid unless named): {split.unresolved.map((u) => u.email).join(", ")}</li>
          )}
        </ul>
      )}
      {editable && !editing && (
        <button type="button" className={`${buttonClass("outline", "sm")} mt-3`} onClick={() => setEditing(split.shares.map((s) => ({ login: s.login, percent: s.percent })))} data-edit-split>
          Change shares
        </button>
      )}
      {message && (
        <p role="alert" className="mt-2 text-sm text-destructive">
          {message}
        </p>
      )}
    </article>
  );
}
