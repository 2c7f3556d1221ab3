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

export type StartupState = "repairing" | "repaired";

export class StartupRepair {
  /** A context no server started (the tests' own) trusts its records: nothing was interrupted. */
  state: StartupState = "repaired";
  startedAt: number | null = null;
  repairedAt: number | null = null;
  lastError: string | null = null;
  private whenDone: Promise<void> = Promise.resolve();
  private resolve?: () => void;

  /** The server starts: from now until `run` succeeds, money waits. */
  begin(): void {
    this.state = "repairing";
    this.startedAt = Date.now();
    this.repairedAt = null;
    this.whenDone = new Promise<void>((resolve) => (this.resolve = resolve));
  }

  /** Resolves once the check is done. */
  get repaired(): Promise<void> {
    return this.whenDone;
  }

  /** Whether the check is done, waiting for it up to `ms`. */
  async wait(ms: number): Promise<boolean> {
    if (this.state === "repaired") return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([this.whenDone, timeout]);
    clearTimeout(timer);
    return (this.state as StartupState) === "repaired";
  }

  /**
   * Runs `check` until it succeeds (a second between tries), unless `stopped()` turns true. Logs what it repaired
   * and how long the platform waited.
   */
  async run(check: () => Promise<{ repaired: number }>, log: Logger, stopped: () => boolean): Promise<void> {
    for (let attempt = 1; !stopped(); attempt++) {
      try {
        const { repaired } = await check();
        this.state = "repaired";
        this.repairedAt = Date.now();
        this.lastError = null;
        this.resolve?.();
        log.info("start-up check against the chain done: money requests are served", { ms: this.repairedAt - (this.startedAt ?? this.repairedAt), repaired, attempts: attempt });
        return;
      } catch (err) {
        this.lastError = describeChainError(err);
        if (attempt === 1 || attempt % 30 === 0) log.warn("start-up check against the chain failed; money requests wait for it", { err: this.lastError, attempt });
        await Bun.sleep(1000);
      }
    }
  }
}

/** How long a money request waits for the start-up check before it is answered 503 `not_ready`. */
export const STARTUP_WAIT_MS = 10_000;
