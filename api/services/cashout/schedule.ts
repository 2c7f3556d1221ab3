import type { AppContext } from "../../context.ts";
import { randomToken } from "../../crypto/tokens.ts";
import { LeaseHolder } from "../../workers/lease.ts";
import { Periodic } from "../../workers/periodic.ts";
import { sellApiConfigured } from "../onramp/sell-api.ts";
import { MONEY_EVENTS, PRICE_FRESH_MS, recordEventPrices } from "../statements/record-prices.ts";
import { hasUnreadEvents } from "../statements/event-feed.ts";
import { hasOpenCashouts, pollOpenCashouts } from "./progress.ts";
import { handleArrivedRewards, REWARD_EVENTS, REWARD_FRESH_MS } from "./reward-arrived.ts";

/**
 * The periodic passes of issue 40 (declared in api/schedule.ts), on the house's Periodic/lease pattern (one process at a time per pass, any
 * process may hold it; a crashed holder's lease lapses):
 * - `cashout-poll` every CASHOUT_POLL_INTERVAL_MS: open cash-outs asked about at the provider, and those a crash
 *   left `initiated` taken further (progress.ts);
 * - `money-moments` every 2 s, and at once when the indexer records bounty changes: the price of each new money
 *   event recorded (statements/record-prices.ts), then each reward that arrived handled (reward-arrived.ts).
 */
export const MONEY_MOMENTS_INTERVAL_MS = 2_000;

type Deps = Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "appSecret" | "mailer" | "changes">;

export interface CashoutPass {
  start(): void;
  stop(): Promise<void>;
  runOnce(): Promise<void>;
}

export interface CashoutPasses {
  /** `cashout-poll` and `money-moments` of api/schedule.ts. */
  poll: CashoutPass;
  moments: CashoutPass;
  /** Runs one of each now (tests, and the dev stack's journeys). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/** The two passes, not started: api/schedule.ts declares and starts them. */
export function cashoutPassesFor(ctx: Deps, options: { pollIntervalMs?: number; minAgeMs?: number } = {}): CashoutPasses {
  const pollIntervalMs = options.pollIntervalMs ?? ctx.env.CASHOUT_POLL_INTERVAL_MS;
  const leaseMs = Math.max(10_000, pollIntervalMs * 3);
  const leases = new LeaseHolder(ctx.database.db, `cashout-${randomToken(6)}`, leaseMs);
  // One run of each pass at a time in this process (the lease keeps other processes out): a run asked for by hand
  // waits for the loop's.
  const serial = () => {
    let last: Promise<unknown> = Promise.resolve();
    return (run: () => Promise<void>) => {
      const next = last.then(run, run);
      last = next.catch(() => undefined);
      return next;
    };
  };
  const inPoll = serial();
  const inMoments = serial();
  const poll = () => inPoll(async () => {
    // Idle passes only read: no lease is taken (and renewed) while there is nothing to do.
    if (!sellApiConfigured(ctx.env) || !(await hasOpenCashouts(ctx))) return;
    if (!(await leases.hold("cashout-poll"))) return;
    // A cash-out younger than a poll interval is still in its own request's hands.
    await pollOpenCashouts(ctx, { minAgeMs: options.minAgeMs ?? pollIntervalMs });
  });
  const moments = () => inMoments(async () => {
    const chainId = ctx.chain.config.chain.id;
    const unread = await Promise.all([
      hasUnreadEvents(ctx.database.db, { cursor: `event-prices:${chainId}`, chainId, names: MONEY_EVENTS, freshMs: PRICE_FRESH_MS }),
      hasUnreadEvents(ctx.database.db, { cursor: `reward-arrivals:${chainId}`, chainId, names: REWARD_EVENTS, freshMs: REWARD_FRESH_MS }),
    ]);
    if (!unread.some(Boolean)) return;
    if (!(await leases.hold("money-moments"))) return;
    await recordEventPrices(ctx).catch((err) => ctx.log.warn("event prices not recorded; tried again next pass", { err: (err as Error).message }));
    await handleArrivedRewards(ctx);
  });
  const pollLoop = new Periodic("cashout-poll", poll, (err) => ctx.log.warn("cash-out poll failed", { err: (err as Error).message }));
  const momentsLoop = new Periodic("money-moments", moments, (err) => ctx.log.warn("money moments pass failed", { err: (err as Error).message }));
  let unsubscribe: (() => void) | undefined;
  const passes: CashoutPasses = {
    poll: {
      start: () => pollLoop.start(pollIntervalMs),
      async stop() {
        await pollLoop.stop();
        await leases.release("cashout-poll").catch(() => undefined);
      },
      runOnce: poll,
    },
    moments: {
      start() {
        momentsLoop.start(MONEY_MOMENTS_INTERVAL_MS);
        unsubscribe ??= ctx.changes.subscribe((tags) => {
          if (tags.some((tag) => tag.startsWith("bounty:") || tag.startsWith("repo:"))) momentsLoop.nudge();
        });
      },
      async stop() {
        unsubscribe?.();
        unsubscribe = undefined;
        await momentsLoop.stop();
        await leases.release("money-moments").catch(() => undefined);
      },
      runOnce: moments,
    },
    async runOnce() {
      await moments();
      await poll();
    },
    async stop() {
      await passes.moments.stop();
      await passes.poll.stop();
    },
  };
  return passes;
}

/** Both passes started (tests that run them at their own pace). */
export function startCashoutPasses(ctx: Deps, options: { pollIntervalMs?: number; minAgeMs?: number } = {}): CashoutPasses {
  const passes = cashoutPassesFor(ctx, options);
  passes.poll.start();
  passes.moments.start();
  return passes;
}
