/**
 * Whether the start-up check against the chain has completed (issue 41's
 * readiness, issue 37's "repaired before trusted"): `pending` until the
 * composition root says otherwise, `done` once a first pass has completed,
 * `failed` while the passes so far failed (the next one may still complete:
 * a pass that completes after a failure makes it `done`).
 *
 * Today api/server.ts sets it from the reconciler's first completed pass
 * (api/chain/outbox-reconciling.ts, which also runs the indexer's check). It
 * is deliberately a small state object so the composition root can hand it
 * whatever decides "repaired" (issue 37 moves that decision into the one
 * schedule).
 */
export type StartupRepairState = "pending" | "done" | "failed";

export class StartupRepair {
  state: StartupRepairState = "pending";
  /** When the state last changed (ms). */
  since = Date.now();
  /** Why it is `failed`, or what `done` means when it was not this process's pass. */
  detail?: string;
  private readonly waiters = new Set<() => void>();

  done(detail?: string): void {
    if (this.state === "done") return;
    this.set("done", detail);
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  failed(detail: string): void {
    if (this.state === "done") return;
    this.set("failed", detail);
  }

  get isDone(): boolean {
    return this.state === "done";
  }

  /** Resolves once `done` (at once if it already is), or false after `timeoutMs`. */
  wait(timeoutMs: number): Promise<boolean> {
    if (this.isDone) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }

  private set(state: StartupRepairState, detail?: string): void {
    this.state = state;
    this.detail = detail;
    this.since = Date.now();
  }
}
