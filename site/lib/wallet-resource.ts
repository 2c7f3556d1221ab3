import { atom, type ReadableAtom } from "nanostores";
import { errorMessage } from "./api.ts";

/**
 * A piece of server data the wallet screens share, with the spec's caching
 * rules (section 7): fresh for `freshMs` (a second reader within it reuses
 * the data), retried `retry` times on failure, and optionally refetched on
 * an interval, when the window regains focus and when the network comes
 * back. Errors keep the last good data and carry the server's message or the
 * spec's fallback text.
 */
export interface ResourceState<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  updatedAt: number;
}

export interface Resource<T> {
  $state: ReadableAtom<ResourceState<T>>;
  /** The state before anything loaded: what a server render shows. */
  readonly initial: ResourceState<T>;
  /** Loads unless the data is fresh (`force` loads anyway). Never throws. */
  load(options?: { force?: boolean }): Promise<void>;
  /** Starts the refetch triggers; returns the function that stops them. */
  watch(): () => void;
}

export interface ResourceOptions {
  freshMs: number;
  retry: number;
  fallbackError: string;
  refetchIntervalMs?: number;
  refetchOnFocus?: boolean;
  refetchOnReconnect?: boolean;
}

const RETRY_DELAY_MS = 1000;
/**
 * Coming back to the window reads again whatever the data's age (issue 38: a wallet tab showed the balance from
 * before a purchase completed in another tab for ~28 s, until its 30 s freshness ran out); a focus and a
 * visibility change arriving together, or a quick back-and-forth, read once.
 */
export const FOCUS_REFETCH_GAP_MS = 2000;

export function createResource<T>(fetcher: () => Promise<T>, options: ResourceOptions): Resource<T> {
  const initial: ResourceState<T> = Object.freeze({ data: undefined, error: null, loading: false, updatedAt: 0 });
  const $state = atom<ResourceState<T>>(initial);
  let inFlight: Promise<void> | undefined;
  let watchers = 0;
  let stopTriggers: (() => void) | undefined;

  const load = (opts: { force?: boolean } = {}): Promise<void> => {
    const current = $state.get();
    if (!opts.force && current.data !== undefined && Date.now() - current.updatedAt < options.freshMs) return Promise.resolve();
    inFlight ??= (async () => {
      $state.set({ ...$state.get(), loading: true });
      for (let attempt = 0; ; attempt++) {
        try {
          const data = await fetcher();
          $state.set({ data, error: null, loading: false, updatedAt: Date.now() });
          return;
        } catch (err) {
          if (attempt >= options.retry) {
            $state.set({ ...$state.get(), error: errorMessage(err, options.fallbackError), loading: false });
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        }
      }
    })().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const startTriggers = () => {
    const cleanups: (() => void)[] = [];
    if (options.refetchIntervalMs) {
      const timer = setInterval(() => void load({ force: true }), options.refetchIntervalMs);
      cleanups.push(() => clearInterval(timer));
    }
    const onFocus = () => void (Date.now() - $state.get().updatedAt >= FOCUS_REFETCH_GAP_MS ? load({ force: true }) : load());
    const onVisible = () => document.visibilityState === "visible" && onFocus();
    const onOnline = () => void load({ force: true });
    if (options.refetchOnFocus) {
      window.addEventListener("focus", onFocus);
      document.addEventListener("visibilitychange", onVisible);
      cleanups.push(() => window.removeEventListener("focus", onFocus), () => document.removeEventListener("visibilitychange", onVisible));
    }
    if (options.refetchOnReconnect) {
      window.addEventListener("online", onOnline);
      cleanups.push(() => window.removeEventListener("online", onOnline));
    }
    return () => cleanups.forEach((cleanup) => cleanup());
  };

  return {
    $state,
    initial,
    load,
    watch() {
      if (watchers++ === 0) stopTriggers = startTriggers();
      void load();
      return () => {
        if (--watchers === 0) stopTriggers?.();
      };
    },
  };
}

/** Delays between re-reads of a list with unsettled rows: quick at first, then backing off to every 30 s. */
export const SETTLE_POLL_MS = [1000, 2000, 4000, 8000, 15_000, 30_000];

/**
 * Re-reads a list while any of its rows is unsettled (a send still
 * "pending"), with backoff, and calls `onSettled` when a row that was
 * unsettled has settled, so figures that depend on it (the balance) follow.
 * A new unsettled row starts the backoff again. Issue 16: the list said
 * "Pending" long after the transfer was confirmed, until a manual refresh.
 * Returns the function that stops watching.
 */
export function watchUntilSettled<Row extends { id: string }>(
  resource: Resource<Row[]>,
  isUnsettled: (row: Row) => boolean,
  onSettled: () => void,
  delays: readonly number[] = SETTLE_POLL_MS,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let unsettled = new Set<string>();
  const check = (state: ResourceState<Row[]>) => {
    if (state.loading || state.data === undefined) return;
    const now = new Set(state.data.filter(isUnsettled).map((row) => row.id));
    const settled = [...unsettled].some((id) => !now.has(id));
    if ([...now].some((id) => !unsettled.has(id))) attempt = 0;
    unsettled = now;
    if (settled) onSettled();
    clearTimeout(timer);
    timer = undefined;
    if (now.size === 0) {
      attempt = 0;
      return;
    }
    const delay = delays[Math.min(attempt, delays.length - 1)]!;
    attempt++;
    timer = setTimeout(() => void resource.load({ force: true }), delay);
  };
  const stop = resource.$state.subscribe(check);
  return () => {
    stop();
    clearTimeout(timer);
  };
}
