import { isStorageFull } from "../../db/client.ts";

/**
 * A background loop (the outbox, the indexer, the webhook worker): runs a
 * pass, waits `intervalMs` (less when nudged; a nudge during a pass starts
 * the next one as soon as it ends, as the pass may have missed that work),
 * and again, until stopped. A
 * failed pass is reported (unless the storage was full) and the loop goes
 * on. `stop()` returns once the pass in progress, if any, has finished.
 */
export class Periodic {
  private running = false;
  private pass?: Promise<void>;
  private timer?: ReturnType<typeof setTimeout>;
  private wake?: () => void;
  /** A nudge that came while a pass ran: that pass may have missed the work, so the next one starts at once. */
  private nudged = false;

  constructor(
    /** The pass's name in the schedule (api/schedule.ts declares every one; api/schedule.test.ts checks it). */
    readonly name: string,
    /** One pass; `running()` turns false when the loop is being stopped (for passes that loop themselves). */
    private readonly runPass: (running: () => boolean) => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(intervalMs: number): void {
    if (this.running) return;
    this.running = true;
    this.timer = setTimeout(() => void this.loop(intervalMs), 0);
  }

  /** Work arrived: run the next pass now rather than at the end of the wait. */
  nudge(): void {
    if (!this.running) return;
    if (this.wake) this.wake();
    else this.nudged = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.wake?.();
    await this.pass;
  }

  private async loop(intervalMs: number): Promise<void> {
    while (this.running) {
      this.nudged = false;
      // A full storage fails every pass of every loop until space returns: the database layer logs that once per
      // episode (db/client.ts, StorageWatch), so the loops do not repeat it each second.
      this.pass = this.runPass(() => this.running).then(
        () => undefined,
        (err) => (isStorageFull(err) ? undefined : this.onError(err)),
      );
      await this.pass;
      if (!this.running) return;
      if (this.nudged) continue;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, intervalMs);
      });
      clearTimeout(this.timer);
      this.wake = undefined;
    }
  }
}
