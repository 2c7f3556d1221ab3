import { openSync, writeSync } from "node:fs";
import pino, { type DestinationStream, type Logger as Pino, type LoggerOptions } from "pino";
import { prettyFactory } from "pino-pretty";

/**
 * The server's log, written by pino (issue 41): one JSON object per line
 * (`time`, `level`, `msg`, the bound fields such as `requestId`, then the
 * line's own), or pino-pretty's readable lines in development
 * (`LOG_FORMAT=pretty`). What this module adds to pino:
 *
 * - **Redaction by configuration.** Fields whose names are secrets are
 *   replaced by `[redacted]` at any depth, in the line's fields and in bound
 *   fields (pino's `formatters`): the names in `SECRET_FIELD_NAMES` (keys,
 *   tokens, cookies, one-time codes, the on-ramp's signatures…) plus those
 *   configured in `LOG_REDACT_FIELDS`. Known secret values (APP_SECRET, the
 *   master keys, the operator's key: `secretValues`) are also cut out of any
 *   string they appear in, the message included (pino's `logMethod` hook),
 *   so an error message that quotes one does not leak it.
 * - **The destination**: standard output or `LOG_FILE`, buffered and written
 *   synchronously, whole, also when the process exits at once or the reader
 *   is slow (the guarantees api/logger.test.ts keeps).
 * - **The request line** (`request`), on the hot path: its fields are the
 *   method, the path without its query, the status, the duration and the
 *   request id, none of which can hold a secret, so it skips the redaction
 *   walk; in JSON it is built directly, in the shape pino gives every other
 *   line (measured under Bun on a loaded 2-core machine: 2.5 µs a line, against
 *   11 µs through pino, which at the health check's 100,000 requests a
 *   second would have cost most of a core). Pretty lines go through pino.
 *
 * The `Logger` interface is the one every caller has always used.
 */

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFields = Record<string, unknown>;
export type LogFormat = "json" | "pretty";

/**
 * Field names that are always redacted, matched without regard to case, as a
 * whole name or inside a longer one (`sessionToken`, `GITHUB_CLIENT_SECRET`,
 * `x-onramp-signature`); `key` alone as a whole name only.
 */
export const SECRET_FIELD_NAMES = [
  "password",
  "passwd",
  "secret",
  "token",
  "authorization",
  "cookie",
  "privatekey",
  "private_key",
  "otp",
  "code_verifier",
  "codeverifier",
  "encrypted",
  "cipher",
  "signature",
  "mnemonic",
  "seed_phrase",
  "apikey",
  "api_key",
];

export interface Redaction {
  /** More field names to redact (LOG_REDACT_FIELDS), matched as SECRET_FIELD_NAMES are. */
  fields?: readonly string[];
  /** Secret values never to write, wherever they appear (the configured secrets). */
  values?: readonly string[];
}

const CENSOR = "[redacted]";

/** A name test for `fields` on top of the built-in names, with a cache (log lines repeat their field names). */
function secretFieldTest(extra: readonly string[] = []): (key: string) => boolean {
  const names = [...SECRET_FIELD_NAMES, ...extra.map((f) => f.trim().toLowerCase()).filter(Boolean)];
  const escaped = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/[_-]/g, "[_-]?"));
  const pattern = new RegExp(`${escaped.join("|")}|^key$`, "i");
  const cache = new Map<string, boolean>();
  return (key) => {
    let secret = cache.get(key);
    if (secret === undefined) {
      secret = pattern.test(key);
      if (cache.size < 10_000) cache.set(key, secret);
    }
    return secret;
  };
}

const defaultIsSecretField = secretFieldTest();

/** Cuts the known secret values out of `text`. Secrets shorter than 8 characters are not looked for (too many false hits). */
function censorValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const value of values) if (out.includes(value)) out = out.split(value).join(CENSOR);
  return out;
}

/**
 * `value` with secret-named fields replaced, Errors as `{ name, message, stack }`, bigints as decimal strings, and
 * known secret values cut out of strings.
 */
