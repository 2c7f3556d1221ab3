import { lazy, Suspense, useCallback, useEffect, useState, type ReactNode } from "react";
import { api, type ApiResponse } from "../../lib/api.ts";
import { toast } from "../../stores/toast.ts";
import type { SessionUser } from "../../stores/session.ts";
import { Button } from "../ui/button.tsx";
import { serverMessage } from "./actions.ts";
import { AUDIENCE_LABELS, MAX_APPLICATION_NOTE, MODE_LABELS, ordinal, utcMinute } from "../../../lib/attempt-rules.ts";

// The pool manager's settings, loaded when a settings section is first opened.
const RepositorySettings = lazy(() => import("./attempt-settings.tsx").then((m) => ({ default: m.RepositorySettings })));
const BountySettings = lazy(() => import("./attempt-settings.tsx").then((m) => ({ default: m.BountySettings })));
// The author's review-deadline line, loaded only when the visitor has an open pull request listed here.
const ReleaseRequest = lazy(() => import("./release-request.tsx"));

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
      {manager && (
        <WhenOpened className="rounded-lg border border-border p-3" summaryClassName="text-sm font-medium" defaults summary={`Repository default: ${MODE_LABELS[view.defaults.mode]}; ${AUDIENCE_LABELS[view.defaults.audience].toLowerCase()}; ${view.defaults.lockDays} days`}>
          <RepositorySettings repoId={repoId} defaults={view.defaults} flagged={view.flagged} onSaved={done} />
        </WhenOpened>
      )}
      <ul className="grid gap-3">
        {shown.map((n) => (
          <IssueRow key={n} repoId={repoId} issueNumber={n} info={byNumber.get(n)} defaults={view.defaults} mine={view.mine.find((m) => m.issueNumber === n)} user={user} onChanged={done} />
        ))}
      </ul>
    </section>
  );
}

/** A closed <details> whose content is rendered (and its code loaded) the first time it is opened, then kept. */
function WhenOpened({ summary, children, className, summaryClassName, defaults }: { summary: string; children: ReactNode; className?: string; summaryClassName?: string; defaults?: boolean }) {
  const [opened, setOpened] = useState(false);
  return (
    <details className={className} data-attempt-defaults={defaults ? "" : undefined} onToggle={(e) => e.currentTarget.open && setOpened(true)}>
      <summary className={`cursor-pointer ${summaryClassName ?? ""}`}>{summary}</summary>
      {opened && <Suspense fallback={<p className="mt-2 text-muted-foreground">Loading the settings…</p>}>{children}</Suspense>}
    </details>
  );
}

function IssueRow(props: { repoId: number; issueNumber: number; info: IssueAttempts | undefined; defaults: View["defaults"]; mine: View["mine"][number] | undefined; user: SessionUser | null; onChanged: () => Promise<void> }) {
  const { repoId, issueNumber, info, mine, user } = props;
  const manager = user?.role === "poolmanager";
  const current = info ?? { ...props.defaults, issueNumber, holder: null, queue: [], applications: [], working: [], pulls: [], overtaken: null, own: { mode: null, audience: null, lockDays: null } };
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
                {user && p.author.toLowerCase() === user.username.toLowerCase() && (
                  <Suspense fallback={null}>
                    <ReleaseRequest repoId={repoId} pullNumber={p.number} />
                  </Suspense>
                )}
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
        <WhenOpened summary={`Settings of this bounty${current.own.mode || current.own.audience || current.own.lockDays ? "" : " (follows the repository)"}`}>
          <BountySettings repoId={repoId} issueNumber={issueNumber} current={current} busy={busy} act={act} />
        </WhenOpened>
      )}
    </li>
  );
}
