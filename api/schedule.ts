/**
 * Every periodic pass of the platform, declared once (issue 37, item 5): its name, how often, the lease it runs
 * under across processes, whether it waits for the start-up check against the chain, and what it runs. The
 * server (api/server.ts, and so the embedded default scripts/dev.ts), the workers' process and the test stack
 * (testing/stack.ts: a subset by name) all start this list; nothing else starts a loop. api/schedule.test.ts
 * fails when a `Periodic` exists whose name is not declared here, or a stack starts one another way.
 *
 * Passes that move money or trust what the platform believes of the chain (`afterRepair`) start only once the
 * start-up check (api/startup.ts) has put the platform's beliefs in line with the chain; the others (mail,
 * scoping, compute) start at once.
 */
import type { RootContext } from "./context.ts";
import { Periodic } from "./workers/periodic.ts";
import { watcherFor } from "./workers/watcher.ts";
import { reviewAllPoolManagers } from "./services/money/managers.ts";
import { completeDueRefunds, executeDueOutflows } from "./services/money/refunds.ts";
import { BOOST_MIRROR_INTERVAL_MS, settleBoosts } from "./services/funding/boost-mirror.ts";
import { refundDueBoosts } from "./services/funding/boost-refunds.ts";
import { releaseDueSplits, releaseInterval, releaseWhenWindowsEnd } from "./services/splits/release.ts";
import { advanceRecentTotals } from "./services/reliability/record.ts";
import { githubCatchUp } from "./services/github-events/catch-up-pass.ts";
import { GITHUB_RETURN_PROBE_MS, retryWhenGitHubAnswers } from "./services/github-events/github-return.ts";
import { keepBountyCommentsInStep } from "./services/bot/subscriber.ts";
import { releaseHeldPayouts } from "./services/github-events/held-payouts.ts";
import { releaseHeldShares } from "./services/splits/release-held.ts";
import { releaseHeldTips } from "./services/tips/tip-held.ts";
import { notifyAwaitingDecisions } from "./services/money/awaiting.ts";
import { remindOverdueReviews, REVIEW_DEADLINE_PASS_MS } from "./services/reviews/reminders.ts";
import type { AppContext } from "./context.ts";
import { expireLocks } from "./services/attempts/attempts.ts";
import { backupScheduleFor } from "./ops/backup-schedule.ts";
import { cashoutPassesFor, MONEY_MOMENTS_INTERVAL_MS } from "./services/cashout/schedule.ts";

/**
 * The webhook pass's after-pass (part of the "webhooks" pass below): what waited for a registration is paid (held
 * bounties, held split shares, held tips) and the pool managers hear of bounties awaiting their decision, five
 * seconds after the issue closed (a merge processed meanwhile pays first).
 */
export async function afterWebhookPass(ctx: AppContext): Promise<void> {
  await releaseHeldPayouts(ctx);
  await releaseHeldShares(ctx);
  await releaseHeldTips(ctx);
  await notifyAwaitingDecisions(ctx);
}

export interface ScheduledPass {
  name: string;
  /** How often, for people (the interval itself may come from configuration). */
  every: string;
  /** The lease it runs under across processes (none: its writes are conditional, any process may run it). */
  lease?: string;
  /** Moves money or trusts the platform's beliefs about the chain: waits for the start-up check. */
  afterRepair: boolean;
  start(): void;
  stop(): Promise<void>;
  /** One pass now (tests, the development routes); `now` where the pass takes a time. */
  runOnce(options?: { now?: number }): Promise<unknown>;
}

/** Every pass's name, in the order they start. */
export const PASS_NAMES = [
  "reconciler",
  "outbox",
  "indexer",
  "webhooks",
  "bot-comments",
  "github-catch-up",
  "github-return",
  "split-release",
  "boost-mirror",
  "boost-refunds",
  "hourly-review",
  "watcher",
  "recent-totals",
  "attempt-locks",
  "review-deadlines",
  "outbound",
  "digest",
  "scoping",
  "compute",
  "cashout-poll",
  "money-moments",
  "metrics",
  "backup",
] as const;
export type PassName = (typeof PASS_NAMES)[number];

const HOUR = 3_600_000;

