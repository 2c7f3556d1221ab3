import { useEffect, useState } from "react";
import { api, errorMessage } from "../../lib/api.ts";
import { loadSession } from "../../stores/session.ts";
import { buttonClass, cardClass } from "../../lib/ui.ts";

type View = { kind: string; title: string; lines: string[]; expiresAt: string };
type State = { step: "loading" } | { step: "ready"; intent: View } | { step: "sending"; intent: View } | { step: "done"; message: string; link: string | null } | { step: "refused"; message: string };

/** The confirmation of a payment asked for in a GitHub comment: what will happen, and one button. */
export default function ConfirmIntent({ token }: { token: string }) {
  const [state, setState] = useState<State>({ step: "loading" });
  const path = `/api/intents/${encodeURIComponent(token)}`;

  useEffect(() => {
    void loadSession();
    api<View>(path).then(
      (intent) => setState({ step: "ready", intent }),
      (err) => setState({ step: "refused", message: errorMessage(err, "This confirmation link cannot be used.") }),
    );
  }, [path]);

  const confirm = async (intent: View) => {
    setState({ step: "sending", intent });
    try {
      const done = await api<{ message: string; link: string | null }>(`${path}/confirm`, { method: "POST", body: {} });
      setState({ step: "done", message: done.message, link: done.link });
    } catch (err) {
      setState({ step: "refused", message: errorMessage(err, "The payment could not be made.") });
    }
  };

  return (
    <section className={`${cardClass} w-full p-8`} aria-labelledby="confirm-title" data-intent-state={state.step}>
      {state.step === "loading" && <p className="text-sm text-muted-foreground">Loading…</p>}
      {(state.step === "ready" || state.step === "sending") && (
        <>
          <h1 id="confirm-title" className="text-2xl font-bold tracking-tight">{state.intent.title}</h1>
          <ul className="mt-4 space-y-1 text-sm">
            {state.intent.lines.map((line) => <li key={line}>{line}</li>)}
          </ul>
          <p className="mt-4 text-xs text-muted-foreground">This link works once, until {new Date(state.intent.expiresAt).toLocaleString()}.</p>
          <button type="button" className={`${buttonClass("default", "lg")} mt-6 w-full`} disabled={state.step === "sending"} onClick={() => confirm(state.intent)}>
            {state.step === "sending" ? "Confirming…" : "Confirm"}
          </button>
        </>
      )}
      {state.step === "done" && (
        <>
          <h1 id="confirm-title" className="text-2xl font-bold tracking-tight">Done</h1>
          <p className="mt-2 text-sm" role="status">{state.message}</p>
          {state.link && <a className={`${buttonClass("outline", "default")} mt-6 w-full`} href={state.link}>See the issue</a>}
        </>
      )}
      {state.step === "refused" && (
        <>
          <h1 id="confirm-title" className="text-2xl font-bold tracking-tight">Cannot confirm</h1>
          <p className="mt-2 text-sm" role="alert">{state.message}</p>
        </>
      )}
    </section>
  );
}
