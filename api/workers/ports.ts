import type { ComputeNode, User } from "../../db/schema/index.ts";
import type { AgentSettings, LeasedTask } from "../../lib/compute.ts";
import type { DocumentFormat } from "../services/scoping/extract.ts";

/**
 * What the application context holds of each background worker: the calls
 * handlers and the composition root make, nothing more. The context imports
 * these instead of the workers, whose files reach the services that take the
 * context back (an import circle, docs/where-things-go.md); each worker
 * `implements` its port, so the two cannot drift apart. Import nothing here
 * that reaches api/context.ts.
 */

/** A loop that works stored jobs (webhook deliveries, AI scoping jobs). */
export interface BackgroundWorker {
  /** One pass over what is due; returns how many it took. */
  runOnce(): Promise<number>;
  /** Something new was stored: run a pass soon. */
  nudge(): void;
  start(intervalMs?: number): void;
  stop(): Promise<void>;
}

/** The webhook worker: deliveries that failed because a service did not answer are retried once it answers again. */
export interface WebhookPort extends BackgroundWorker {
  anyWaitingOn(what: string): Promise<boolean>;
  retryWaitingOn(what: string): Promise<number>;
}

/** The daily digest: a pass may be run as of another moment (the development server's digest "as of tomorrow"). */
export interface DigestPort extends BackgroundWorker {
  runOnce(asOf?: { now: number }): Promise<number>;
}

/** Reads uploaded documents off the event loop (api/services/scoping/extractor.ts). */
export interface DocumentExtractor {
  extract(bytes: Uint8Array): Promise<{ format: DocumentFormat; text: string }>;
  /** The built-in planner's plan of a text, made off the event loop (checked by the caller like any plan). */
  plan(document: { fileName: string; text: string }): Promise<unknown>;
  close(): void;
  /** Peak resident size of the process that read the last document (the log, and the hostile-document tests). */
  readonly lastPeakBytes: number;
}

export interface ComputeSettings {
  heartbeatMs: number;
  offlineAfterMs: number;
  leaseMs: number;
  dispatchTimeoutMs: number;
  longPollMs: number;
}

/** Hands chat prompts to compute nodes that pull them (api/workers/compute-dispatch.ts, docs/compute-network.md). */
export interface ComputeDispatch {
  /** The clock of leases, deadlines and Online/Offline; tests put a fake one here. */
  now: () => number;
  readonly settings: ComputeSettings;
  agentSettings(nodeId: string): AgentSettings;
  dispatch(user: Pick<User, "id">, prompt: string): Promise<{ message: string; taskId: string }>;
  nextTask(node: ComputeNode, signal: AbortSignal): Promise<LeasedTask | "revoked" | undefined>;
  waitingPolls(nodeId?: string): number;
  complete(node: ComputeNode, taskId: string, leaseToken: string, answer: string): Promise<{ units: number }>;
  fail(node: ComputeNode, taskId: string, leaseToken: string, error: string): Promise<void>;
  release(node: ComputeNode, taskId: string, leaseToken: string): Promise<void>;
  heartbeat(node: ComputeNode): Promise<AgentSettings>;
  revoke(user: User, nodeId: string): Promise<void>;
  runPass(): Promise<void>;
  start(intervalMs?: number): void;
  stop(): Promise<void>;
}
