/**
 * The platform's time for rules that are measured in it (the rolling daily funding limits,
 * api/services/money/limits.ts): the context carries one clock, the system's in production, so a test can
 * move it (days on, or to the millisecond a window ends) without sleeping and without touching the machine's
 * clock. Leases, sessions and rate limits keep reading the machine's time.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
