/**
 * Repaired before trusted (issue 37, item 6). After any restart the platform's beliefs about the chain (the
 * outbox's confirmed rows and their blocks, each signer's nonce, the indexer's cursor, the chain's identity) are
 * checked against the chain before anything acts on them: the server listens at once (the health check answers,
 * and says why it is not ready), but a request that moves money waits for the check, for up to
 * STARTUP_WAIT_MS, then gets 503 `not_ready`; the passes that move money start only once it is done
 * (api/schedule.ts, `afterRepair`).
 *
 * The check is the reconciler's pass (api/chain/outbox-reconciling.ts) run WITHOUT its lease: a process killed
 * with -9 leaves its lease for up to 30 s, and a restart that waited for it trusted its beliefs ~20 s too long
 * (measured from outside: four confirmed rows not on the chain and two signers with a nonce gap). Every repair's
 * write is conditional on the row's state and a re-broadcast sends the stored signed transaction, so a pass that
 * runs beside another process's pass repairs nothing twice. A chain that does not answer is asked again every
 * second until it does.
 */
import type { Logger } from "./logger.ts";
import { describeChainError } from "./chain/errors.ts";

/** `pending` from start until the check completes (`done`); `failed` while its tries so far failed (it goes on). */
export type StartupState = "pending" | "done" | "failed";

export class StartupRepair {
  /** A context no server started (the tests' own) trusts its records: nothing was interrupted. */
  state: StartupState = "done";
  /** When the state last changed (ms). */
  since = Date.now();
  /** Why it is `failed` (the chain's error), or what `done` means when this process did not check. */
  detail?: string;
  private whenDone: Promise<void> = Promise.resolve();
  private resolve?: () => void;

  /** The server starts: from now until the check completes, money waits. */
  begin(): void {
    this.set("pending");
    this.whenDone = new Promise<void>((resolve) => (this.resolve = resolve));
  }

  get isDone(): boolean {
    return this.state === "done";
  }

  /** Resolves once the check is done. */
  get repaired(): Promise<void> {
    return this.whenDone;
  }

  done(detail?: string): void {
    if (this.state === "done") return;
    this.set("done", detail);
    this.resolve?.();
  }

  failed(detail: string): void {
    if (this.state !== "done") this.set("failed", detail);
  }

  /** Whether the check is done, waiting for it up to `ms`. */
  async wait(ms: number): Promise<boolean> {
    if (this.isDone) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([this.whenDone, timeout]);
    clearTimeout(timer);
    return this.isDone;
  }

  /**
   * Runs `check` until it succeeds (a second between tries), unless `stopped()` turns true. Logs what it repaired
   * and how long the platform waited.
   */
  async run(check: () => Promise<{ repaired: number }>, log: Logger, stopped: () => boolean): Promise<void> {
    const started = Date.now();
    for (let attempt = 1; !stopped(); attempt++) {
      try {
        const { repaired } = await check();
        this.done();
        log.info("start-up check against the chain done: money requests are served", { ms: Date.now() - started, repaired, attempts: attempt });
        return;
      } catch (err) {
        this.failed(describeChainError(err));
        if (attempt === 1 || attempt % 30 === 0) log.warn("start-up check against the chain failed; money requests wait for it", { err: this.detail, attempt });
        await Bun.sleep(1000);
      }
    }
  }

  private set(state: StartupState, detail?: string): void {
    this.state = state;
    this.detail = detail;
    this.since = Date.now();
  }
}

/** How long a money request waits for the start-up check before it is answered 503 `not_ready`. */
export const STARTUP_WAIT_MS = 10_000;
