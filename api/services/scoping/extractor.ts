import { DocumentError, type DocumentFormat } from "./extract.ts";
import type { DocumentExtractor } from "../../workers/ports.ts";

/** How long one document may take to read before the worker is replaced. */
export const EXTRACT_TIMEOUT_MS = 30_000;

type Reply = { id: number; ok: true; format: DocumentFormat; text: string } | { id: number; ok: false; kind: DocumentError["kind"]; message: string };

/**
 * Reads uploaded documents in a worker thread, so parsing a long PDF never
 * blocks the server's event loop (health checks and other requests keep
 * their pace). One worker, requests queued in order; a document that takes
 * longer than EXTRACT_TIMEOUT_MS is refused and the worker replaced.
 */
export class Extractor implements DocumentExtractor {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: { format: DocumentFormat; text: string }) => void; reject: (e: Error) => void; timer: Timer }>();

  extract(bytes: Uint8Array): Promise<{ format: DocumentFormat; text: string }> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new DocumentError("unreadable", "The document took too long to read. Upload a shorter document or plain text."));
        this.restart();
      }, EXTRACT_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, bytes });
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL("./extract-worker.ts", import.meta.url).href);
    (worker as Worker & { unref(): void }).unref();
    worker.onmessage = (event: MessageEvent<Reply>) => {
      const reply = event.data;
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      clearTimeout(waiting.timer);
      if (reply.ok) waiting.resolve({ format: reply.format, text: reply.text });
      else waiting.reject(new DocumentError(reply.kind, reply.message));
    };
    worker.onerror = (event) => {
      for (const [id, waiting] of this.pending) {
        clearTimeout(waiting.timer);
        waiting.reject(new DocumentError("unreadable", "The document could not be read."));
        this.pending.delete(id);
      }
      this.restart();
      event.preventDefault?.();
    };
    this.worker = worker;
    return worker;
  }

  private restart(): void {
    this.worker?.terminate();
    this.worker = undefined;
    // Anything still queued on the old worker is lost with it: ask again on a new one.
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new DocumentError("unreadable", "The document could not be read. Try again."));
      this.pending.delete(id);
    }
  }

  close(): void {
    this.restart();
  }
}
