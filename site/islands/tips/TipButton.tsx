import { useState } from "react";
import { useStore } from "../ui/use-store.ts";
import { api, errorMessage, newIdempotencyKey, type ApiResponse } from "../../lib/api.ts";
import { $user, loadSession } from "../../stores/session.ts";
import { buttonClass, inputClass } from "../../lib/ui.ts";
import { CURRENCIES, type Currency } from "../../lib/format.ts";

type Tip = ApiResponse<"giveTip">;
type Step = { step: "closed" } | { step: "open"; key: string } | { step: "sending"; key: string } | { step: "done"; tip: Tip } | { step: "failed"; key: string; message: string };

/**
 * The Tip button of a contributor (issue 29, item 5): an island any page can mount next to a GitHub login (the
 * repository page's shared rewards, a profile at /@{login}): `<TipButton client:visible login="carol" />`.
 * One click opens the amount; Send tips from the signed-in user's wallet (POST /api/tips, one Idempotency-Key per
 * opened form, so a retry after a lost answer tips once). A person without a wallet is tipped all the same: the
 * tip waits in the escrow and reaches them when they register.
 */
export default function TipButton({ login, className = "" }: { login: string; className?: string }) {
  const user = useStore($user, null);
  const [state, setState] = useState<Step>({ step: "closed" });
  const [amount, setAmount] = useState("1");
  const [currency, setCurrency] = useState<Currency>("XDC");
  if (user && user.username.toLowerCase() === login.toLowerCase()) return null;

  const send = async (key: string) => {
    setState({ step: "sending", key });
    try {
      const tip = await api<Tip>("/api/tips", { method: "POST", body: { login, amount, currency }, idempotencyKey: key });
      setState({ step: "done", tip });
    } catch (err) {
      setState({ step: "failed", key, message: errorMessage(err, "The tip could not be sent.") });
    }
  };

  if (state.step === "closed") {
    return (
      <button
        type="button"
        className={buttonClass("outline", "sm", className)}
        data-tip-button={login}
        onClick={async () => {
          // Pages that do not load the session themselves (the public repository page) learn it on the first click.
          if (!$user.get()) await loadSession();
          if ($user.get()) setState({ step: "open", key: newIdempotencyKey() });
          else window.location.assign(`/auth?returnTo=${encodeURIComponent(window.location.pathname)}`);
        }}
      >
        Tip @{login}
      </button>
    );
  }
  if (state.step === "done") {
    return (
      <p role="status" className="text-sm" data-tip-result={state.tip.status}>
        {state.tip.message}
      </p>
    );
  }
  // A form of its own, with its labels and unit in sight (issue 38: it was squeezed into the profile header, its
  // amount field without a label or a unit).
  return (
    <form
      className="grid w-full max-w-md gap-3 rounded-xl border border-border bg-card p-4 text-left shadow-sm"
      aria-label={`Tip @${login}`}
      data-tip-form={login}
      onSubmit={(e) => {
        e.preventDefault();
        void send(state.key);
      }}
    >
      <p className="text-sm font-semibold">Tip @{login} from your wallet</p>
      <div className="grid grid-cols-[minmax(0,1fr)_7rem] gap-3">
        <label className="grid gap-1 text-sm font-medium" htmlFor={`tip-amount-${login}`}>
          Tip amount ({currency})
          <input id={`tip-amount-${login}`} className={inputClass} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} required />
        </label>
        <label className="grid gap-1 text-sm font-medium" htmlFor={`tip-currency-${login}`}>
          Currency
          <select id={`tip-currency-${login}`} className={inputClass} value={currency} onChange={(e) => setCurrency(e.target.value as Currency)}>
            {CURRENCIES.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
      </div>
      <p className="text-xs text-muted-foreground">0.5 % fee, read from the contract; held in escrow if @{login} has no Issuepool wallet yet.</p>
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" className={buttonClass("ghost", "sm")} onClick={() => setState({ step: "closed" })}>
          Cancel
        </button>
        <button type="submit" className={buttonClass("default", "sm")} disabled={state.step === "sending"}>
          {state.step === "sending" ? "Sending…" : `Send to @${login}`}
        </button>
      </div>
      {state.step === "failed" && (
        <p role="alert" className="w-full text-sm text-destructive">
          {state.message}
        </p>
      )}
    </form>
  );
}