/** A pass run by a `Periodic` of its own here (the workers with a class of their own keep theirs). */
function loop(name: PassName, ctx: Pick<RootContext, "log">, intervalMs: number, run: (options?: { now?: number }) => Promise<unknown>) {
  const periodic = new Periodic(name, () => run(), (err) => ctx.log.warn(`${name} pass failed`, { err: (err as Error).message }));
  return { periodic, start: () => periodic.start(intervalMs), stop: () => periodic.stop(), runOnce: run };
}

/**
 * The schedule for one process. `intervals` overrides a pass's interval by name (tests run the webhook worker every
 * 100 ms); everything else comes from the configuration.
 */
export function declareSchedule(ctx: RootContext, options: { intervals?: Partial<Record<PassName, number>> } = {}): ScheduledPass[] {
  const { env } = ctx;
  const every = (name: PassName, fallback: number) => options.intervals?.[name] ?? fallback;
  const chainId = ctx.chain.config.chain.id;
  const poll = ctx.chain.config.pollingIntervalMs;

  const { reconciler } = ctx;
  // Backups of the embedded database file (none with a libSQL server, or BACKUP_INTERVAL_HOURS=0).
  const backups = backupScheduleFor(ctx);
  const cashouts = cashoutPassesFor(ctx, { pollIntervalMs: options.intervals?.["cashout-poll"] });
  const catchUp = githubCatchUp(ctx);
  const watcher = watcherFor(ctx);
  const splitRelease = loop("split-release", ctx, every("split-release", releaseInterval(env)), () => releaseDueSplits(ctx, { leaseMs: Math.max(10_000, env.SPLIT_RELEASE_INTERVAL_MS * 3) }));
  let stopReleaseKicks: (() => void) | undefined;
  let botComments: ReturnType<typeof keepBountyCommentsInStep> | undefined;
  const boostMirror = loop("boost-mirror", ctx, every("boost-mirror", BOOST_MIRROR_INTERVAL_MS), () => settleBoosts(ctx));
  // Expiry by the chain's clock, which refundDueBoosts reads itself unless given a time.
  const boostRefunds = loop("boost-refunds", ctx, every("boost-refunds", HOUR), (o) => refundDueBoosts(ctx, o?.now));
  const hourlyReview = loop("hourly-review", ctx, every("hourly-review", HOUR), async () => {
    // Pool managers follow GitHub (the member webhooks remove a demoted one at once; this catches the rest), the
    // refunds of claimed bounties whose delay is over, and the due outflows the outbox queued.
    await reviewAllPoolManagers(ctx);
    await completeDueRefunds(ctx);
    await executeDueOutflows(ctx);
  });
  const githubReturn = loop("github-return", ctx, every("github-return", GITHUB_RETURN_PROBE_MS), () => retryWhenGitHubAnswers(ctx));
  // Exclusive attempts' locks past their time (issue 39): released unless the holder has a linked pull request; the
  // next in the queue holds the bounty and is told. `now`: a fake clock (tests, the dev stack's /dev/attempt-locks).
  const attemptLocks = loop("attempt-locks", ctx, every("attempt-locks", 60_000), (o) => expireLocks(ctx, o?.now));
  const recentTotals = loop("recent-totals", ctx, every("recent-totals", 60_000), () => advanceRecentTotals(ctx.database.db));
  // Review deadlines (issue 39): reminders to pool managers, once per deadline (conditional writes: any process may run it).
  const reviewDeadlines = loop("review-deadlines", ctx, every("review-deadlines", REVIEW_DEADLINE_PASS_MS), (o) => remindOverdueReviews(ctx, { now: o?.now }));

  const passes: ScheduledPass[] = [
    {
      name: "reconciler",
      every: `${poll * 40} ms (40 polling intervals); its first pass is the start-up check`,
      lease: `reconciler:${chainId}`,
      afterRepair: false,
      start: () => reconciler.start(options.intervals?.reconciler),
      stop: () => reconciler.stop(),
      runOnce: () => reconciler.runOnce(),
    },
    {
      name: "outbox",
      every: `${poll * 4} ms, and nudged by every new row`,
      lease: `signer:${chainId}:<address>`,
      afterRepair: true,
      start: () => ctx.outbox.start(options.intervals?.outbox),
      stop: () => ctx.outbox.stop(),
      runOnce: () => ctx.outbox.runOnce(),
    },
    {
      name: "indexer",
      every: `${poll * 4} ms`,
      lease: `indexer:${chainId}`,
      afterRepair: true,
      start: () => ctx.indexer.start(options.intervals?.indexer),
      stop: () => ctx.indexer.stop(),
      runOnce: () => ctx.indexer.runOnce(),
    },
    {
      name: "webhooks",
      every: "1 s, nudged by each delivery; after each pass: held bounties, held shares and held tips paid to who registered, awaiting-decision e-mails",
      lease: "per delivery",
      afterRepair: true,
      start: () => ctx.webhooks.start(options.intervals?.webhooks),
      stop: () => ctx.webhooks.stop(),
      runOnce: () => ctx.webhooks.runOnce(),
    },
    {
      name: "bot-comments",
      every: "on changes (the change feed), settled over a short burst",
      afterRepair: true,
      start: () => (botComments ??= keepBountyCommentsInStep(ctx)),
      stop: async () => {
        await botComments?.stop();
        botComments = undefined;
      },
      runOnce: async () => botComments?.idle(),
    },
    {
      name: "github-catch-up",
      every: `${env.GITHUB_CATCH_UP_INTERVAL_MS} ms (GITHUB_CATCH_UP_INTERVAL_MS)`,
      lease: "github-catch-up",
      afterRepair: true,
      start: () => catchUp.start(every("github-catch-up", env.GITHUB_CATCH_UP_INTERVAL_MS)),
      stop: () => catchUp.stop(),
      runOnce: () => catchUp.runOnce(),
    },
    { name: "github-return", every: `${GITHUB_RETURN_PROBE_MS} ms while deliveries wait on GitHub: is it back? then they are retried at once`, afterRepair: true, ...githubReturn },
    {
      name: "split-release",
      every: `${releaseInterval(env)} ms (SPLIT_RELEASE_INTERVAL_MS, or the window when shorter), and when a short window ends`,
      lease: "split-release",
      afterRepair: true,
      start: () => {
        splitRelease.start();
        stopReleaseKicks ??= releaseWhenWindowsEnd(ctx.changes, splitRelease.periodic, env.SPLIT_RELEASE_WINDOW_MS, releaseInterval(env));
      },
      stop: async () => {
        stopReleaseKicks?.();
        stopReleaseKicks = undefined;
        await splitRelease.stop();
      },
      runOnce: splitRelease.runOnce,
    },
    { name: "boost-mirror", every: `${BOOST_MIRROR_INTERVAL_MS} ms`, afterRepair: true, ...boostMirror },
    { name: "boost-refunds", every: "hourly, by the chain's clock", afterRepair: true, ...boostRefunds },
    { name: "hourly-review", every: "hourly", afterRepair: true, ...hourlyReview },
    ...(watcher
      ? [
          {
            name: "watcher",
            every: `${poll * 10} ms`,
            afterRepair: true,
            start: () => watcher.start(options.intervals?.watcher),
            stop: () => watcher.stop(),
            runOnce: () => watcher.runOnce(),
          } satisfies ScheduledPass,
        ]
      : []),
    { name: "recent-totals", every: "every minute", afterRepair: false, ...recentTotals },
    // Records the new holder's claim on-chain through the outbox: after the start-up check, like the other chain writers.
    { name: "attempt-locks", every: "every minute: locks past their time", afterRepair: true, ...attemptLocks },
    { name: "review-deadlines", every: `${REVIEW_DEADLINE_PASS_MS / 60_000} minutes: bountied pull requests waiting past their repository's review deadline remind its pool manager (once per deadline)`, afterRepair: false, ...reviewDeadlines },
    { name: "outbound", every: "1 s", lease: "per delivery", afterRepair: false, start: () => ctx.outbound.start(options.intervals?.outbound), stop: () => ctx.outbound.stop(), runOnce: () => ctx.outbound.runOnce() },
    {
      name: "digest",
      every: `every minute, from ${env.DIGEST_HOUR_UTC}:00 UTC (DIGEST_HOUR_UTC)`,
      lease: "digest",
      afterRepair: false,
      start: () => ctx.digest.start(options.intervals?.digest),
      stop: () => ctx.digest.stop(),
      runOnce: (o) => ctx.digest.runOnce(o?.now === undefined ? undefined : { now: o.now }),
    },
    { name: "scoping", every: "1 s, nudged by each job", lease: "per job", afterRepair: false, start: () => ctx.scoping.start(options.intervals?.scoping), stop: () => ctx.scoping.stop(), runOnce: () => ctx.scoping.runOnce() },
    { name: "compute", every: "1 s", lease: "per task", afterRepair: false, start: () => ctx.compute.start(options.intervals?.compute), stop: () => ctx.compute.stop(), runOnce: () => ctx.compute.runPass() },
    {
      name: "cashout-poll",
      every: `${env.CASHOUT_POLL_INTERVAL_MS} ms (CASHOUT_POLL_INTERVAL_MS): open cash-outs asked about at the provider, those a crash left taken further`,
      lease: "cashout-poll",
      afterRepair: true,
      ...cashouts.poll,
    },
    {
      name: "money-moments",
      every: `${MONEY_MOMENTS_INTERVAL_MS} ms and when bounties change: each new money event's price recorded, each arrived reward handled (mail, automatic cash-out)`,
      lease: "money-moments",
      afterRepair: true,
      ...cashouts.moments,
    },
    {
      name: "metrics",
      every: `${env.METRICS_INTERVAL_MS} ms (METRICS_INTERVAL_MS): the figures of /metrics and /ops that need the database or the chain`,
      afterRepair: false,
      start: () => ctx.ops.collector.start(every("metrics", env.METRICS_INTERVAL_MS)),
      stop: () => ctx.ops.collector.stop(),
      runOnce: () => ctx.ops.collector.runOnce(),
    },
    ...(backups
      ? [
          {
            name: "backup",
            every: `a look every ${Math.min(env.BACKUP_INTERVAL_HOURS * 60, 10)} min (the first a minute after start); a copy when the newest is ${env.BACKUP_INTERVAL_HOURS} h old (BACKUP_INTERVAL_HOURS)`,
            lease: "backup",
            afterRepair: false,
            start: () => backups.start(options.intervals?.backup),
            stop: () => backups.stop(),
            runOnce: () => backups.runOnce(),
          } satisfies ScheduledPass,
        ]
      : []),
  ];
  return passes;
}

