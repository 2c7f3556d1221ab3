/** At most `size` tasks at once; the others wait their turn in the order they came. */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/** `work` for each item, at most `size` at once; settles when all have (results in the items' order). */
export function eachWithLimit<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const slots = new Slots(size);
  return Promise.allSettled(items.map((item) => slots.run(() => work(item))));
}
