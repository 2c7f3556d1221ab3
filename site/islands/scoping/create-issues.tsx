import { useCallback, useEffect, useState, type FormEvent } from "react";
import { api, errorMessage, type ApiResponse } from "../../lib/api.ts";
import { parseAmount, toPlainDecimal, type Currency } from "../../lib/funding-rules.ts";
import { formatFull } from "../../lib/format.ts";
import { cardClass, inputClass } from "../../lib/ui.ts";
import { SCOPING_POLL_MS, type Plan } from "../../../lib/scoping.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";
import { Dialog } from "../ui/dialog.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";

type AdminRepository = ApiResponse<"listUserRepositories">["repositories"][number];
type ScopedIssue = ApiResponse<"listScopedIssues">["issues"][number];

const SETTLED = new Set(["confirmed", "reverted", "failed"]);
const BOUNTY_STATUS: Record<string, string> = { queued: "Submitting", signed: "Submitting", sent: "Confirming", confirmed: "Bounty set", reverted: "Bounty failed", failed: "Bounty failed" };

/**
 * Opens chosen tasks of a plan as GitHub issues of a registered repository
 * the pool manager administers (through the GitHub App), optionally with
 * the same bounty on each from the pool. One confirm step names everything
 * that will happen; afterwards each issue and bounty shows as it confirms.
 */
