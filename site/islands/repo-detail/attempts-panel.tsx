import { useCallback, useEffect, useId, useState } from "react";
import { api, type ApiResponse } from "../../lib/api.ts";
import { toast } from "../../stores/toast.ts";
import type { SessionUser } from "../../stores/session.ts";
import { Button } from "../ui/button.tsx";
import { serverMessage } from "./actions.ts";
import { ATTEMPT_AUDIENCES, ATTEMPT_MODES, AUDIENCE_LABELS, MAX_APPLICATION_NOTE, MAX_LOCK_DAYS, MIN_LOCK_DAYS, MODE_LABELS, ordinal, utcMinute, type AttemptAudience, type AttemptMode } from "../../../lib/attempt-rules.ts";

type View = ApiResponse<"listAttempts">;
type IssueAttempts = View["issues"][number];

/**
 * Attempts on the repository page (issue 39): for each bounty, who holds it and until when, the queue, the
 * applications and the competing pull requests; a contributor's "I'm working on it" (an application with its note
 * where the bounty asks for one) and "Stop working on it"; the pool manager's settings (the repository's default and
 * each bounty's own: mode, humans only, lock days), picks, releases and flagged accounts. Native controls only
 * (keyboard as it comes), stacked on a phone. Loaded only for signed-in visitors of a registered repository.
 */
export default function AttemptsPanel({ repoId, user, bountied, onChanged }: { repoId: number; user: SessionUser | null; bountied: number[]; onChanged?: () => void }) {
  const [view, setView] = useState<View | null>(null);
  const manager = user?.role === "poolmanager";
  const load = useCallback(async () => {
    try {
      setView(await api(`/api/attempts/${repoId}`));
    } catch {
      setView(null);
    }
  }, [repoId]);
  useEffect(() => {
    void load();
  }, [load, bountied.join(",")]);
  if (!view) return null;
  const numbers = [...new Set([...bountied, ...view.issues.map((i) => i.issueNumber)])].sort((a, b) => a - b);
  const byNumber = new Map(view.issues.map((i) => [i.issueNumber, i]));
  const shown = numbers.filter((n) => manager || byNumber.get(n)?.mode !== "open" || (byNumber.get(n)?.pulls.length ?? 0) > 1 || view.mine.some((m) => m.issueNumber === n) || user?.role === "contributor");
  if (!manager && shown.length === 0) return null;
  const done = async () => {
    await load();
    onChanged?.();
  };
  return (
    <section aria-labelledby="attempts-title" className="grid gap-3 rounded-xl border border-border bg-card p-4 shadow-sm" data-attempts>
      <h2 id="attempts-title" className="text-lg font-semibold tracking-tight">
        Who works on the bounties
      </h2>
      {manager && <RepositorySettings repoId={repoId} defaults={view.defaults} flagged={view.flagged} onSaved={done} />}
      <ul className="grid gap-3">
        {shown.map((n) => (
          <IssueRow key={n} repoId={repoId} issueNumber={n} info={byNumber.get(n)} defaults={view.defaults} mine={view.mine.find((m) => m.issueNumber === n)} user={user} onChanged={done} />
        ))}
      </ul>
    </section>
  );
}

