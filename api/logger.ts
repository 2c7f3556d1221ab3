import { openSync, writeSync } from "node:fs";

/**
 * One JSON object per line on stdout. Fields whose names look like secrets
 * are redacted wherever they appear, so a careless `log.info(..., { body })`
 * cannot leak a token or a key.
 */

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFields = Record<string, unknown>;

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_FIELD = /pass(word)?|secret|token|authorization|cookie|private.?key|otp|code_?verifier|encrypted|cipher|^key$/i;
const secretKeys = new Map<string, boolean>();
const isSecretField = (key: string) => {
  let secret = secretKeys.get(key);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(key);
    if (secretKeys.size < 10_000) secretKeys.set(key, secret);
  }
  return secret;
};

/**
 * Standard output (or a file), buffered: lines written within 25 ms leave in
 * one write, so logging a request costs no system call of its own. Whatever
 * is still buffered is written synchronously when the process exits.
 */
function buffered(writeChunk: (chunk: string) => void, writeNow: (chunk: string) => void): (line: string) => void {
  let pending: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    if (pending.length === 0) return;
    const chunk = pending.join("\n") + "\n";
    pending = [];
    writeChunk(chunk);
  };
  process.on("exit", () => {
    try {
      if (pending.length) writeNow(pending.join("\n") + "\n");
    } catch {
      // nowhere left to write
    }
    pending = [];
  });
  return (line) => {
    pending.push(line);
    if (pending.length >= 512) flush();
    else timer ??= setTimeout(flush, 25);
  };
}

/**
 * Writes all of `chunk` to `fd` before returning, as Node does for stdout on
 * a pipe. An asynchronous stream write can be left half done in the stream's
 * memory when the process exits: a slow log reader lost a quarter of 5,000
 * lines and got one cut in half (api/logger.test.ts). A non-blocking pipe
 * that is full (EAGAIN) is waited on; a closed one (EPIPE, the reader went
 * away) drops the chunk: logging must not bring the server down.
 */
function writeAllSync(fd: number, chunk: string): void {
  let bytes = Buffer.from(chunk);
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") return;
      Atomics.wait((pause ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, 1);
    }
  }
}
/** What writeAllSync waits on for a millisecond when the pipe is full (made once, when first needed). */
let pause: Int32Array | undefined;

function bufferedStdout(): (line: string) => void {
  // A closed stdout (the log reader went away) must not bring the server down.
  process.stdout.on("error", () => {});
  return buffered(
    (chunk) => writeAllSync(1, chunk),
    (chunk) => writeAllSync(1, chunk),
  );
}

let stdoutWriter: ((line: string) => void) | undefined;
const defaultWrite = (line: string) => (stdoutWriter ??= bufferedStdout())(line);

/** Where log lines go: standard output, or appended to `file` (LOG_FILE) when one is configured. */
export function logDestination(file?: string): (line: string) => void {
  if (!file) return defaultWrite;
  const fd = openSync(file, "a");
  return buffered(
    (chunk) => writeSync(fd, chunk),
    (chunk) => writeSync(fd, chunk),
  );
}

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** The per-request line, on the hot path: no redaction needed, built directly. */
  request(method: string, path: string, status: number, ms: number, requestId: string): void;
  child(fields: LogFields): Logger;
}

export type LogFormat = "json" | "pretty";

export function createLogger(
  level: LogLevel = "info",
  write: (line: string) => void = defaultWrite,
  bound: LogFields = {},
  format: LogFormat = "json",
): Logger {
  const emit = (at: Exclude<LogLevel, "silent">, msg: string, fields?: LogFields) => {
    if (rank[at] < rank[level]) return;
    const record = redact({ time: new Date().toISOString(), level: at, msg, ...bound, ...fields }) as LogFields;
    write(format === "json" ? JSON.stringify(record) : pretty(record));
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    request: (method, path, status, ms, requestId) => {
      // 502/503/504 are answers we meant to give (a dependency down, logged with its cause by api/middleware/errors.ts).
      const at = status >= 502 && status <= 504 ? "warn" : status >= 500 ? "error" : "info";
      if (rank[at] < rank[level]) return;
      if (format !== "json" || Object.keys(bound).length > 0) {
        emit(at, "request", { method, path, status, ms, requestId });
        return;
      }
      write(
        `{"time":"${isoNow()}","level":"${at}","msg":"request","method":${jsonString(method)},` +
          `"path":${jsonString(path)},"status":${status},"ms":${ms},"requestId":${jsonString(requestId)}}`,
      );
    },
    child(fields) {
      return new ChildLogger(this, fields);
    },
  };
}

/**
 * A logger with more fields bound. Made for every request (with its id), so
 * it is one small object that builds nothing until it logs.
 */
class ChildLogger implements Logger {
  constructor(
    private readonly parent: Logger,
    private readonly fields: LogFields,
  ) {}
  debug(msg: string, fields?: LogFields): void {
    this.parent.debug(msg, { ...this.fields, ...fields });
  }
  info(msg: string, fields?: LogFields): void {
    this.parent.info(msg, { ...this.fields, ...fields });
  }
  warn(msg: string, fields?: LogFields): void {
    this.parent.warn(msg, { ...this.fields, ...fields });
  }
  error(msg: string, fields?: LogFields): void {
    this.parent.error(msg, { ...this.fields, ...fields });
  }
  request(method: string, path: string, status: number, ms: number, requestId: string): void {
    this.parent.request(method, path, status, ms, requestId);
  }
  child(fields: LogFields): Logger {
    return new ChildLogger(this.parent, { ...this.fields, ...fields });
  }
}

/** `12:00:01 INFO  request GET /repos 200 3.1ms` for a terminal. */
function pretty(record: LogFields): string {
  const { time, level, msg, ...rest } = record;
  const clock = String(time).slice(11, 19);
  if (msg === "request") {
    return `${clock} ${String(level).toUpperCase().padEnd(5)} ${rest.method} ${rest.path} ${rest.status} ${rest.ms}ms`;
  }
  const extra = Object.keys(rest).length ? " " + JSON.stringify(rest) : "";
  return `${clock} ${String(level).toUpperCase().padEnd(5)} ${msg}${extra}`;
}

let isoMs = 0;
let isoText = "";
/** The current time as ISO 8601, formatted at most once per millisecond. */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029]/;
function jsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object") {
    return typeof value === "bigint" ? value.toString() : value;
  }
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretField(k) ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

/** A logger that remembers lines, for tests that assert on what was logged. */
export function createMemoryLogger(level: LogLevel = "debug"): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(createLogger(level, (line) => lines.push(line)), { lines });
}