export function redact(value: unknown, depth = 0, isSecretField = defaultIsSecretField, values: readonly string[] = []): unknown {
  if (typeof value === "string") return values.length ? censorValues(value, values) : value;
  if (depth > 6 || value === null || typeof value !== "object") {
    return typeof value === "bigint" ? value.toString() : value;
  }
  if (value instanceof Error) {
    return redact({ name: value.name, message: value.message, stack: value.stack }, depth + 1, isSecretField, values);
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, isSecretField, values));
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretField(k) ? CENSOR : redact(v, depth + 1, isSecretField, values);
  }
  return out;
}

/**
 * Standard output (or a file), buffered: lines written within 25 ms leave in
 * one write, so logging a request costs no system call of its own. Whatever
 * is still buffered is written synchronously when the process exits.
 */
function buffered(writeChunk: (chunk: string) => void): (line: string) => void {
  let pending: string[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    if (pending.length === 0) return;
    const chunk = pending.join("");
    pending = [];
    size = 0;
    writeChunk(chunk);
  };
  process.on("exit", () => {
    try {
      if (pending.length) writeChunk(pending.join(""));
    } catch {
      // nowhere left to write
    }
    pending = [];
  });
  return (line) => {
    pending.push(line.endsWith("\n") ? line : line + "\n");
    if (++size >= 512) flush();
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
  return buffered((chunk) => writeAllSync(1, chunk));
}

let stdoutWriter: ((line: string) => void) | undefined;
const defaultWrite = (line: string) => (stdoutWriter ??= bufferedStdout())(line);

/** Where log lines go: standard output, or appended to `file` (LOG_FILE) when one is configured. */
export function logDestination(file?: string): (line: string) => void {
  if (!file) return defaultWrite;
  const fd = openSync(file, "a");
  return buffered((chunk) => writeAllSync(fd, chunk));
}

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** The per-request line, on the hot path: no redaction needed (no field of it can hold a secret). */
  request(method: string, path: string, status: number, ms: number, requestId: string): void;
  child(fields: LogFields): Logger;
}

/** pino's output as the destination takes it: one JSON line per call, pretty-printed first in `pretty` format. */
function streamFor(write: (line: string) => void, format: LogFormat, requests: boolean): DestinationStream {
  if (format === "json") return { write: (line: string) => write(line.endsWith("\n") ? line.slice(0, -1) : line) };
  // `12:00:01 INFO  GET /repos 200 3.1ms` and `12:00:01 WARN  pool manager review failed {"err":"…"}`.
  const pretty = prettyFactory({
    colorize: false,
    translateTime: "SYS:HH:MM:ss",
    ignore: "pid,hostname",
    singleLine: true,
    // An error is a field like any other (redact() made it { name, message, stack }): on the line, not below it.
    errorLikeObjectKeys: [],
    ...(requests ? { hideObject: true, messageFormat: "{method} {path} {status} {ms}ms" } : {}),
  });
  return { write: (line: string) => write(pretty(line).replace(/\n$/, "")) };
}

function pinoOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: "msg",
    formatters: { level: (label) => ({ level: label }) },
    // No serializer of pino's own: redact() already made errors plain (with a `name`, as the lines always had).
    serializers: { err: (err: unknown) => err },
  };
}

export interface LoggerSettings {
  redaction?: Redaction;
}

