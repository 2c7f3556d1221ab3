/**
 * Webhook deliveries the way GitHub's Hookshot makes them: one POST per
 * event with a unique delivery GUID, HMAC signatures over the exact body,
 * a 10 s timeout and no automatic retry. A failed delivery can be
 * redelivered, which sends the same body under the same GUID.
 */
import { createHmac, randomUUID } from "node:crypto";
import type { World } from "./world.ts";
// The delivery records are part of the saved state (state.ts keeps their shape): re-exported for callers.
import type { DeliveryAttempt, WebhookDelivery } from "./state.ts";
export type { DeliveryAttempt, WebhookDelivery };

/** Hookshot's User-Agent carries a short build hash. */
const USER_AGENT = "GitHub-Hookshot/8f9a2c1";
const TIMEOUT_MS = 10_000;
const KEPT_DELIVERIES = 200;
const KEPT_RESPONSE_CHARS = 4000;

function signBody(secret: string, body: string, algorithm: "sha1" | "sha256"): string {
  return `${algorithm}=${createHmac(algorithm, secret).update(body).digest("hex")}`;
}

export class Webhooks {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly world: World) {}

  get deliveries(): WebhookDelivery[] {
    return this.world.state.deliveries;
  }

  /** The app's webhook has one id on GitHub; derive it from the app id. */
  get hookId(): number {
    return 400_000_000 + this.world.config.app.id;
  }

  /** Records the delivery now (so its id can be returned at once) and sends it; `done` settles after the attempt. */
  emit(event: string, payload: Record<string, unknown>): { id: string; done: Promise<WebhookDelivery> } {
    const body = JSON.stringify(payload);
    const installation = payload.installation as { id?: number } | undefined;
    const repository = payload.repository as { id?: number } | undefined;
    const delivery: WebhookDelivery = {
      id: randomUUID(),
      event,
      action: typeof payload.action === "string" ? payload.action : null,
      payload,
      body,
      installationId: installation?.id ?? null,
      repositoryId: repository?.id ?? null,
      createdAt: this.world.iso(),
      status: null,
      response: "",
      durationMs: 0,
      attempts: [],
    };
    const list = this.world.state.deliveries;
    list.push(delivery);
    if (list.length > KEPT_DELIVERIES) list.splice(0, list.length - KEPT_DELIVERIES);
    this.world.save();
    return { id: delivery.id, done: this.track(this.attempt(delivery)) };
  }

  /** GitHub's "Redeliver": the same GUID and body, one more attempt. */
  async redeliver(id: string): Promise<WebhookDelivery | undefined> {
    const delivery = this.deliveries.find((d) => d.id === id);
    if (!delivery) return undefined;
    return this.track(this.attempt(delivery));
  }

  /** Waits until every delivery started so far has finished its attempt. */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    promise.finally(() => this.pending.delete(promise)).catch(() => {});
    return promise;
  }

  private async attempt(delivery: WebhookDelivery): Promise<WebhookDelivery> {
    const { app, webhook } = this.world.config;
    const started = performance.now();
    let status = 0;
    let response: string;
    try {
      const res = await fetch(webhook.url, {
        method: "POST",
        headers: {
          Accept: "*/*",
          "Content-Type": "application/json",
          "User-Agent": USER_AGENT,
          "X-GitHub-Event": delivery.event,
          "X-GitHub-Delivery": delivery.id,
          "X-GitHub-Hook-ID": String(this.hookId),
          "X-GitHub-Hook-Installation-Target-Type": "integration",
          "X-GitHub-Hook-Installation-Target-ID": String(app.id),
          "X-Hub-Signature": signBody(webhook.secret, delivery.body, "sha1"),
          "X-Hub-Signature-256": signBody(webhook.secret, delivery.body, "sha256"),
        },
        body: delivery.body,
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      status = res.status;
      response = (await res.text()).slice(0, KEPT_RESPONSE_CHARS);
    } catch (err) {
      response = err instanceof Error ? err.message : String(err);
    }
    const attempt = { at: this.world.iso(), status, response, durationMs: Math.round(performance.now() - started) };
    delivery.attempts.push(attempt);
    Object.assign(delivery, { status, response, durationMs: attempt.durationMs });
    this.world.save();
    return delivery;
  }
}
