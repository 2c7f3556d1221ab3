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
        await api(`/api/alerts/webhooks/${endpoint.id}/test`, { method: "POST" });
        toast({ type: "success", title: "Test event queued", message: "It is sent within a few seconds; see the delivery log." });
        setTimeout(() => void showLog(endpoint.id), 3000);
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