export interface RunningSchedule {
  /** The passes of this schedule, in order. */
  names: PassName[];
  /** The passes running now (those waiting for the start-up check are not). */
  started(): PassName[];
  /** Runs one pass now. */
  runOnce(name: PassName, options?: { now?: number }): Promise<unknown>;
  /** Every started pass once, in order (tests). */
  runAllOnce(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the schedule (only the passes named in `only`, when given): those that do not trust the chain at once, the
 * others once `repaired` resolves (the start-up check). Stops in the reverse order.
 */
export function startSchedule(ctx: RootContext, options: { only?: PassName[]; intervals?: Partial<Record<PassName, number>>; repaired?: Promise<unknown> } = {}): RunningSchedule {
  const passes = declareSchedule(ctx, options).filter((p) => !options.only || options.only.includes(p.name as PassName));
  let stopped = false;
  const started: ScheduledPass[] = [];
  const begin = (p: ScheduledPass) => {
    if (stopped) return;
    p.start();
    started.push(p);
  };
  for (const p of passes) if (!p.afterRepair || !options.repaired) begin(p);
  const later = options.repaired ? passes.filter((p) => p.afterRepair) : [];
  void options.repaired?.then(() => later.forEach(begin));
  const byName = new Map(passes.map((p) => [p.name, p]));
  return {
    names: passes.map((p) => p.name as PassName),
    started: () => started.map((p) => p.name as PassName),
    runOnce: (name, o) => {
      const pass = byName.get(name);
      if (!pass) throw new Error(`no pass named ${name} in this schedule`);
      return pass.runOnce(o);
    },
    async runAllOnce() {
      for (const p of passes) await p.runOnce();
    },
    async stop() {
      // The passes still waiting for the start-up check never start (it may never end: a chain that is down).
      stopped = true;
      for (const p of [...started].reverse()) await p.stop();
    },
  };
}

