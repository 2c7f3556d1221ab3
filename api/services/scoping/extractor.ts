import { readFileSync } from "node:fs";
import { setPriority } from "node:os";
import type { Subprocess } from "bun";
import { DocumentError, type DocumentFormat } from "./extract.ts";
import type { DocumentExtractor } from "../../workers/ports.ts";
import { TOO_LARGE_MESSAGE } from "./document-limits.ts";

/** How long one document may take to read before its process is killed. */
export const EXTRACT_TIMEOUT_MS = 30_000;
/** Resident size past which an extraction process is killed (the server's own memory is never at stake). */
export const EXTRACT_MEMORY_BYTES = 512 * 1024 * 1024;
/** After a job, a process this large is replaced rather than kept (pdf.js and mammoth keep caches). */
const RECYCLE_BYTES = 256 * 1024 * 1024;
/** Long-lived processes: a start costs ~150 ms (Bun + pdf.js), so they are reused. */
const POOL_SIZE = 2;
const WATCH_MS = 25;

export const TIMEOUT_MESSAGE = "The document took too long to read. Upload a shorter document or plain text.";

type Extracted = { format: DocumentFormat; text: string };
type Done = { id: number; ok: true; format: DocumentFormat; text: string } | { id: number; ok: true; plan: unknown };
type Reply = { ready: true } | Done | { id: number; ok: false; kind: DocumentError["kind"]; message: string };
interface Pending {
  id: number;
  /** A document to read, or a text the built-in planner plans. */
  work: { bytes: Uint8Array } | { plan: { fileName: string; text: string } };
  resolve: (r: Done) => void;
  reject: (e: Error) => void;
}
interface Slot {
  proc: Subprocess;
  ready: boolean;
  job?: Pending;
  timer?: Timer;
  /** Highest resident size seen while the current job ran. */
  peak: number;
}

/**
 * Reads uploaded documents in separate Bun processes (extract-process.ts),
 * so a hostile document costs at most that process: it is killed when its
 * resident size passes EXTRACT_MEMORY_BYTES (checked every WATCH_MS) or a
 * document takes longer than EXTRACT_TIMEOUT_MS, and only the job it was
 * reading fails; jobs queued behind it go to the other process or to a new
 * one. The children get no environment beyond PATH: no key or database URL
 * ever reaches the code that parses untrusted bytes.
 */
export class Extractor implements DocumentExtractor {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private watch?: Timer;
  private closed = false;
  /** Peak resident size of extraction processes, for tests and the log. */
  lastPeakBytes = 0;

  constructor(private readonly options: { memoryBytes?: number; timeoutMs?: number; poolSize?: number } = {}) {}

  async extract(bytes: Uint8Array): Promise<Extracted> {
    const done = await this.run({ bytes });
    if (!("text" in done)) throw new Error("the extraction process answered a read with a plan");
    return { format: done.format, text: done.text };
  }

  /**
   * The built-in planner's plan of a text, made in an extraction process: a
   * long document takes tens of milliseconds of CPU to plan, which the
   * server's requests should not wait behind (scripts/bench/scoping.ts,
   * health ratio). Same limits and timeout as a read.
   */
  async plan(document: { fileName: string; text: string }): Promise<unknown> {
    const done = await this.run({ plan: { fileName: document.fileName, text: document.text } });
    if (!("plan" in done)) throw new Error("the extraction process answered a plan with a read");
    return done.plan;
  }

