import type { Database } from "../../db/client.ts";
import type { ComputeNode, User } from "../../db/schema/index.ts";
import type { Env } from "../env.ts";
import type { Logger } from "../logger.ts";
import { DomainError, ErrorCode, conflict } from "../errors.ts";
import { NETWORK_FAILED_MESSAGE, type AgentSettings, type LeasedTask } from "../../lib/compute.ts";
import {
  claimTask,
  completeTask,
  deleteOldTasks,
  expireTask,
  expireTasks,
  failTask,
  hasQueuedTask,
  queueTask,
  releaseTask,
  releaseTasksOfNode,
  renewLeases,
  taskOutcome,
  type TaskOutcome,
} from "../services/compute/tasks.ts";
import { countOnlineNodes, revokeNode, touchNode } from "../services/compute/nodes.ts";
import { deleteExpiredPairings } from "../services/compute/pairing.ts";
import { Periodic } from "./periodic.ts";
import type { ComputeDispatch, ComputeSettings } from "./ports.ts";

/**
 * Hands chat prompts to compute nodes. Nodes pull: each agent long-polls
 * for a task, and this class decides which waiting node gets the next
 * queued one. The server never opens a connection to a node.
 *
 * Who gets a task: a node asking while tasks wait takes the oldest at once
 * (work-conserving: a busy network drains its queue as fast as its nodes
 * answer). When nodes wait for work, a new task goes to the waiting node
 * served least recently (fair: idle nodes take turns), and a node that
 * failed or dropped a task within the cooldown goes last. A task is never
 * given again to a node that failed it (compute_tasks.excluded_node_ids).
 *
 * The database is the truth (services/compute/tasks.ts): the waiters and
 * answer notifications kept here only make this process fast. Several
 * processes can share the queue: each pass (every PASS_MS) looks for tasks
 * queued elsewhere, expires leases of dead nodes and tasks nobody waits for,
 * and a dispatch waiting here notices an answer given to another process
 * within ANSWER_POLL_MS.
 */
export const PASS_MS = 500;
export const ANSWER_POLL_MS = 250;

export type { ComputeSettings };

export function computeSettings(env: Env): ComputeSettings {
  return {
    heartbeatMs: env.NODE_HEARTBEAT_MS,
    offlineAfterMs: env.NODE_OFFLINE_AFTER_MS,
    leaseMs: env.NODE_TASK_LEASE_MS,
    dispatchTimeoutMs: env.NODE_DISPATCH_TIMEOUT_MS,
    longPollMs: env.NODE_LONG_POLL_MS,
  };
}

/** 503 when no node is online, 504 when none answered in time: the spec's one sentence either way. */
export const networkUnavailable = () => new DomainError({ code: ErrorCode.NO_COMPUTE_NODE, error: "No compute node online", message: NETWORK_FAILED_MESSAGE });
export const networkFailed = () => new DomainError({ code: ErrorCode.COMPUTE_TIMEOUT, error: "No answer from the network", message: NETWORK_FAILED_MESSAGE });

interface Waiter {
  node: ComputeNode;
  since: number;
  signal: AbortSignal;
  finish(result: LeasedTask | "revoked" | undefined): void;
}

export class ComputeDispatcher implements ComputeDispatch {
  /** The clock of leases, deadlines and Online/Offline; tests put a fake one here. */
  now: () => number = () => Date.now();
  private readonly waiters = new Set<Waiter>();
  private readonly listeners = new Map<string, Set<(outcome: TaskOutcome) => void>>();
  private readonly servedAt = new Map<string, number>();
  private offering?: Promise<void>;
  private offerAgain = false;
  private stopped = false;
  private passes = 0;
  private readonly loop = new Periodic(
    "compute",
    () => this.runPass(),
    (err) => this.deps.log.warn("compute dispatch pass failed", { err: (err as Error).message }),
  );

  constructor(private readonly deps: { db: Database; log: Logger; settings: ComputeSettings }) {}

  get settings(): ComputeSettings {
    return this.deps.settings;
  }

  /** What an agent is told at each heartbeat. */
  agentSettings(nodeId: string): AgentSettings {
    const { heartbeatMs, leaseMs, longPollMs, offlineAfterMs } = this.deps.settings;
    return { nodeId, heartbeatMs, leaseMs, longPollMs, offlineAfterMs };
  }

  /**
   * POST /api/node/dispatch-task: queues the prompt and waits (at most
   * dispatchTimeoutMs) for a node's answer. 503 at once when no node is
   * online; 504 when none answered in time, or every attempt failed.
   */
  async dispatch(user: Pick<User, "id">, prompt: string): Promise<{ message: string; taskId: string }> {
    const { db, log, settings } = this.deps;
    const now = this.now();
    if (this.stopped || (await countOnlineNodes(db, now, settings.offlineAfterMs)) === 0) throw networkUnavailable();
    const taskId = await queueTask(db, { userId: user.id, prompt, now, deadlineAt: now + settings.dispatchTimeoutMs });
    const outcome = this.outcomeOf(taskId, settings.dispatchTimeoutMs);
    void this.offer();
    const result = await outcome;
    if (result?.status === "done" && result.answer !== null) return { message: result.answer, taskId };
    log.info("compute task not answered", { taskId, status: result?.status ?? "timeout", error: result?.error ?? undefined });
    throw networkFailed();
  }

