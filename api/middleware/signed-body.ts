import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { open, readFile, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DomainError, ErrorCode } from "../errors.ts";

/** Bodies up to this size (by Content-Length) are read without a place in the gate. */
export const LARGE_BODY_BYTES = 1024 * 1024;
/** How long a sender turned away by the gate is asked to wait. */
export const BUSY_RETRY_AFTER_SECONDS = 5;
/**
 * A large body's chunks are garbage once hashed and written, but the
 * collector lets them pile up: two 20 MB reads grew the server by 35-58 MB
 * (issue 25 asks < 60 MB for ten posts). A collection after every
 * COLLECT_EVERY_BYTES read (at most one per COLLECT_MIN_INTERVAL_MS in the
 * whole process, so a sender cannot spend the event loop on collections:
 * a full collection takes ~15 ms, at most 15 % of the time) keeps it at 25-34 MB.
 */
const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;
const COLLECT_MIN_INTERVAL_MS = 100;
let lastCollectAt = 0;

/**
 * How many large unauthenticated bodies may be read at once. Anyone can post
 * to a webhook; until its last byte is hashed nobody knows whether it is
 * genuine, so the number of large reads in flight is what bounds memory.
 */
export class BodyGate {
  private inFlight = 0;
  constructor(readonly max: number) {}
  tryEnter(): boolean {
    if (this.inFlight >= this.max) return false;
    this.inFlight++;
    return true;
  }
  leave(): void {
    this.inFlight--;
  }
}

export interface SignedBodyOptions {
  algorithm: "sha256" | "sha512";
  secret: string;
  /** The signature the sender claims, in hex (already checked to be well-formed hex). */
  signatureHex: string;
  maxBytes: number;
  gate: BodyGate;
  invalid: () => DomainError;
}

/**
 * Reads a webhook body while computing its HMAC, chunk by chunk as it
 * arrives: a declared length over the limit is refused before a byte is
 * read, a body that grows past it is cut off as soon as it does, a large
 * body waits for no one (503 with Retry-After when the gate is full), and
 * the signature is compared (constant time) the moment the last chunk is
 * hashed. Past LARGE_BODY_BYTES the bytes go to a temporary file (0600)
 * rather than memory, so an unverified body is never held: a forged one is
 * deleted unread, a genuine one read back. The bytes are returned only when
 * they are genuine.
 */
export async function readSignedBody(request: Request, options: SignedBodyOptions): Promise<Uint8Array> {
  const tooLarge = () =>
    new DomainError({ code: ErrorCode.PAYLOAD_TOO_LARGE, error: "Payload Too Large", message: `The request body is larger than the limit of ${Math.round(options.maxBytes / 1048576)} MB.` });
  const header = request.headers.get("content-length");
  const declared = header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
  if (declared !== undefined && declared > options.maxBytes) throw tooLarge();
  const busy = () =>
    new DomainError({
      code: ErrorCode.OVERLOADED,
      error: "Service Unavailable",
      message: "Too many large webhook deliveries at once. Retry shortly.",
      // Closing the connection spares reading (and buffering) a body that will not be used.
      headers: { "Retry-After": String(BUSY_RETRY_AFTER_SECONDS), Connection: "close" },
    });
  // A body declared large takes a place before it is read; one without a length takes it once it grows large.
  let large = declared !== undefined && declared > LARGE_BODY_BYTES;
  if (large && !options.gate.tryEnter()) {
    await request.body?.cancel().catch(() => {});
    throw busy();
  }
  let spill: { path: string; handle: FileHandle } | undefined;
  try {
    const hmac = createHmac(options.algorithm, options.secret);
    const chunks: Uint8Array[] = [];
    let total = 0;
    let collectedAt = 0;
    if (request.body) {
      const reader = request.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > options.maxBytes) {
          await reader.cancel().catch(() => {});
          throw tooLarge();
        }
        if (!large && total > LARGE_BODY_BYTES) {
          if (!options.gate.tryEnter()) {
            await reader.cancel().catch(() => {});
            throw busy();
          }
          large = true;
        }
        hmac.update(value);
        if (total - collectedAt > COLLECT_EVERY_BYTES && performance.now() - lastCollectAt > COLLECT_MIN_INTERVAL_MS) {
          collectedAt = total;
          lastCollectAt = performance.now();
          Bun.gc(true);
        }
        if (!spill && total > LARGE_BODY_BYTES) {
          const path = join(tmpdir(), `issuepool-webhook-${randomUUID()}`);
          spill = { path, handle: await open(path, "wx", 0o600) };
          for (const chunk of chunks.splice(0)) await spill.handle.write(chunk);
        }
        if (spill) await spill.handle.write(value);
        else chunks.push(value);
      }
    }
    const expected = Buffer.from(options.signatureHex, "hex");
    const actual = hmac.digest();
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
      chunks.length = 0;
      throw options.invalid();
    }
    if (spill) {
      await spill.handle.close();
      return new Uint8Array(await readFile(spill.path));
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  } finally {
    if (spill) {
      await spill.handle.close().catch(() => {});
      await rm(spill.path, { force: true });
    }
    if (large) options.gate.leave();
  }
}
