/**
 * Shares one run of `work` among concurrent callers, with the guarantee each
 * caller needs: the run it waits for STARTS after its call, so it sees
 * everything that happened before (rows queued, blocks mined). While a run is
 * going, callers share the single run queued behind it; at most one runs at a
 * time. A failed run rejects its callers; the next run is unaffected.
 */
export class NextRun {
  private running?: Promise<void>;
  private next?: Promise<void>;
  private lastStart = -Infinity;

  /**
   * `minGapMs`: a queued run starts at least this long after the one before
   * started, so that callers arriving in a stream share fewer, larger runs
   * instead of keeping one going back to back.
   */
  constructor(
    private readonly work: () => Promise<void>,
    private readonly options: { minGapMs?: number } = {},
  ) {}

  /** True while a run is going or queued. */
  get busy(): boolean {
    return Boolean(this.running || this.next);
  }

  /** True when a run is queued behind the one going (someone asked during it). */
  get queued(): boolean {
    return Boolean(this.next);
  }

  request(): Promise<void> {
    if (this.next) return this.next;
    if (!this.running) return this.start();
    this.next = this.running
      .catch(() => undefined)
      .then(async () => {
        const wait = this.lastStart + (this.options.minGapMs ?? 0) - performance.now();
        if (wait > 0) await Bun.sleep(wait);
        this.next = undefined;
        return this.start();
      });
    return this.next;
  }

  private start(): Promise<void> {
    this.lastStart = performance.now();
    const run: Promise<void> = this.work().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }
}
