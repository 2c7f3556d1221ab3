/**
 * The agent's calls to the Issuepool server (api/routes/node-agent): the
 * only connections there are, all made by the agent. Failures are sorted
 * so the agent knows what to do: `unreachable` (retry with backoff),
 * `revoked` (401: stop), `gone` (409/404: the task or pairing is no longer
 * ours), `rejected` (another 4xx: a bug or bad input, do not retry).
 */
import type { AgentSettings, LeasedTask, PairingRedeemResponse, PairingStartRequest, PairingStartResponse } from "../lib/compute.ts";

export const AGENT_VERSION = "0.1.0";

export class ServerError extends Error {
  override name = "ServerError";
  constructor(
    message: string,
    readonly kind: "unreachable" | "revoked" | "gone" | "rejected",
    readonly status = 0,
  ) {
    super(message);
  }
}

export class ServerClient {
  token?: string;

  constructor(readonly serverUrl: string) {}

  private async call<T>(method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal, timeoutMs = 15_000): Promise<{ status: number; data: T | undefined }> {
    const headers: Record<string, string> = { accept: "application/json", "user-agent": `issuepool-node-agent/${AGENT_VERSION}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let res: Response;
    try {
      res = await fetch(`${this.serverUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new ServerError(`cannot reach ${this.serverUrl} (${(err as Error).message})`, "unreachable");
    }
    const text = await res.text().catch(() => "");
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = undefined;
    }
    if (res.ok) return { status: res.status, data: data as T };
    const message = (data as { message?: string } | undefined)?.message ?? `HTTP ${res.status}`;
    if (res.status === 401) throw new ServerError(message, "revoked", 401);
    if (res.status === 404 || res.status === 409) throw new ServerError(message, "gone", res.status);
    if (res.status === 429 || res.status >= 500) throw new ServerError(message, "unreachable", res.status);
    throw new ServerError(message, "rejected", res.status);
  }

  async startPairing(input: PairingStartRequest): Promise<PairingStartResponse> {
    return (await this.call<PairingStartResponse>("POST", "/api/node-agent/pairings", input)).data!;
  }

  async redeemPairing(deviceSecret: string): Promise<PairingRedeemResponse> {
    return (await this.call<PairingRedeemResponse>("POST", "/api/node-agent/pairings/redeem", { deviceSecret })).data!;
  }

  async heartbeat(signal?: AbortSignal): Promise<AgentSettings> {
    return (await this.call<AgentSettings>("POST", "/api/node-agent/heartbeat", {}, signal)).data!;
  }

  /** Long poll: a task, or undefined when none came within the server's poll time. */
  async nextTask(signal: AbortSignal, longPollMs: number): Promise<LeasedTask | undefined> {
    const { status, data } = await this.call<{ task: LeasedTask }>("GET", "/api/node-agent/tasks/next", undefined, signal, longPollMs + 10_000);
    return status === 204 ? undefined : data?.task;
  }

  async submitResult(task: LeasedTask, answer: string): Promise<{ units: number }> {
    return (await this.call<{ units: number }>("POST", `/api/node-agent/tasks/${task.id}/result`, { leaseToken: task.leaseToken, answer })).data!;
  }

  async reportFailure(task: LeasedTask, error: string): Promise<void> {
    await this.call("POST", `/api/node-agent/tasks/${task.id}/failure`, { leaseToken: task.leaseToken, error: error.slice(0, 2000) });
  }

  async release(task: LeasedTask): Promise<void> {
    await this.call("POST", `/api/node-agent/tasks/${task.id}/release`, { leaseToken: task.leaseToken }, undefined, 5000);
  }
}