  private run(work: Pending["work"]): Promise<Done> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, work, resolve, reject });
      this.dispatch();
    });
  }

  /** Process ids of the running extraction processes (tests measure them). */
  pids(): number[] {
    return this.slots.map((s) => s.proc.pid);
  }

  private dispatch(): void {
    if (this.closed) return;
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.ready && !s.job);
      if (!slot) {
        const starting = this.slots.some((s) => !s.ready);
        if (!starting && this.slots.length < (this.options.poolSize ?? POOL_SIZE)) this.spawn();
        return;
      }
      const job = this.queue.shift()!;
      slot.job = job;
      slot.peak = 0;
      slot.timer = setTimeout(() => this.kill(slot!, new DocumentError("unreadable", TIMEOUT_MESSAGE)), this.options.timeoutMs ?? EXTRACT_TIMEOUT_MS);
      slot.proc.send({ id: job.id, ...job.work });
    }
    this.watchMemory();
  }

  private spawn(): void {
    const entry = new URL("./extract-process.ts", import.meta.url).pathname;
    const slot: Slot = { ready: false, peak: 0 } as Slot;
    slot.proc = Bun.spawn([process.execPath, "--smol", entry], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdio: ["ignore", "ignore", "ignore"],
      serialization: "advanced",
      ipc: (reply: Reply) => this.answer(slot, reply),
      onExit: () => this.exited(slot),
    });
    slot.proc.unref();
    try {
      // Below the server: parsing a long PDF must not take the CPU from requests (scripts/bench/scoping.ts, health ratio).
      setPriority(slot.proc.pid, 10);
    } catch {
      // Not permitted here: run at the same priority.
    }
    this.slots.push(slot);
  }

  private answer(slot: Slot, reply: Reply): void {
    if ("ready" in reply) {
      slot.ready = true;
      this.dispatch();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    this.finish(slot);
    if (reply.ok) job.resolve(reply);
    else job.reject(new DocumentError(reply.kind, reply.message));
    // A parser that failed may leave work behind that throws later (pdf.js after a stack overflow): a fresh process
    // for the next document rather than one that dies under it.
    if (!reply.ok || residentBytes(slot.proc.pid) > RECYCLE_BYTES) this.drop(slot);
    this.dispatch();
  }

  private finish(slot: Slot): void {
    clearTimeout(slot.timer);
    this.lastPeakBytes = Math.max(slot.peak, residentBytes(slot.proc.pid));
    slot.job = undefined;
  }

  private kill(slot: Slot, reason: Error): void {
    const job = slot.job;
    if (job) {
      this.finish(slot);
      job.reject(reason);
    }
    this.drop(slot);
    this.dispatch();
  }

  private drop(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    slot.proc.kill(9);
  }

  /** The process died on its own (a crash, a stack overflow): its job fails, the queue goes on. */
  private exited(slot: Slot): void {
    if (!this.slots.includes(slot)) return;
    if (!slot.ready) {
      // It never started: fail what waits rather than respawn in a loop.
      this.drop(slot);
      for (const job of this.queue.splice(0)) job.reject(new DocumentError("unreadable", "The document could not be read. Try again later."));
      return;
    }
    this.kill(slot, new DocumentError("unreadable", "The document could not be read. Save it again or upload it as text."));
  }

  private watchMemory(): void {
    if (this.watch) return;
    this.watch = setInterval(() => {
      const busy = this.slots.filter((s) => s.job);
      if (busy.length === 0) {
        clearInterval(this.watch);
        this.watch = undefined;
        return;
      }
      for (const slot of busy) {
        const rss = residentBytes(slot.proc.pid);
        slot.peak = Math.max(slot.peak, rss);
        if (rss > (this.options.memoryBytes ?? EXTRACT_MEMORY_BYTES)) this.kill(slot, new DocumentError("too-long", TOO_LARGE_MESSAGE));
      }
    }, WATCH_MS);
    (this.watch as Timer & { unref(): void }).unref();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.watch);
    this.watch = undefined;
    const stopping = () => new DocumentError("unreadable", "The server is stopping. Upload the document again.");
    for (const slot of [...this.slots]) {
      const job = slot.job;
      if (job) {
        this.finish(slot);
        job.reject(stopping());
      }
      this.drop(slot);
    }
    for (const job of this.queue.splice(0)) job.reject(stopping());
  }
}

/** Resident set size of a process, from /proc (0 where there is none). */
export function residentBytes(pid: number): number {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]);
    return pages * 4096;
  } catch {
    return 0;
  }
}
