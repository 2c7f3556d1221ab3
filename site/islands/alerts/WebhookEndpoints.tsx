import { useCallback, useEffect, useState } from "react";
import { api, errorMessage, type ApiResponse } from "../../lib/api.ts";
import { toast } from "../../stores/toast.ts";
import { badgeClass, cardClass, inputClass } from "../../lib/ui.ts";
import { Button } from "../ui/button.tsx";
import { CopyButton } from "../ui/copy-button.tsx";

type Endpoint = ApiResponse<"listWebhookEndpoints">["endpoints"][number];
type Attempt = ApiResponse<"getWebhookEndpoint">["attempts"][number];

const EVENTS = ["bounty.created", "bounty.boosted", "bounty.claimed", "bounty.awaiting_decision", "bounty.paid", "bounty.refunded"] as const;

/**
 * Webhook endpoints for integrators (docs/webhooks.md): the account's, or one repository's when `repositoryId`
 * is given (its pool managers). Add one (the secret is shown once), send a test event, rotate the secret, see the
 * delivery log, delete.
 */
export default function WebhookEndpoints({ repositoryId }: { repositoryId?: number }) {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([...EVENTS]);
  const [secret, setSecret] = useState<{ id: string; value: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [log, setLog] = useState<Attempt[] | null>(null);
  const [busy, setBusy] = useState(false);
  /** The last test event of each endpoint: on its way, or its delivery's answer (issue 38: nothing showed unless the log was opened). */
  const [tests, setTests] = useState<Record<string, { sentAt: number; attempt?: Attempt; gaveUp?: boolean }>>({});

  const load = useCallback(async () => {
    try {
      const answer = await api<ApiResponse<"listWebhookEndpoints">>(`/api/alerts/webhooks${repositoryId ? `?repositoryId=${repositoryId}` : ""}`);
      setEndpoints(answer.endpoints);
    } catch (err) {
      toast({ type: "error", title: "Webhooks", message: errorMessage(err, "Failed to load webhook endpoints") });
      setEndpoints([]);
    }
  }, [repositoryId]);
  useEffect(() => void load(), [load]);

  const showLog = useCallback(async (id: string) => {
    setOpen(id);
    setLog(null);
    const answer = await api<ApiResponse<"getWebhookEndpoint">>(`/api/alerts/webhooks/${id}`);
    setLog(answer.attempts);
  }, []);

  /** Reads the endpoint's log until the test event's delivery shows (the worker sends it within seconds), then says how it went. */
  const followTest = async (id: string, sentAt: number) => {
    for (let i = 0; i < 30; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const answer = await api<ApiResponse<"getWebhookEndpoint">>(`/api/alerts/webhooks/${id}`).catch(() => null);
      const attempt = answer?.attempts.find((a) => a.type === "webhook.test" && Date.parse(a.at) >= sentAt);
      if (attempt) {
        setTests((all) => ({ ...all, [id]: { sentAt, attempt } }));
        if (open === id) setLog(answer!.attempts);
        return;
      }
    }
    setTests((all) => ({ ...all, [id]: { sentAt, gaveUp: true } }));
  };

  const add = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const answer = await api<ApiResponse<"createWebhookEndpoint">>("/api/alerts/webhooks", {
        method: "POST",
        body: { url, events, ...(repositoryId ? { repositoryId } : {}) },
      });
      setSecret({ id: answer.endpoint.id, value: answer.secret });
      setUrl("");
      await load();
    } catch (err) {
      toast({ type: "error", title: "Endpoint not added", message: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };

  const act = async (endpoint: Endpoint, what: "test" | "rotate" | "delete" | "toggle") => {
    try {
      if (what === "test") {
        // A second of margin: the server's clock writes the attempt's time.
        const sentAt = Date.now() - 1000;
        setTests((all) => ({ ...all, [endpoint.id]: { sentAt } }));
        await api(`/api/alerts/webhooks/${endpoint.id}/test`, { method: "POST" });
        void followTest(endpoint.id, sentAt);
      } else if (what === "rotate") {
        const answer = await api<ApiResponse<"rotateWebhookSecret">>(`/api/alerts/webhooks/${endpoint.id}/rotate-secret`, { method: "POST" });
        setSecret({ id: endpoint.id, value: answer.secret });
      } else if (what === "delete") {
        await api(`/api/alerts/webhooks/${endpoint.id}`, { method: "DELETE" });
        await load();
      } else {
        await api(`/api/alerts/webhooks/${endpoint.id}`, { method: "PATCH", body: { enabled: !endpoint.enabled } });
        await load();
      }
    } catch (err) {
      toast({ type: "error", title: "Webhooks", message: errorMessage(err) });
    }
  };

  return (
    <div className="space-y-4" data-webhook-endpoints>
      <form className="space-y-3" onSubmit={add} aria-label="Add a webhook endpoint">
        <label className="block text-sm font-medium" htmlFor={`webhook-url-${repositoryId ?? "account"}`}>
          Endpoint URL (https; Slack and Discord incoming-webhook URLs work as they are)
        </label>
        <div className="flex gap-2">
          <input
            id={`webhook-url-${repositoryId ?? "account"}`}
            className={inputClass}
            type="url"
            required
            placeholder="https://example.com/issuepool-webhook"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
          <Button type="submit" disabled={busy || !url}>Add endpoint</Button>
        </div>
        <fieldset className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <legend className="sr-only">Events</legend>
          {EVENTS.map((name) => (
            <label key={name} className="flex items-center gap-1.5">
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={(e) => setEvents(e.target.checked ? [...events, name] : events.filter((x) => x !== name))}
              />
              <code>{name}</code>
            </label>
          ))}
        </fieldset>
      </form>

      {secret && (
        <div className={`${cardClass} border-primary/40 p-4`} role="status" data-webhook-secret>
          <p className="text-sm font-medium">Signing secret: copy it now, it is not shown again.</p>
          <div className="mt-2 flex items-center gap-2">
            <code className="break-all text-sm">{secret.value}</code>
            <CopyButton value={secret.value} label="Copy the secret" />
          </div>
          <p className="mt-2 text-xs text-muted-foreground">
            Verify each request with a Standard Webhooks library (npm: <code>standardwebhooks</code>).
          </p>
        </div>
      )}

      {endpoints === null ? (
        <p className="text-sm text-muted-foreground">Loading…</p>
      ) : endpoints.length === 0 ? (
        <p className="text-sm text-muted-foreground">No webhook endpoints yet.</p>
      ) : (
        <ul className="divide-y divide-border">
          {endpoints.map((endpoint) => (
            <li key={endpoint.id} className="py-3" data-endpoint={endpoint.id}>
              <div className="flex flex-wrap items-center gap-2">
                <code className="min-w-0 flex-1 truncate text-sm" title={endpoint.url}>{endpoint.url}</code>
                <span className={`${badgeClass} border-border`}>{endpoint.kind}</span>
                {!endpoint.enabled && <span className={`${badgeClass} border-border text-muted-foreground`}>paused</span>}
                <Button size="sm" variant="outline" onClick={() => void act(endpoint, "test")}>Send test event</Button>
                <Button size="sm" variant="outline" onClick={() => void showLog(endpoint.id)}>Delivery log</Button>
                <Button size="sm" variant="outline" onClick={() => void act(endpoint, "toggle")}>{endpoint.enabled ? "Pause" : "Resume"}</Button>
                <Button size="sm" variant="outline" onClick={() => void act(endpoint, "rotate")}>Rotate secret</Button>
                <Button size="sm" variant="outline" onClick={() => void act(endpoint, "delete")}>Delete</Button>
              </div>
              <p className="mt-1 text-xs text-muted-foreground">{endpoint.events.join(", ")}</p>
              {tests[endpoint.id] && <TestResult {...tests[endpoint.id]!} />}
              {open === endpoint.id && (
                <div className="mt-2 overflow-x-auto" data-delivery-log>
                  {log === null ? (
                    <p className="text-sm text-muted-foreground">Loading…</p>
                  ) : log.length === 0 ? (
                    <p className="text-sm text-muted-foreground">No deliveries yet.</p>
                  ) : (
                    <table className="w-full text-left text-xs">
                      <thead><tr><th className="pr-3">Time</th><th className="pr-3">Event</th><th className="pr-3">Answer</th><th className="pr-3">Latency</th><th>Message</th></tr></thead>
                      <tbody>
                        {log.map((a, i) => (
                          <tr key={i}>
                            <td className="pr-3">{new Date(a.at).toLocaleString()}</td>
                            <td className="pr-3"><code>{a.type}</code></td>
                            <td className="pr-3">{a.statusCode ?? a.error}</td>
                            <td className="pr-3">{a.latencyMs} ms</td>
                            <td>{a.messageStatus}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  )}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** How the last test event went, beside its endpoint. */
function TestResult({ attempt, gaveUp }: { attempt?: Attempt; gaveUp?: boolean }) {
  if (!attempt) {
    return (
      <p role="status" className="mt-1 text-sm text-muted-foreground" data-test-result="sending">
        {gaveUp ? "The test event has not been sent yet: see the delivery log in a moment." : "Sending a test event…"}
      </p>
    );
  }
  const ok = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
  return (
    <p role="status" className={`mt-1 text-sm ${ok ? "text-success" : "text-destructive"}`} data-test-result={ok ? "delivered" : "failed"}>
      {ok
        ? `Test event delivered: the endpoint answered ${attempt.statusCode} in ${attempt.latencyMs} ms.`
        : `Test event not delivered: ${attempt.statusCode !== null ? `the endpoint answered ${attempt.statusCode}` : (attempt.error ?? "no answer")}.`}
    </p>
  );
}
