/**
 * Attempts that hold a place (issue 39): the modes, audiences and limits, shared by the API (the rules and the
 * bot's texts), the database schema (the column enums) and the repository page (the settings form).
 *
 * - open: anyone registered may work on the bounty (as before issue 39);
 * - exclusive: the first attempt holds the bounty for a set time (7 days unless the pool manager says otherwise);
 *   later attempts queue and are told their place; the lock ends with `/unattempt`, the pool manager's release, or
 *   its expiry without an open pull request of the holder that closes the issue; the next in the queue then holds it;
 * - application: contributors apply with a short note; the pool manager picks one, who then holds it as above.
 *
 * Who may attempt: `humans` refuses accounts GitHub marks as bots (type "Bot") and accounts the pool manager
 * flagged; `agents` allows them. A contributor holds or waits for at most MAX_LIVE_ATTEMPTS places (holding,
 * queued or applied, on exclusive and application bounties), and one (NEWCOMER_LIVE_ATTEMPTS) before a pull request
 * of theirs is merged on any registered repository. Registering on an open bounty blocks nobody: not counted.
 */
export const ATTEMPT_MODES = ["open", "exclusive", "application"] as const;
export type AttemptMode = (typeof ATTEMPT_MODES)[number];

export const ATTEMPT_AUDIENCES = ["humans", "agents"] as const;
export type AttemptAudience = (typeof ATTEMPT_AUDIENCES)[number];

export const DAY_MS = 86_400_000;
export const DEFAULT_LOCK_MS = 7 * DAY_MS;
/** The lock durations a pool manager may choose, in whole days. */
export const MIN_LOCK_DAYS = 1;
export const MAX_LOCK_DAYS = 60;

export const MAX_LIVE_ATTEMPTS = 3;
export const NEWCOMER_LIVE_ATTEMPTS = 1;
export const MAX_APPLICATION_NOTE = 500;

export interface AttemptSettings {
  mode: AttemptMode;
  audience: AttemptAudience;
  lockMs: number;
}

export const DEFAULT_ATTEMPT_SETTINGS: AttemptSettings = { mode: "open", audience: "agents", lockMs: DEFAULT_LOCK_MS };

export const MODE_LABELS: Record<AttemptMode, string> = {
  open: "Open: anyone may work on it",
  exclusive: "Exclusive: the first attempt holds it, others queue",
  application: "Application: contributors apply, you pick",
};

export const AUDIENCE_LABELS: Record<AttemptAudience, string> = {
  humans: "Humans only",
  agents: "Automated agents allowed",
};

/** "7 days", "1 day". */
export const lockDaysText = (lockMs: number) => {
  const days = Math.round(lockMs / DAY_MS);
  return `${days} ${days === 1 ? "day" : "days"}`;
};

/** "2026-12-05 14:00 UTC": how the bot and the page say until when a lock holds. */
export const utcMinute = (d: Date | string | number) => `${new Date(d).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** "1st", "2nd", "3rd", "4th"… */
export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${["th", "st", "nd", "rd"][n % 10] ?? "th"}`;
}
