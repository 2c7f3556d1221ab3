import { and, asc, eq, inArray, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { encodeHexLowerCase } from "@oslojs/encoding";
import type { Database } from "../../db/client.ts";
import { scopingJobs } from "../../db/schema/index.ts";
import type { Logger } from "../logger.ts";
import { failedJobText, planWithFallback } from "../services/scoping/plan-job.ts";
import { PlannerFailure } from "../services/scoping/openai-planner.ts";
import { InvalidPlanError, type Planner } from "../services/scoping/plan.ts";
import { DOCUMENT_FAILURE_PREFIX, DocumentError, textSha256 } from "../services/scoping/document-error.ts";
import { Periodic } from "./periodic.ts";
import type { BackgroundWorker } from "./ports.ts";

/** Attempts before a job that keeps failing for passing reasons (model server down) is given up. */
export const SCOPING_MAX_ATTEMPTS = 4;
/** Jobs one process works at once (a model answer can take a minute; the built-in planner takes milliseconds). */
const CONCURRENCY = 4;

type Job = typeof scopingJobs.$inferSelect;

/**
 * Works scoping jobs like the webhook worker works deliveries: a job is
 * leased (renewed every third of the lease while it runs), so several
 * processes can share the queue and a crashed process's job is taken up
 * again once its lease runs out. Only the lease holder can finish a job (the
 * lease token is checked in the same UPDATE), so a job completes exactly
 * once. Passing failures are retried with backoff up to
 * SCOPING_MAX_ATTEMPTS; a model that answers badly or too slowly fails the
 * job at once. Expired jobs are deleted on each pass.
 */
export class ScopingWorker implements BackgroundWorker {
  private readonly active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly loop = new Periodic(
    "scoping",
    () => this.claimAndStart(),
    (err) => this.deps.log.warn("scoping worker pass failed", { err: (err as Error).message }),
  );

  constructor(
    private readonly deps: {
      db: Database;
      log: Logger;
      leaseMs: number;
      planner: (name: string) => Planner;
      /** Reads a PDF or DOCX waiting on its job (out of process: extractor.ts). */
      extract?: (bytes: Uint8Array) => Promise<{ format: string; text: string }>;
    },
  ) {}

  /** Claims every due job (up to the concurrency) and waits for them: for tests and one-off runs. */
  async runOnce(): Promise<number> {
    const started = await this.claimAndStart();
    await Promise.all([...this.active.values()].map((a) => a.done));
    return started;
  }

  private async claimAndStart(): Promise<number> {
    await this.deleteExpired();
    const free = CONCURRENCY - this.active.size;
    if (free <= 0) return 0;
    const now = new Date();
    const due = await this.deps.db
      .select({ id: scopingJobs.id })
      .from(scopingJobs)
      .where(
        and(
          inArray(scopingJobs.status, ["queued", "processing"]),
          lte(scopingJobs.nextAttemptAt, now),
          or(isNull(scopingJobs.leaseUntil), lt(scopingJobs.leaseUntil, now)),
        ),
      )
      .orderBy(asc(scopingJobs.createdAt), asc(scopingJobs.id))
      .limit(free);
    let started = 0;
    for (const { id } of due) {
      if (this.active.has(id)) continue;
      const job = await this.claim(id);
      if (!job) continue;
      started++;
      const controller = new AbortController();
      const done = this.work(job, controller.signal).finally(() => this.active.delete(id));
      this.active.set(id, { controller, done });
    }
    return started;
  }

  private async claim(id: string): Promise<(Job & { leaseToken: string }) | undefined> {
    const now = Date.now();
    const token = encodeHexLowerCase(crypto.getRandomValues(new Uint8Array(16)));
    const [job] = await this.deps.db
      .update(scopingJobs)
      .set({ status: "processing", leaseUntil: new Date(now + this.deps.leaseMs), leaseToken: token, attempts: sqlIncrement() })
      .where(
        and(
          eq(scopingJobs.id, id),
          inArray(scopingJobs.status, ["queued", "processing"]),
          or(isNull(scopingJobs.leaseUntil), lt(scopingJobs.leaseUntil, new Date(now))),
        ),
      )
      .returning();
    return job ? { ...job, leaseToken: token } : undefined;
  }

  private async work(job: Job & { leaseToken: string }, signal: AbortSignal): Promise<void> {
    const { db, log, leaseMs } = this.deps;
    const held = and(eq(scopingJobs.id, job.id), eq(scopingJobs.leaseToken, job.leaseToken), eq(scopingJobs.status, "processing"));
    const renew = setInterval(() => {
      db.update(scopingJobs)
        .set({ leaseUntil: new Date(Date.now() + leaseMs) })
        .where(held)
        .catch((err) => log.warn("scoping lease renewal failed", { jobId: job.id, err: (err as Error).message }));
    }, Math.max(250, Math.floor(leaseMs / 3)));
    try {
      const started = performance.now();
      const text = job.document ? await this.readDocument(job, held) : job.text;
      if (text === undefined) return;
      // A model that fails for good (or on the last attempt) gives way to the built-in planner; the job says so.
      const { plan, planner, fallback } = await planWithFallback(this.deps.planner(job.planner), { fileName: job.fileName, text }, { signal, lastAttempt: job.attempts >= SCOPING_MAX_ATTEMPTS });
      if (fallback) log.warn("scoping job planned by the built-in planner instead of the model", { jobId: job.id, reason: fallback });
      const [finished] = await db
        .update(scopingJobs)
        .set({ status: "completed", result: JSON.stringify(plan), projectName: plan.projectName, planner, error: fallback, leaseUntil: null, leaseToken: null, finishedAt: new Date() })
        .where(held)
        .returning({ id: scopingJobs.id });
      if (finished) log.info("scoping job completed", { jobId: job.id, planner, tasks: plan.tasks.length, attempts: job.attempts, ms: Math.round(performance.now() - started) });
      else log.warn("scoping job finished after losing its lease; the holder's result stands", { jobId: job.id });
    } catch (err) {
      if (signal.aborted) {
        // Stopping: give the job back at once rather than after the lease.
        await db.update(scopingJobs).set({ status: "queued", leaseUntil: null, leaseToken: null, attempts: job.attempts - 1 }).where(held);
        return;
      }
      const permanent = err instanceof PlannerFailure || err instanceof InvalidPlanError || job.attempts >= SCOPING_MAX_ATTEMPTS;
      const message = (err as Error).message.slice(0, 500);
      log.warn("scoping job attempt failed", { jobId: job.id, planner: job.planner, attempts: job.attempts, permanent, err: message });
      await db
        .update(scopingJobs)
        .set(
          permanent
            ? { status: "failed", error: failedJobText(err), leaseUntil: null, leaseToken: null, finishedAt: new Date() }
            : { status: "queued", error: message, leaseUntil: null, leaseToken: null, nextAttemptAt: new Date(Date.now() + 2000 * 2 ** Math.min(job.attempts, 8)) },
        )
        .where(held);
    } finally {
      clearInterval(renew);
    }
  }

  /**
   * Reads the job's document, keeps its text and drops the file. A document
   * that cannot be read fails its job for good with the reader's message
   * (the owner sees it); undefined then.
   */
  private async readDocument(job: Job, held: SQL | undefined): Promise<string | undefined> {
    if (!this.deps.extract) throw new Error("no document extractor configured");
    let extracted: { format: string; text: string };
    try {
      extracted = await this.deps.extract(new Uint8Array(job.document!));
    } catch (err) {
      if (!(err instanceof DocumentError)) throw err;
      this.deps.log.warn("scoping document refused", { jobId: job.id, kind: err.kind, err: err.message });
      await this.deps.db
        .update(scopingJobs)
        .set({ status: "failed", error: DOCUMENT_FAILURE_PREFIX + err.message, document: null, leaseUntil: null, leaseToken: null, finishedAt: new Date() })
        .where(held);
      return undefined;
    }
    await this.deps.db
      .update(scopingJobs)
      .set({ text: extracted.text, textSha256: textSha256(extracted.text), format: extracted.format, document: null })
      .where(held);
    return extracted.text;
  }

  private async deleteExpired(): Promise<void> {
    await this.deps.db.delete(scopingJobs).where(lt(scopingJobs.expiresAt, new Date()));
  }

  /** A job arrived: start it now rather than at the next tick. */
  nudge(): void {
    this.loop.nudge();
  }

  start(intervalMs = 1000): void {
    this.loop.start(intervalMs);
  }

  /** Stops claiming, aborts running jobs and gives them back to the queue. */
  async stop(): Promise<void> {
    await this.loop.stop();
    for (const { controller } of this.active.values()) controller.abort();
    await Promise.all([...this.active.values()].map((a) => a.done));
  }
}

const sqlIncrement = () => sql`${scopingJobs.attempts} + 1`;
