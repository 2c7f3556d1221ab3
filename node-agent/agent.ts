/**
 * The node agent: pairs with its owner's account, then heartbeats and
 * long-polls the server for chat tasks, runs each on its backend and sends
 * the answer back. Like a self-hosted CI runner it only ever calls out, so
 * it works behind NAT and the server needs to know nothing about where it is.
 *
 *   start -> token stored? -- no --> pair (print ABCD-1234, wait for the owner's approval) -> store token
 *         -> heartbeat every heartbeatMs (keeps the node Online and its task's lease alive)
 *         -> N work loops: long poll -> run on the backend -> result (or failure: another node tries)
 *
 * The server going away (restart, network) is waited out with exponential
 * backoff and jitter. A 401 means the owner revoked the node: the agent
 * forgets its token and stops. stop() (SIGTERM) ends the polls at once,
 * lets a running task finish for up to `stopGraceMs`, and gives it back to
 * the queue if it does not, so another node answers it without waiting for
 * the lease to run out.
 */
import type { AgentSettings, LeasedTask } from "../lib/compute.ts";
import { MAX_ANSWER_CHARS } from "../lib/compute.ts";
import { BackendError, type Backend } from "./backends.ts";
import { ServerClient, ServerError } from "./server-client.ts";
import { forgetToken, loadToken, saveToken } from "./state.ts";

export type LogFn = (level: "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;

export interface AgentOptions {
  serverUrl: string;
  walletAddress: string;
  name: string;
  backend: Backend;
  /** Where the node token is kept between runs. */
  stateDir: string;
  /** Tasks worked at once (a backend with parallel slots can take more than one). */
  concurrency?: number;
  stopGraceMs?: number;
  log: LogFn;
}

export const BACKOFF_BASE_MS = 250;
export const BACKOFF_MAX_MS = 10_000;

/** Exponential backoff with jitter: 250 ms, 500 ms, 1 s ... up to 10 s, each between half and all of it. */
export class Backoff {
  private failures = 0;
  next(): number {
    const ms = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** this.failures++);
    return Math.round(ms / 2 + (Math.random() * ms) / 2);
  }
  reset(): void {
    this.failures = 0;
  }
  get attempts(): number {
    return this.failures;
  }
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done);
  });

export class NodeAgent {
  readonly client: ServerClient;
  private readonly stopping = new AbortController();
  private readonly active = new Set<{ task: LeasedTask; controller: AbortController }>();
  private settings?: AgentSettings;
  private revoked = false;
  nodeId?: string;

