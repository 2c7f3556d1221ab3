import { and, asc, eq, gt, inArray, lt, lte, sql } from "drizzle-orm";
import { encodeBase32LowerCaseNoPadding } from "@oslojs/encoding";
import type { Database } from "../../../db/client.ts";
import { computeLedger, computeNodes, computeTasks, type ComputeTask } from "../../../db/schema/index.ts";
import { estimateTokens, unitsFor } from "../../../lib/compute.ts";
import { randomToken } from "../../crypto/tokens.ts";

/**
 * The task table's state machine, one conditional UPDATE per step so several
 * server processes can share it:
 *
 *   queued --claim--> leased --complete--> done   (+ one ledger row, same transaction)
 *                       |----fail-------> queued (another node) | failed (attempts used up)
 *                       |----release----> queued (the node is stopping; the attempt is given back)
 *                       |----lease ran out (dead node)--> queued | failed
 *   queued | leased --deadline passed--> expired
 *
 * Only the lease holder can complete, fail or release: its node id and lease
 * token are part of the UPDATE's condition, so a task is answered at most
 * once and a node that lost its lease cannot overwrite the answer.
 */

/** Attempts (nodes tried) before a task fails. */
export const TASK_MAX_ATTEMPTS = 3;

export type TaskOutcome = Pick<ComputeTask, "id" | "status" | "answer" | "error">;

export function newTaskId(): string {
  return `task_${encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(15)))}`;
}

export async function queueTask(db: Database, input: { userId: number; prompt: string; now: number; deadlineAt: number }): Promise<string> {
  const id = newTaskId();
  await db.insert(computeTasks).values({ id, userId: input.userId, prompt: input.prompt, createdAt: new Date(input.now), deadlineAt: new Date(input.deadlineAt) });
  return id;
}

/** Whether any task waits for a node (a cheap check before trying each waiting node). */
export async function hasQueuedTask(db: Database, now: number): Promise<boolean> {
  const [row] = await db
    .select({ id: computeTasks.id })
    .from(computeTasks)
    .where(and(eq(computeTasks.status, "queued"), gt(computeTasks.deadlineAt, new Date(now))))
    .limit(1);
  return row !== undefined;
}

/** The oldest queued task this node has not failed, leased to it; undefined when there is none. */
export async function claimTask(db: Database, nodeId: string, leaseMs: number, now: number): Promise<ComputeTask | undefined> {
  const notExcluded = sql`(',' || ${computeTasks.excludedNodeIds} || ',') not like ${`%,${nodeId},%`}`;
  const candidates = await db
    .select({ id: computeTasks.id })
    .from(computeTasks)
    .where(and(eq(computeTasks.status, "queued"), gt(computeTasks.deadlineAt, new Date(now)), notExcluded))
    .orderBy(asc(computeTasks.createdAt), asc(computeTasks.id))
    .limit(4);
  for (const { id } of candidates) {
    const [task] = await db
      .update(computeTasks)
      .set({ status: "leased", nodeId, leaseToken: randomToken(16), leaseUntil: new Date(now + leaseMs), attempts: sql`${computeTasks.attempts} + 1` })
      // A node revoked meanwhile (perhaps through another server process) takes nothing.
      .where(and(eq(computeTasks.id, id), eq(computeTasks.status, "queued"), sql`exists (select 1 from ${computeNodes} where ${computeNodes.id} = ${nodeId} and ${computeNodes.revokedAt} is null)`))
      .returning();
    if (task) {
      await db.update(computeNodes).set({ lastAssignedAt: new Date(now) }).where(eq(computeNodes.id, nodeId));
      return task;
    }
  }
  return undefined;
}

const held = (taskId: string, nodeId: string, leaseToken: string) =>
  and(eq(computeTasks.id, taskId), eq(computeTasks.nodeId, nodeId), eq(computeTasks.leaseToken, leaseToken), eq(computeTasks.status, "leased"));

/**
 * The holder's answer: the task is done and its node's wallet is credited,
 * in one transaction (the ledger's unique task id makes a second row
 * impossible even so). Undefined when the caller no longer holds the task.
 */
export async function completeTask(
  db: Database,
  input: { taskId: string; nodeId: string; walletAddress: string; leaseToken: string; answer: string; now: number },
): Promise<{ units: number; tokens: number; userId: number } | undefined> {
  return db.transaction(async (tx) => {
    const [task] = await tx
      .update(computeTasks)
      .set({ status: "done", answer: input.answer, error: null, leaseToken: null, leaseUntil: null, finishedAt: new Date(input.now) })
      .where(held(input.taskId, input.nodeId, input.leaseToken))
      .returning({ prompt: computeTasks.prompt, userId: computeTasks.userId });
    if (!task) return undefined;
    const tokens = estimateTokens(task.prompt) + estimateTokens(input.answer);
    const units = unitsFor(tokens);
    await tx.insert(computeLedger).values({ taskId: input.taskId, nodeId: input.nodeId, walletAddress: input.walletAddress, units, tokens, createdAt: new Date(input.now) });
    return { units, tokens, userId: task.userId };
  });
}