  /** Resolves with the task's end (done, failed, expired), or expires it after `timeoutMs`. */
  private outcomeOf(taskId: string, timeoutMs: number): Promise<TaskOutcome | undefined> {
    const { db } = this.deps;
    return new Promise((resolve) => {
      let settled = false;
      const listeners = this.listeners.get(taskId) ?? new Set();
      this.listeners.set(taskId, listeners);
      const settle = (outcome: TaskOutcome | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearInterval(poll);
        listeners.delete(listener);
        if (!listeners.size) this.listeners.delete(taskId);
        resolve(outcome);
      };
      const listener = (outcome: TaskOutcome) => settle(outcome);
      listeners.add(listener);
      // Answers given to another server process reach this one through the database.
      const poll = setInterval(() => {
        taskOutcome(db, taskId).then(
          (o) => o && ["done", "failed", "expired"].includes(o.status) && settle(o),
          () => undefined,
        );
      }, ANSWER_POLL_MS);
      const deadline = setTimeout(() => {
        void (async () => {
          await expireTask(db, taskId, this.now()).catch(() => undefined);
          // An answer may have won the race with the expiry.
          settle(await taskOutcome(db, taskId).catch(() => undefined));
        })();
      }, timeoutMs);
    });
  }

  private tell(outcome: TaskOutcome): void {
    for (const listener of [...(this.listeners.get(outcome.id) ?? [])]) listener(outcome);
  }

  /**
   * GET /api/node-agent/tasks/next: a task for this node now, or once one
   * arrives within the long poll; undefined when none came (or the server
   * is stopping), "revoked" when the node was revoked meanwhile.
   */
  async nextTask(node: ComputeNode, signal: AbortSignal): Promise<LeasedTask | "revoked" | undefined> {
    const { db, settings } = this.deps;
    if (this.stopped) return undefined;
    const now = this.now();
    // A poll counts as a sign of life too; one write a second is enough (a busy node polls once per task).
    if (!node.lastSeenAt || now - node.lastSeenAt.getTime() >= 1000) await touchNode(db, node.id, now);
    if (!this.servedAt.has(node.id)) this.servedAt.set(node.id, node.lastAssignedAt?.getTime() ?? 0);
    const othersHealthy = [...this.waiters].some((w) => w.node.id !== node.id && !this.recentlyFailed(w.node, now));
    if (!(this.recentlyFailed(node, now) && othersHealthy)) {
      const task = await claimTask(db, node.id, settings.leaseMs, now);
      if (task) {
        this.servedAt.set(node.id, now);
        return leased(task);
      }
    }
    if (signal.aborted || this.stopped) return undefined;
    return new Promise((resolve) => {
      const waiter: Waiter = {
        node,
        since: now,
        signal,
        finish: (result) => {
          if (!this.waiters.delete(waiter)) return;
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          resolve(result);
        },
      };
      const onAbort = () => waiter.finish(undefined);
      const timer = setTimeout(() => waiter.finish(undefined), settings.longPollMs);
      signal.addEventListener("abort", onAbort);
      this.waiters.add(waiter);
      // A task may have arrived between the claim above and now.
      void this.offer();
    });
  }

  /** Long polls waiting here (for tests that act while a node waits). */
  waitingPolls(nodeId?: string): number {
    return [...this.waiters].filter((w) => !nodeId || w.node.id === nodeId).length;
  }

  private recentlyFailed(node: ComputeNode, now: number): boolean {
    return node.lastFailureAt !== null && now - node.lastFailureAt.getTime() < this.deps.settings.leaseMs;
  }

  /** Gives queued tasks to waiting nodes, fairest first; one run at a time in this process. */
  offer(): Promise<void> {
    if (this.offering) {
      this.offerAgain = true;
      return this.offering;
    }
    this.offering = (async () => {
      do {
        this.offerAgain = false;
        await this.assignQueued();
      } while (this.offerAgain);
    })()
      .catch((err) => this.deps.log.warn("compute offer failed", { err: (err as Error).message }))
      .finally(() => (this.offering = undefined));
    return this.offering;
  }

