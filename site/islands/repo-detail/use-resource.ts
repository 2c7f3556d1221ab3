import { useCallback, useEffect, useRef, useState } from "react";

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Fetch again now; resolves when done (whatever the outcome). */
  reload: () => Promise<void>;
}

/**
 * One GET kept in component state: loads when `key` is set (and again when
 * it changes), optionally every `intervalMs`, and keeps the last good data
 * while a reload is in flight or after it fails. Runs only in the browser,
 * so server rendering never fetches.
 */
export function useResource<T>(key: string | null, load: () => Promise<T>, options: { intervalMs?: number } = {}): Resource<T> {
  const [state, setState] = useState<{ key: string | null; data?: T; error?: unknown; loading: boolean }>({ key, loading: key !== null });
  const loadRef = useRef(load);
  loadRef.current = load;
  const keyRef = useRef(key);
  keyRef.current = key;

  const run = useCallback(async () => {
    const forKey = keyRef.current;
    if (forKey === null) return;
    setState((s) => (s.key === forKey ? { ...s, loading: true } : { key: forKey, loading: true }));
    try {
      const data = await loadRef.current();
      if (keyRef.current === forKey) setState({ key: forKey, data, loading: false });
    } catch (error) {
      if (keyRef.current === forKey) setState((s) => ({ key: forKey, data: s.key === forKey ? s.data : undefined, error, loading: false }));
    }
  }, []);

  useEffect(() => {
    if (key === null) {
      setState({ key: null, loading: false });
      return;
    }
    void run();
  }, [key, run]);

  useEffect(() => {
    if (key === null || !options.intervalMs) return;
    const timer = setInterval(() => void run(), options.intervalMs);
    return () => clearInterval(timer);
  }, [key, options.intervalMs, run]);

  const current = state.key === key;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: key !== null && (!current || state.loading),
    reload: run,
  };
}