/** The holder could not answer: another node tries, unless the attempts are used up. */
export async function failTask(
  db: Database,
  input: { taskId: string; nodeId: string; leaseToken: string; error: string; now: number },
): Promise<TaskOutcome | undefined> {
  const [task] = await db
    .update(computeTasks)
    .set({
      status: sql`case when ${computeTasks.attempts} >= ${TASK_MAX_ATTEMPTS} then 'failed' else 'queued' end`,
      excludedNodeIds: sql`case when ${computeTasks.excludedNodeIds} = '' then ${input.nodeId} else ${computeTasks.excludedNodeIds} || ',' || ${input.nodeId} end`,
      error: input.error.slice(0, 500),
      nodeId: null,
      leaseToken: null,
      leaseUntil: null,
      finishedAt: sql`case when ${computeTasks.attempts} >= ${TASK_MAX_ATTEMPTS} then ${input.now} else null end`,
    })
    .where(held(input.taskId, input.nodeId, input.leaseToken))
    .returning({ id: computeTasks.id, status: computeTasks.status, answer: computeTasks.answer, error: computeTasks.error });
  if (task) await db.update(computeNodes).set({ lastFailureAt: new Date(input.now) }).where(eq(computeNodes.id, input.nodeId));
  return task;
}

/** The holder is stopping: the task goes back to the queue at once, and the attempt does not count. */
export async function releaseTask(db: Database, input: { taskId: string; nodeId: string; leaseToken: string }): Promise<boolean> {
  const rows = await db
    .update(computeTasks)
    .set({ status: "queued", nodeId: null, leaseToken: null, leaseUntil: null, attempts: sql`max(0, ${computeTasks.attempts} - 1)` })
    .where(held(input.taskId, input.nodeId, input.leaseToken))
    .returning({ id: computeTasks.id });
  return rows.length > 0;
}

/** A revoked node's tasks go back to the queue (they do not count as its failures). */
export async function releaseTasksOfNode(db: Database, nodeId: string): Promise<number> {
  const rows = await db
    .update(computeTasks)
    .set({ status: "queued", nodeId: null, leaseToken: null, leaseUntil: null, attempts: sql`max(0, ${computeTasks.attempts} - 1)` })
    .where(and(eq(computeTasks.nodeId, nodeId), eq(computeTasks.status, "leased")))
    .returning({ id: computeTasks.id });
  return rows.length;
}

/** A heartbeat keeps the node's leases alive while it works. */
export async function renewLeases(db: Database, nodeId: string, leaseMs: number, now: number): Promise<void> {
  await db
    .update(computeTasks)
    .set({ leaseUntil: new Date(now + leaseMs) })
    .where(and(eq(computeTasks.nodeId, nodeId), eq(computeTasks.status, "leased")));
}

/**
 * Housekeeping of one pass: leases that ran out (the node died or hung) go
 * back to the queue for another node, or fail once the attempts are used
 * up; tasks past their deadline expire. Returns the tasks that reached an
 * end here, so their waiters can be told.
 */
export async function expireTasks(db: Database, now: number): Promise<TaskOutcome[]> {
  const at = new Date(now);
  const ended: TaskOutcome[] = [];
  const lapsed = await db
    .select({ id: computeTasks.id, nodeId: computeTasks.nodeId, leaseToken: computeTasks.leaseToken })
    .from(computeTasks)
    .where(and(eq(computeTasks.status, "leased"), lt(computeTasks.leaseUntil, at)))
    .limit(100);
  for (const task of lapsed) {
    if (!task.nodeId || !task.leaseToken) continue;
    const outcome = await failTask(db, { taskId: task.id, nodeId: task.nodeId, leaseToken: task.leaseToken, error: "The node stopped answering.", now });
    if (outcome && outcome.status !== "queued") ended.push(outcome);
  }
  ended.push(
    ...(await db
      .update(computeTasks)
      .set({ status: "expired", nodeId: null, leaseToken: null, leaseUntil: null, finishedAt: at })
      .where(and(inArray(computeTasks.status, ["queued", "leased"]), lte(computeTasks.deadlineAt, at)))
      .returning({ id: computeTasks.id, status: computeTasks.status, answer: computeTasks.answer, error: computeTasks.error })),
  );
  return ended;
}

/** The asker stopped waiting: an unfinished task expires (a late answer is then refused and earns nothing). */
export async function expireTask(db: Database, taskId: string, now: number): Promise<void> {
  await db
    .update(computeTasks)
    .set({ status: "expired", nodeId: null, leaseToken: null, leaseUntil: null, finishedAt: new Date(now) })
    .where(and(eq(computeTasks.id, taskId), inArray(computeTasks.status, ["queued", "leased"])));
}

export async function taskOutcome(db: Database, taskId: string): Promise<TaskOutcome | undefined> {
  const [task] = await db
    .select({ id: computeTasks.id, status: computeTasks.status, answer: computeTasks.answer, error: computeTasks.error })
    .from(computeTasks)
    .where(eq(computeTasks.id, taskId));
  return task;
}

/** Prompts and answers are people's words: finished tasks are deleted after a day (the ledger keeps the units). */
export const TASK_RETENTION_MS = 24 * 3600 * 1000;
export async function deleteOldTasks(db: Database, now: number): Promise<void> {
  await db.delete(computeTasks).where(and(inArray(computeTasks.status, ["done", "failed", "expired"]), lt(computeTasks.createdAt, new Date(now - TASK_RETENTION_MS))));
}