  private async assignQueued(): Promise<void> {
    const { db, settings } = this.deps;
    while (this.waiters.size) {
      const now = this.now();
      if (!(await hasQueuedTask(db, now))) return;
      const order = [...this.waiters].sort(
        (a, b) =>
          Number(this.recentlyFailed(a.node, now)) - Number(this.recentlyFailed(b.node, now)) ||
          (this.servedAt.get(a.node.id) ?? 0) - (this.servedAt.get(b.node.id) ?? 0) ||
          a.since - b.since,
      );
      let assigned = false;
      for (const waiter of order) {
        if (!this.waiters.has(waiter)) continue;
        const task = await claimTask(db, waiter.node.id, settings.leaseMs, now);
        if (!task) continue;
        if (!this.waiters.has(waiter) || waiter.signal.aborted) {
          // The poll ended while the task was being claimed for it: back to the queue.
          await releaseTask(db, { taskId: task.id, nodeId: waiter.node.id, leaseToken: task.leaseToken! });
          continue;
        }
        this.servedAt.set(waiter.node.id, now);
        waiter.finish(leased(task));
        assigned = true;
        break;
      }
      if (!assigned) return;
    }
  }

  /** The node's answer; 409 when it no longer holds the task (its lease ran out, or the asker stopped waiting). */
  async complete(node: ComputeNode, taskId: string, leaseToken: string, answer: string): Promise<{ units: number }> {
    const { db, log } = this.deps;
    const done = await completeTask(db, { taskId, nodeId: node.id, walletAddress: node.walletAddress, leaseToken, answer, now: this.now() });
    if (!done) throw conflict("This task is no longer yours: its lease ran out or its asker stopped waiting.", "Task not held", ErrorCode.TASK_NOT_HELD);
    log.info("compute task completed", { taskId, nodeId: node.id, units: done.units, tokens: done.tokens });
    this.tell({ id: taskId, status: "done", answer, error: null });
    return { units: done.units };
  }

  /** The node could not answer: another node tries (or the task fails once its attempts are used up). */
  async fail(node: ComputeNode, taskId: string, leaseToken: string, error: string): Promise<void> {
    const now = this.now();
    const outcome = await failTask(this.deps.db, { taskId, nodeId: node.id, leaseToken, error, now });
    if (!outcome) throw conflict("This task is no longer yours: its lease ran out or its asker stopped waiting.", "Task not held", ErrorCode.TASK_NOT_HELD);
    this.deps.log.info("compute task attempt failed", { taskId, nodeId: node.id, status: outcome.status, error: error.slice(0, 200) });
    node.lastFailureAt = new Date(now);
    if (outcome.status === "queued") void this.offer();
    else this.tell(outcome);
  }

  /** The node is stopping and gives its task back. */
  async release(node: ComputeNode, taskId: string, leaseToken: string): Promise<void> {
    if (!(await releaseTask(this.deps.db, { taskId, nodeId: node.id, leaseToken }))) throw conflict("This task is no longer yours.", "Task not held", ErrorCode.TASK_NOT_HELD);
    this.deps.log.info("compute task given back", { taskId, nodeId: node.id });
    void this.offer();
  }

  async heartbeat(node: ComputeNode): Promise<AgentSettings> {
    const now = this.now();
    await touchNode(this.deps.db, node.id, now);
    await renewLeases(this.deps.db, node.id, this.deps.settings.leaseMs, now);
    return this.agentSettings(node.id);
  }

  /** The owner revokes a node: its token stops working, its polls here end, its tasks go to other nodes. */
  async revoke(user: User, nodeId: string): Promise<void> {
    await revokeNode(this.deps.db, user, nodeId, this.now());
    const released = await releaseTasksOfNode(this.deps.db, nodeId);
    for (const waiter of [...this.waiters]) if (waiter.node.id === nodeId) waiter.finish("revoked");
    this.deps.log.info("compute node revoked", { nodeId, userId: user.id, released });
    if (released) void this.offer();
  }

  /** One pass of housekeeping (the loop runs it every PASS_MS; tests call it with a fake clock). */
  async runPass(): Promise<void> {
    const { db } = this.deps;
    const now = this.now();
    for (const outcome of await expireTasks(db, now)) this.tell(outcome);
    if (this.passes++ % 120 === 0) {
      await deleteExpiredPairings(db, now);
      await deleteOldTasks(db, now);
    }
    await this.offer();
  }

  start(intervalMs = PASS_MS): void {
    this.stopped = false;
    this.loop.start(intervalMs);
  }

  /** Ends every long poll and answers waiting chats (503), so the server can stop without waiting for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    for (const waiter of [...this.waiters]) waiter.finish(undefined);
    for (const [taskId, listeners] of [...this.listeners]) for (const listener of [...listeners]) listener({ id: taskId, status: "expired", answer: null, error: "The server is stopping." });
    await this.offering;
  }
}

const leased = (task: { id: string; prompt: string; leaseToken: string | null; leaseUntil: Date | null }): LeasedTask => ({
  id: task.id,
  prompt: task.prompt,
  leaseToken: task.leaseToken!,
  leaseUntil: task.leaseUntil!.toISOString(),
});