  constructor(private readonly options: AgentOptions) {
    this.client = new ServerClient(options.serverUrl.replace(/\/+$/, ""));
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Runs until stop() or revocation; resolves with why it ended. */
  async run(): Promise<"stopped" | "revoked"> {
    const { log } = this.options;
    const token = await this.connect();
    if (!token) return this.revoked ? "revoked" : "stopped";
    log("info", "node ready", { nodeId: this.nodeId, backend: this.options.backend.kind, model: this.options.backend.model, heartbeatMs: this.settings!.heartbeatMs });
    const heartbeats = this.heartbeatLoop();
    const loops = Array.from({ length: Math.max(1, this.options.concurrency ?? 1) }, () => this.workLoop());
    await Promise.all(loops);
    this.stopping.abort();
    await heartbeats;
    if (this.revoked) {
      await forgetToken(this.options.stateDir, this.client.serverUrl, this.options.walletAddress);
      log("error", "this node was revoked by its owner: its token is forgotten; start the agent again to pair anew", { nodeId: this.nodeId });
      return "revoked";
    }
    log("info", "node stopped", { nodeId: this.nodeId });
    return "stopped";
  }

  /** Stops polling at once; running tasks get `stopGraceMs` to finish, then are given back. */
  stop(): void {
    if (this.stopped) return;
    this.options.log("info", "stopping", { runningTasks: this.active.size });
    this.stopping.abort();
    const grace = this.options.stopGraceMs ?? 5000;
    if (this.active.size) setTimeout(() => this.active.forEach((a) => a.controller.abort()), grace).unref?.();
  }

  /** A stored token that still works, or a new one from pairing; undefined when stopped first. */
  private async connect(): Promise<string | undefined> {
    const { log, stateDir, walletAddress } = this.options;
    const stored = await loadToken(stateDir, this.client.serverUrl, walletAddress);
    if (stored) {
      this.client.token = stored.token;
      this.nodeId = stored.nodeId;
      const settings = await this.withBackoff("heartbeat", () => this.client.heartbeat(this.stopping.signal));
      if (settings) {
        this.settings = settings;
        return stored.token;
      }
      if (this.stopped) return undefined;
      log("warn", "the stored node token no longer works (revoked?): pairing again");
      await forgetToken(stateDir, this.client.serverUrl, walletAddress);
      this.client.token = undefined;
    }
    const paired = await this.pair();
    if (!paired) return undefined;
    this.client.token = paired.token;
    this.nodeId = paired.nodeId;
    await saveToken(stateDir, this.client.serverUrl, walletAddress, paired);
    const settings = await this.withBackoff("heartbeat", () => this.client.heartbeat(this.stopping.signal));
    if (!settings) return undefined;
    this.settings = settings;
    return paired.token;
  }

  /** Device-style pairing: a code for the owner to approve, polled until approved; a new code when one expires. */
  private async pair(): Promise<{ nodeId: string; token: string } | undefined> {
    const { log, backend, name, walletAddress } = this.options;
    while (!this.stopped) {
      const pairing = await this.withBackoff("pairing", () =>
        this.client.startPairing({ walletAddress, name, backend: backend.kind, ...(backend.model ? { model: backend.model } : {}) }),
      );
      if (!pairing) return undefined;
      log("info", "pairing code", { code: pairing.userCode, url: pairing.verificationUrl, expiresAt: pairing.expiresAt });
      const expires = Date.parse(pairing.expiresAt);
      while (!this.stopped && Date.now() < expires) {
        await sleep(pairing.intervalMs, this.stopping.signal);
        if (this.stopped) return undefined;
        try {
          const result = await this.client.redeemPairing(pairing.deviceSecret);
          if (result.status === "paired") {
            log("info", "paired", { nodeId: result.nodeId });
            return { nodeId: result.nodeId, token: result.nodeToken };
          }
        } catch (err) {
          if (err instanceof ServerError && err.kind === "gone") break;
          if (!(err instanceof ServerError && err.kind === "unreachable")) throw err;
        }
      }
      if (!this.stopped) log("warn", "the pairing code expired before it was approved: here is a new one");
    }
    return undefined;
  }

  /** `call` until it works; undefined if the agent is stopped or the node revoked first. */
  private async withBackoff<T>(what: string, call: () => Promise<T>): Promise<T | undefined> {
    const backoff = new Backoff();
    while (!this.stopped) {
      try {
        return await call();
      } catch (err) {
        if (!(err instanceof ServerError)) throw err;
        if (err.kind === "revoked") {
          this.revoked = true;
          return undefined;
        }
        if (err.kind === "rejected") throw err;
        const wait = backoff.next();
        this.options.log("warn", `${what}: server unavailable, retrying`, { inMs: wait, attempt: backoff.attempts, err: err.message });
        await sleep(wait, this.stopping.signal);
      }
    }
    return undefined;
  }

  private async heartbeatLoop(): Promise<void> {
    while (!this.stopped) {
      await sleep(this.settings?.heartbeatMs ?? 5000, this.stopping.signal);
      if (this.stopped) return;
      try {
        this.settings = await this.client.heartbeat(this.stopping.signal);
      } catch (err) {
        if (err instanceof ServerError && err.kind === "revoked") {
          this.revoked = true;
          this.stop();
          return;
        }
        // Unreachable: the work loops back off and report it; the next beat tries again.
      }
    }
  }

  private async workLoop(): Promise<void> {
    const backoff = new Backoff();
    while (!this.stopped) {
      let task: LeasedTask | undefined;
      const asked = Date.now();
      try {
        task = await this.client.nextTask(this.stopping.signal, this.settings?.longPollMs ?? 20_000);
        if (!task && Date.now() - asked < 500) {
          // A long poll that comes back empty at once (a server on its way down): back off, never ask in a tight loop.
          await sleep(backoff.next(), this.stopping.signal);
          continue;
        }
        if (backoff.attempts) this.options.log("info", "server reachable again");
        backoff.reset();
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof ServerError && err.kind === "revoked") {
          this.revoked = true;
          this.stop();
          return;
        }
        const wait = backoff.next();
        this.options.log("warn", "polling for tasks failed, retrying", { inMs: wait, attempt: backoff.attempts, err: (err as Error).message });
        await sleep(wait, this.stopping.signal);
        continue;
      }
      if (task) await this.work(task);
    }
  }

  private async work(task: LeasedTask): Promise<void> {
    const { log, backend } = this.options;
    const entry = { task, controller: new AbortController() };
    this.active.add(entry);
    const started = performance.now();
    try {
      let answer: string;
      try {
        answer = await backend.complete(task.prompt, entry.controller.signal);
      } catch (err) {
        if (entry.controller.signal.aborted) {
          await this.client.release(task).catch(() => undefined);
          log("info", "task given back (stopping)", { taskId: task.id });
          return;
        }
        const message = err instanceof BackendError ? err.message : `backend error: ${(err as Error).message}`;
        log("warn", "task failed on the backend", { taskId: task.id, err: message });
        await this.deliver(task, () => this.client.reportFailure(task, message));
        return;
      }
      const ok = await this.deliver(task, () => this.client.submitResult(task, answer.slice(0, MAX_ANSWER_CHARS)));
      if (ok) log("info", "task answered", { taskId: task.id, ms: Math.round(performance.now() - started) });
    } finally {
      this.active.delete(entry);
    }
  }

  /** Sends a result until it arrives or the task's lease has surely run out (then another node has it). */
  private async deliver(task: LeasedTask, send: () => Promise<unknown>): Promise<boolean> {
    const backoff = new Backoff();
    const giveUpAt = Date.now() + (this.settings?.leaseMs ?? 12_000);
    for (;;) {
      try {
        await send();
        return true;
      } catch (err) {
        if (err instanceof ServerError && err.kind === "unreachable" && Date.now() < giveUpAt) {
          await sleep(backoff.next());
          continue;
        }
        this.options.log("warn", "the server did not take the task's result", { taskId: task.id, err: (err as Error).message });
        if (err instanceof ServerError && err.kind === "revoked") {
          this.revoked = true;
          this.stop();
        }
        return false;
      }
    }
  }
}