export default function CreateIssues(props: { jobId: string; plan: Plan; selected: Set<number>; onClose: () => void; onCreated?: () => void }) {
  const [repos, setRepos] = useState<AdminRepository[] | null>(null);
  const [repoId, setRepoId] = useState<number | null>(null);
  const [label, setLabel] = useState("issuepool");
  const [withBounty, setWithBounty] = useState(false);
  const [currency, setCurrency] = useState<Currency>("XDC");
  const [amountText, setAmountText] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [issues, setIssues] = useState<ScopedIssue[] | null>(null);

  useEffect(() => {
    api("/api/github/user/repos")
      .then(({ repositories }) => {
        const usable = repositories.filter((r) => r.registered && r.permissions.admin && r.appInstalled);
        setRepos(usable);
        setRepoId((current) => current ?? usable[0]?.id ?? null);
      })
      .catch((err) => {
        setRepos([]);
        toast({ type: "error", title: "Failed to fetch GitHub repositories", message: errorMessage(err, "Failed to fetch GitHub repositories") });
      });
  }, []);

  const loadIssues = useCallback(async () => {
    try {
      setIssues((await api(`/api/ai-scoping/results/${props.jobId}/issues`)).issues);
      props.onCreated?.();
    } catch {
      /* shown again on the next poll */
    }
  }, [props.jobId, props.onCreated]);

  useEffect(() => {
    void loadIssues();
  }, [loadIssues]);

  // Bounties confirm on chain one by one: ask again until each has settled.
  useEffect(() => {
    if (!issues?.some((i) => i.bounty && !SETTLED.has(i.bounty.status))) return;
    const timer = setTimeout(() => void loadIssues(), SCOPING_POLL_MS);
    return () => clearTimeout(timer);
  }, [issues, loadIssues]);

  const repo = repos?.find((r) => r.id === repoId) ?? null;
  const taskIds = props.plan.tasks.map((t) => t.id).filter((id) => props.selected.has(id));
  const amount = withBounty ? parseAmount(amountText, currency) : null;

  const review = (event: FormEvent) => {
    event.preventDefault();
    if (!repo) return toast({ type: "error", title: "Choose a repository", message: "Choose a repository to open the issues in." });
    if (taskIds.length === 0) return toast({ type: "error", title: "No tasks chosen", message: "Tick the tasks to open as issues." });
    if (withBounty && (amount === null || amount <= 0n)) return toast({ type: "error", title: "Invalid Amount", message: "Please enter a valid bounty amount." });
    setConfirming(true);
  };

  const create = async () => {
    if (!repo || busy) return;
    setBusy(true);
    try {
      const answer = await api(`/api/ai-scoping/results/${props.jobId}/issues`, {
        method: "POST",
        body: {
          repositoryId: repo.id,
          githubRepoFullName: repo.full_name,
          taskIds,
          label,
          ...(withBounty && amount ? { bounty: { currency, amount: toPlainDecimal(amount, currency) } } : {}),
        },
      });
      toast({ type: "success", title: "Issues created", message: `${answer.issues.length} issue${answer.issues.length === 1 ? "" : "s"} in ${repo.full_name}.` });
      setConfirming(false);
      await loadIssues();
    } catch (err) {
      toast({ type: "error", title: "Could not create the issues", message: errorMessage(err, "An unknown error occurred.") });
    } finally {
      setBusy(false);
    }
  };

  const total = amount ? amount * BigInt(taskIds.length) : 0n;

  return (
    <div className={`${cardClass} mt-3 space-y-4 p-4 sm:p-5`} data-create-issues>
      <div className="flex items-start justify-between gap-3">
        <div>
          <h4 className="font-semibold">Create GitHub issues from this plan</h4>
          <p className="mt-1 text-sm text-muted-foreground">Tick the tasks below. Each becomes an issue (dependencies as “Depends on #n”); a bounty, if set, comes from the repository's pool.</p>
        </div>
        <Button variant="ghost" size="icon" onClick={props.onClose} aria-label="Close"><Icon name="x" /></Button>
      </div>
      {repos === null ? (
        <p className="flex items-center gap-2 text-sm text-muted-foreground"><Spinner className="h-4 w-4" /> Loading your repositories…</p>
      ) : repos.length === 0 ? (
        <p className="text-sm text-muted-foreground">No registered repository of yours has the GitHub App installed. Register one on <a className="text-primary underline" href="/profile">your profile</a> first.</p>
      ) : (
        <form onSubmit={review} className="grid gap-4 sm:grid-cols-2">
          <label className="grid gap-1.5 text-sm font-medium">
            Repository
            <select className={inputClass} value={repoId ?? ""} onChange={(e) => setRepoId(Number(e.target.value))} data-scoping-repo>
              {repos.map((r) => (
                <option key={r.id} value={r.id}>{r.full_name}</option>
              ))}
            </select>
          </label>
          <label className="grid gap-1.5 text-sm font-medium">
            Label
            <input className={inputClass} value={label} maxLength={50} onChange={(e) => setLabel(e.target.value)} />
          </label>
          <label className="flex items-center gap-2 text-sm font-medium sm:col-span-2">
            <input type="checkbox" className="h-4 w-4" checked={withBounty} onChange={(e) => setWithBounty(e.target.checked)} data-scoping-with-bounty />
            Put a bounty on each issue
          </label>
          {withBounty && (
            <>
              <label className="grid gap-1.5 text-sm font-medium">
                Currency
                <select className={inputClass} value={currency} onChange={(e) => setCurrency(e.target.value as Currency)}>
                  <option value="XDC">XDC</option>
                  <option value="ROXN">ROXN</option>
                  <option value="USDC">USDC</option>
                </select>
              </label>
              <label className="grid gap-1.5 text-sm font-medium">
                Bounty per issue
                <input className={inputClass} inputMode="decimal" placeholder={currency === "XDC" ? "At least 1" : "At least 0.0001"} value={amountText} onChange={(e) => setAmountText(e.target.value)} data-scoping-amount />
              </label>
            </>
          )}
          <div className="sm:col-span-2">
            <Button type="submit" disabled={taskIds.length === 0} data-scoping-create>
              Create {taskIds.length} issue{taskIds.length === 1 ? "" : "s"}
            </Button>
          </div>
        </form>
      )}
      <Dialog open={confirming} onOpenChange={(open) => !busy && setConfirming(open)} title="Create these issues?" modalLocked={busy}>
        <div className="mt-3 space-y-3 text-sm">
          <p>
            {taskIds.length} issue{taskIds.length === 1 ? "" : "s"} will be opened in <strong>{repo?.full_name}</strong>
            {label ? <> with the label <strong>{label}</strong></> : null}.
          </p>
          {withBounty && amount ? (
            <p>
              Each gets a bounty of <strong>{formatFull(amount, currency)} {currency}</strong> from the pool: <strong>{formatFull(total, currency)} {currency}</strong> in all, one
              transaction each. Bounties are final once set.
            </p>
          ) : (
            <p>No bounty is set; you can add one on each issue later.</p>
          )}
          <div className="flex justify-end gap-2 pt-2">
            <Button variant="outline" onClick={() => setConfirming(false)} disabled={busy}>Cancel</Button>
            <Button onClick={() => void create()} disabled={busy} data-scoping-confirm>
              {busy ? <><Spinner className="h-4 w-4" /> Creating…</> : "Create issues"}
            </Button>
          </div>
        </div>
      </Dialog>
      {issues && issues.length > 0 && (
        <div data-scoped-issues>
          <h5 className="text-sm font-semibold">Issues opened from this plan</h5>
          <ul className="mt-2 divide-y divide-border rounded-lg border border-border text-sm">
            {issues.map((issue) => (
              <li key={`${issue.taskId}-${issue.issueNumber}`} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2" data-scoped-issue={issue.taskId}>
                <span className="font-mono text-xs text-muted-foreground">#{issue.taskId}</span>
                <span className="min-w-0 flex-1 truncate">{issue.title}</span>
                {issue.issueUrl ? (
                  <a href={issue.issueUrl} target="_blank" rel="noopener noreferrer" className="inline-flex items-center gap-1 font-medium text-primary hover:underline">
                    Issue #{issue.issueNumber} <Icon name="external" className="h-3.5 w-3.5" />
                  </a>
                ) : (
                  <span className="text-muted-foreground">Opening…</span>
                )}
                {issue.bounty && (
                  <span className="text-xs" data-bounty-status={issue.bounty.status}>
                    {issue.bounty.amount} {issue.bounty.currency} · {BOUNTY_STATUS[issue.bounty.status] ?? issue.bounty.status}
                  </span>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
