import { useId, useState } from "react";
import { api, type ApiResponse } from "../../lib/api.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";
import { serverMessage } from "./actions.ts";
import { ATTEMPT_AUDIENCES, ATTEMPT_MODES, AUDIENCE_LABELS, MAX_LOCK_DAYS, MIN_LOCK_DAYS, MODE_LABELS, type AttemptAudience, type AttemptMode } from "../../../lib/attempt-rules.ts";

/**
 * The pool manager's attempt settings (issue 39): the repository's default with its flagged accounts, and one
 * bounty's own mode, audience and lock days with the holder's release. Loaded when the pool manager opens one
 * (attempts-panel.tsx), so a contributor's repository page does not carry them (the signed-in budget:
 * e2e/page-weight.e2e.ts).
 */

type View = ApiResponse<"listAttempts">;
type IssueAttempts = View["issues"][number];

export function RepositorySettings({ repoId, defaults, flagged, onSaved }: { repoId: number; defaults: View["defaults"]; flagged: string[]; onSaved: () => Promise<void> }) {
  const id = useId();
  const [mode, setMode] = useState<AttemptMode>(defaults.mode);
  const [audience, setAudience] = useState<AttemptAudience>(defaults.audience);
  const [days, setDays] = useState(String(defaults.lockDays));
  const [flag, setFlag] = useState("");
  const save = async () => {
    try {
      await api(`/api/attempts/${repoId}/settings`, { method: "PUT", body: { mode, audience, lockDays: Number(days) } });
      toast({ type: "success", title: "Attempt settings saved", message: "New attempts on this repository's bounties follow them (a bounty's own choice wins)." });
      await onSaved();
    } catch (err) {
      toast({ type: "error", title: "Settings not saved", message: serverMessage(err, "Failed to save the settings") });
    }
  };
  const mark = async (login: string, flagged: boolean) => {
    try {
      await api(`/api/attempts/${repoId}/flags`, { method: "POST", body: { login, flagged } });
      setFlag("");
      await onSaved();
    } catch (err) {
      toast({ type: "error", title: "Not changed", message: serverMessage(err, "Failed to change the account's mark") });
    }
  };
  return (
    <>
      <form
        className="mt-3 grid gap-3 sm:grid-cols-3"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <SettingsFields id={id} mode={mode} setMode={setMode} audience={audience} setAudience={setAudience} days={days} setDays={setDays} />
        <div className="sm:col-span-3">
          <Button type="submit" size="sm">Save the repository's default</Button>
        </div>
      </form>
      <form
        className="mt-3 flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (flag.trim()) void mark(flag.trim().replace(/^@/, ""), true);
        }}
      >
        <label className="grid gap-1 text-sm">
          Mark an account as automated
          <input className="min-h-10 rounded-md border border-border bg-background px-2" value={flag} onChange={(e) => setFlag(e.target.value)} placeholder="GitHub login" />
        </label>
        <Button type="submit" size="sm" variant="outline">Mark</Button>
        {flagged.length > 0 && (
          <p className="w-full text-sm text-muted-foreground">
            Marked (refused on humans-only bounties):{" "}
            {flagged.map((login) => (
              <button key={login} type="button" className="mr-2 underline" onClick={() => void mark(login, false)} aria-label={`Unmark @${login}`}>
                @{login} ×
              </button>
            ))}
          </p>
        )}
      </form>
    </>
  );
}

function SettingsFields(props: { id: string; mode: AttemptMode; setMode: (m: AttemptMode) => void; audience: AttemptAudience; setAudience: (a: AttemptAudience) => void; days: string; setDays: (d: string) => void; followLabel?: string }) {
  return (
    <>
      <label className="grid gap-1 text-sm">
        Mode
        <select className="min-h-10 rounded-md border border-border bg-background px-2" value={props.mode} onChange={(e) => props.setMode(e.target.value as AttemptMode)}>
          {ATTEMPT_MODES.map((m) => (
            <option key={m} value={m}>
              {MODE_LABELS[m]}
            </option>
          ))}
        </select>
      </label>
      <label className="grid gap-1 text-sm">
        Who may attempt
        <select className="min-h-10 rounded-md border border-border bg-background px-2" value={props.audience} onChange={(e) => props.setAudience(e.target.value as AttemptAudience)}>
          {ATTEMPT_AUDIENCES.map((a) => (
            <option key={a} value={a}>
              {AUDIENCE_LABELS[a]}
            </option>
          ))}
        </select>
      </label>
      <label className="grid gap-1 text-sm">
        Lock duration (days)
        <input className="min-h-10 rounded-md border border-border bg-background px-2" type="number" inputMode="numeric" min={MIN_LOCK_DAYS} max={MAX_LOCK_DAYS} required value={props.days} onChange={(e) => props.setDays(e.target.value)} />
      </label>
    </>
  );
}

export function BountySettings(props: { repoId: number; issueNumber: number; current: Pick<IssueAttempts, "mode" | "audience" | "lockDays" | "holder">; busy: boolean; act: (what: () => Promise<{ message: string }>, title: string) => Promise<void> }) {
  const { repoId, issueNumber, current, busy, act } = props;
  const id = useId();
  const [mode, setMode] = useState<AttemptMode>(current.mode);
  const [audience, setAudience] = useState<AttemptAudience>(current.audience);
  const [days, setDays] = useState(String(current.lockDays));
  const saveBounty = () =>
    act(async () => {
      const s = await api(`/api/attempts/${repoId}/issues/${issueNumber}/settings`, { method: "PUT", body: { mode, audience, lockDays: Number(days) } });
      return { message: `Issue #${issueNumber}: ${MODE_LABELS[s.mode as AttemptMode]}.` };
    }, "Bounty settings saved");
  return (
    <form
      className="mt-2 grid gap-3 sm:grid-cols-3"
      aria-label={`Attempt settings of issue #${issueNumber}`}
      onSubmit={(e) => {
        e.preventDefault();
        void saveBounty();
      }}
    >
      <SettingsFields id={id} mode={mode} setMode={setMode} audience={audience} setAudience={setAudience} days={days} setDays={setDays} />
      <div className="flex flex-wrap gap-2 sm:col-span-3">
        <Button type="submit" size="sm" disabled={busy}>
          Save for issue #{issueNumber}
        </Button>
        {current.holder && (
          <Button type="button" size="sm" variant="outline" disabled={busy} onClick={() => void act(() => api(`/api/attempts/${repoId}/issues/${issueNumber}/release`, { method: "POST", body: { login: current.holder!.login } }), "Lock released")}>
            Release @{current.holder.login}'s lock
          </Button>
        )}
      </div>
    </form>
  );
}