export function createLogger(
  level: LogLevel = "info",
  write: (line: string) => void = defaultWrite,
  bound: LogFields = {},
  format: LogFormat = "json",
  settings: LoggerSettings = {},
): Logger {
  const isSecretField = settings.redaction?.fields?.length ? secretFieldTest(settings.redaction.fields) : defaultIsSecretField;
  const values = (settings.redaction?.values ?? []).filter((v) => v.length >= 8);
  const scrub = (fields: object) => redact(fields, 0, isSecretField, values) as Record<string, unknown>;
  const records = pino(
    {
      ...pinoOptions(level),
      // Bound fields are scrubbed when bound (PinoLogger.bind): pino applies no formatter to a child's bindings.
      formatters: { level: (label) => ({ level: label }), log: scrub },
      hooks: {
        // The message too: an error's text can quote what it failed on.
        logMethod(args, method) {
          if (values.length) for (let i = 0; i < args.length; i++) if (typeof args[i] === "string") args[i] = censorValues(args[i] as string, values);
          return method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    streamFor(write, format, false),
  );
  const requests = format === "json" ? directRequestLine(level, write) : pinoRequestLine(pino(pinoOptions(level), streamFor(write, format, true)));
  const root = new PinoLogger(records, requests, scrub);
  return Object.keys(bound).length ? root.bind(bound) : root;
}

type RequestLine = (at: "info" | "warn" | "error", method: string, path: string, status: number, ms: number, requestId: string) => void;

const RANK = { debug: 20, info: 30, warn: 40, error: 50, silent: Infinity } as const;

/** The request line as pino writes a line (level, time, fields, msg last), built directly (see the module's comment). */
function directRequestLine(level: LogLevel, write: (line: string) => void): RequestLine {
  return (at, method, path, status, ms, requestId) => {
    if (RANK[at] < RANK[level]) return;
    write(
      `{"level":"${at}","time":"${isoNow()}","method":${jsonString(method)},"path":${jsonString(path)},` +
        `"status":${status},"ms":${ms},"requestId":${jsonString(requestId)},"msg":"request"}`,
    );
  };
}

function pinoRequestLine(requests: Pino): RequestLine {
  return (at, method, path, status, ms, requestId) => requests[at]({ method, path, status, ms, requestId }, "request");
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

class PinoLogger implements Logger {
  constructor(
    private readonly records: Pino,
    private readonly requests: RequestLine,
    private readonly scrub: (fields: object) => Record<string, unknown>,
  ) {}
  debug(msg: string, fields?: LogFields): void {
    this.records.debug(fields ?? {}, msg);
  }
  info(msg: string, fields?: LogFields): void {
    this.records.info(fields ?? {}, msg);
  }
  warn(msg: string, fields?: LogFields): void {
    this.records.warn(fields ?? {}, msg);
  }
  error(msg: string, fields?: LogFields): void {
    this.records.error(fields ?? {}, msg);
  }
  /** A logger with `fields` bound, made now. */
  bind(fields: LogFields): PinoLogger {
    return new PinoLogger(this.records.child(this.scrub(fields)), this.requests, this.scrub);
  }
  request(method: string, path: string, status: number, ms: number, requestId: string): void {
    // 502/503/504 are answers we meant to give (a dependency down, logged with its cause by api/middleware/errors.ts).
    const at = status >= 502 && status <= 504 ? "warn" : status >= 500 ? "error" : "info";
    this.requests(at, method, path, status, ms, requestId);
  }
  child(fields: LogFields): Logger {
    return new LazyChild(this, fields);
  }
}

/**
 * A logger with more fields bound. Made for every request (with its id), so it is one small object that builds the
 * pino child (which serialises its bindings) only when it first logs.
 */
class LazyChild implements Logger {
  private made?: Logger;
  constructor(
    private readonly parent: PinoLogger,
    private readonly fields: LogFields,
  ) {}
  private get logger(): Logger {
    return (this.made ??= this.parent.bind(this.fields));
  }
  debug(msg: string, fields?: LogFields): void {
    this.logger.debug(msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.logger.info(msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.logger.warn(msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.logger.error(msg, fields);
  }
  request(method: string, path: string, status: number, ms: number, requestId: string): void {
    this.parent.request(method, path, status, ms, requestId);
  }
  child(fields: LogFields): Logger {
    return new LazyChild(this.parent, { ...this.fields, ...fields });
  }
}

/** A logger that remembers lines, for tests that assert on what was logged. */
export function createMemoryLogger(level: LogLevel = "debug", settings: LoggerSettings = {}): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(createLogger(level, (line) => lines.push(line), {}, "json", settings), { lines });
}
