/**
 * One JSON object per line on stdout. Fields whose names look like secrets
 * are redacted wherever they appear, so a careless `log.info(..., { body })`
 * cannot leak a token or a key.
 */

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFields = Record<string, unknown>;

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_FIELD = /pass(word)?|secret|token|authorization|cookie|private.?key|otp|code_verifier|encrypted|cipher|^key$/i;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export type LogFormat = "json" | "pretty";

export function createLogger(
  level: LogLevel = "info",
  write: (line: string) => void = (line) => process.stdout.write(line + "\n"),
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
    child: (fields) => createLogger(level, write, { ...bound, ...fields }, format),
  };
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
    out[k] = SECRET_FIELD.test(k) ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

/** A logger that remembers lines, for tests that assert on what was logged. */
export function createMemoryLogger(level: LogLevel = "debug"): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(createLogger(level, (line) => lines.push(line)), { lines });
}
