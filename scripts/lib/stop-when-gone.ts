/**
 * `npm start` stops itself when whoever started it is gone, as on SIGTERM.
 *
 * Two cases: its parent (npm, a shell) dies without passing a signal on, so this process is re-parented; or a
 * supervisor that started `npm start` in a process group of its own (a test runner, a script) dies, so nobody
 * is left to signal that group. The second needs the supervisor's pid, given as `STOP_WITH_PID`.
 */
import { ConfigError } from "../../api/env.ts";
import type { Logger } from "../../api/logger.ts";

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Parses `STOP_WITH_PID`: a positive integer, or nothing. */
export function parseStopWithPid(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const pid = Number(value);
  if (!Number.isSafeInteger(pid) || pid <= 1) throw new ConfigError(`STOP_WITH_PID must be a process id, got "${value}"`);
  return pid;
}

/**
 * Calls `stop` once, then exits, when the parent changes or `watchedPid` is gone. Checks every `intervalMs`
 * (the timer does not keep the process alive).
 */
export function stopWhenGone(
  stop: () => Promise<void>,
  log: Pick<Logger, "info">,
  options: { watchedPid?: number; intervalMs?: number; exit?: (code: number) => void } = {},
): () => void {
  const parent = process.ppid;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const timer = setInterval(() => {
    const orphaned = process.ppid !== parent;
    const supervisorGone = options.watchedPid !== undefined && !isAlive(options.watchedPid);
    if (!orphaned && !supervisorGone) return;
    clearInterval(timer);
    log.info(orphaned ? "parent process gone: stopping" : "STOP_WITH_PID process gone: stopping", {
      parent,
      watchedPid: options.watchedPid,
    });
    stop().then(
      () => exit(0),
      () => exit(1),
    );
  }, options.intervalMs ?? 500);
  timer.unref();
  return () => clearInterval(timer);
}