function RepositorySettings({ repoId, defaults, flagged, onSaved }: { repoId: number; defaults: View["defaults"]; flagged: string[]; onSaved: () => Promise<void> }) {
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
    <details className="rounded-lg border border-border p-3" data-attempt-defaults>
      <summary className="cursor-pointer text-sm font-medium">Repository default: {MODE_LABELS[defaults.mode]}; {AUDIENCE_LABELS[defaults.audience].toLowerCase()}; {defaults.lockDays} days</summary>
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
    </details>
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

function IssueRow(props: { repoId: number; issueNumber: number; info: IssueAttempts | undefined; defaults: View["defaults"]; mine: View["mine"][number] | undefined; user: SessionUser | null; onChanged: () => Promise<void> }) {
  const { repoId, issueNumber, info, mine, user } = props;
  const id = useId();
  const manager = user?.role === "poolmanager";
  const current = info ?? { ...props.defaults, issueNumber, holder: null, queue: [], applications: [], working: [], pulls: [], overtaken: null, own: { mode: null, audience: null, lockDays: null } };
  const [mode, setMode] = useState<AttemptMode>(current.mode);
  const [audience, setAudience] = useState<AttemptAudience>(current.audience);
  const [days, setDays] = useState(String(current.lockDays));
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const act = async (what: () => Promise<{ message: string }>, title: string) => {
    setBusy(true);
    try {
      const result = await what();
      toast({ type: "success", title, message: result.message });
      await props.onChanged();
    } catch (err) {
      toast({ type: "error", title: "Not done", message: serverMessage(err, "The request failed") });
    } finally {
      setBusy(false);
    }
  };
  const attempt = () => act(() => api("/api/blockchain/register", { method: "POST", body: { issueId: issueNumber, repoId, ...(note.trim() ? { note: note.trim() } : {}) } }), "Attempt recorded");
  const stop = () => act(() => api(`/api/attempts/${repoId}/issues/${issueNumber}`, { method: "DELETE" }), "Attempt dropped");
  const saveBounty = () =>
    act(async () => {
      const s = await api(`/api/attempts/${repoId}/issues/${issueNumber}/settings`, { method: "PUT", body: { mode, audience, lockDays: Number(days) } });
      return { message: `Issue #${issueNumber}: ${MODE_LABELS[s.mode as AttemptMode]}.` };
    }, "Bounty settings saved");
  return (
    <li className="grid gap-2 rounded-lg border border-border p-3 text-sm" data-attempt-issue={issueNumber}>
      <p className="font-medium">
        Issue #{issueNumber} <span className="font-normal text-muted-foreground">· {MODE_LABELS[current.mode]} · {AUDIENCE_LABELS[current.audience]}</span>
      </p>
      {current.holder && (
        <p data-attempt-holder>
          Held by <strong>@{current.holder.login}</strong> until {utcMinute(current.holder.lockedUntil)}.
        </p>
      )}
      {current.queue.length > 0 && <p data-attempt-queue>Queue: {current.queue.map((login, i) => `${i + 1}. @${login}`).join(" ")}</p>}
      {current.working.length > 0 && <p>Working on it: {current.working.map((l) => `@${l}`).join(", ")}</p>}
      {current.applications.length > 0 && (
        <div data-attempt-applications>
          <p>Applications:</p>
          <ul className="ml-4 list-disc">
            {current.applications.map((a) => (
              <li key={a.login}>
                @{a.login}
                {a.note && <span className="text-muted-foreground">: “{a.note}”</span>}
                {manager && !current.holder && (
                  <Button className="ml-2" size="sm" variant="outline" disabled={busy} onClick={() => void act(() => api(`/api/attempts/${repoId}/issues/${issueNumber}/pick`, { method: "POST", body: { login: a.login } }), "Applicant picked")}>
                    Pick @{a.login}
                  </Button>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      {current.pulls.length > 0 && (
        <div data-attempt-pulls>
          <p>{current.pulls.length > 1 ? "Competing pull requests:" : "Pull request closing it:"}</p>
          <ul className="ml-4 list-disc">
            {current.pulls.map((p) => (
              <li key={p.number}>
                <a className="underline" href={p.url}>
                  #{p.number}
                </a>{" "}
                by @{p.author} ({p.attempt})
              </li>
            ))}
          </ul>
        </div>
      )}
      {current.overtaken && (
        <p>
          Pull request #{current.overtaken.pullNumber} was merged while @{current.overtaken.holder} held this bounty: it was paid to that pull request's authors as usual.
        </p>
      )}
      {mine && (
        <p data-attempt-mine>
          {mine.status === "holding" && mine.lockedUntil
            ? `You hold this bounty until ${utcMinute(mine.lockedUntil)}.`
            : mine.status === "queued"
              ? `You are ${ordinal(mine.place ?? 1)} in the queue.`
              : mine.status === "applied"
                ? "Your application is in."
                : "You are working on it."}
        </p>
      )}
      {user?.role === "contributor" && (
        <div className="flex flex-wrap items-end gap-2">
          {!mine && current.mode === "application" && (
            <label className="grid w-full gap-1 sm:w-auto sm:flex-1">
              Your note to the pool manager
              <textarea className="min-h-16 rounded-md border border-border bg-background px-2 py-1" maxLength={MAX_APPLICATION_NOTE} required value={note} onChange={(e) => setNote(e.target.value)} />
            </label>
          )}
          {!mine ? (
            <Button size="sm" disabled={busy || (current.mode === "application" && !note.trim())} onClick={() => void attempt()} aria-label={`I'm working on issue #${issueNumber}`}>
              {current.mode === "application" ? "Apply" : current.holder ? "Join the queue" : "I'm working on it"}
            </Button>
          ) : (
            <Button size="sm" variant="outline" disabled={busy} onClick={() => void stop()} aria-label={`Stop working on issue #${issueNumber}`}>
              Stop working on it
            </Button>
          )}
        </div>
      )}
      {manager && (
        <details>
          <summary className="cursor-pointer">Settings of this bounty{current.own.mode || current.own.audience || current.own.lockDays ? "" : " (follows the repository)"}</summary>
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
        </details>
      )}
    </li>
  );
}
