import { statSync } from "node:fs";
import { and, count, eq, gte, inArray, isNull, min, sql } from "drizzle-orm";
import { createPublicClient, formatEther, http, type Address, type PublicClient } from "viem";
import { filePath, type DatabaseHandle } from "../../db/client.ts";
import {
  chainEvents,
  chainTransactions,
  computeTasks,
  outboundMessages,
  scopingJobs,
  walletNonces,
  webhookDeliveries,
  workerLeases,
} from "../../db/schema/index.ts";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import type { ChainAccess } from "../chain/clients.ts";
import { describeChainError } from "../chain/errors.ts";
import type { Logger } from "../logger.ts";
import { Periodic } from "../workers/periodic.ts";
import { MAX_SIGNERS, type PlatformMetrics } from "./metrics.ts";
import type { StartupRepair } from "../startup.ts";
import { CURRENCIES } from "../../lib/money.ts";

/**
 * The collection pass behind /metrics and the operator's page: every
 * `METRICS_INTERVAL_MS` it reads the figures that need the database or the
 * chain and sets the gauges of metrics.ts, so a scrape answers from memory
 * and never waits on a slow node. Each process collects for itself (no
 * lease: the figures are reads, and every instance should say what it sees);
 * Prometheus takes the max over instances where that matters.
 *
 * The chain is read through a client of its own with a short timeout and no
 * retry, so a dead node shows at once (`issuepool_chain_up` 0, the indexer's
 * lag in seconds growing) instead of holding the pass for the RPC timeout.
 */
export interface CollectorDeps {
  database: DatabaseHandle;
  chain: ChainAccess;
  indexer: { lastIndexedBlock(): Promise<bigint | null> };
  metrics: PlatformMetrics;
  startup: Pick<StartupRepair, "isDone">;
  log: Logger;
  /** A chain call gives up after this long (default 2 s). */
  chainTimeoutMs?: number;
  now?: () => number;
}

/** A queued outflow of the escrow, from the mirrored events (the operator's page lists them). */
export interface QueuedOutflow {
  id: string;
  repoId: number;
  issueNumber: number;
  currency: string;
  amount: string;
  to: string;
  readyAt: string;
  ready: boolean;
  /** Sent by the platform's outbox (its transaction is a row), or by someone else (the watcher pauses on those). */
  sentByPlatform: boolean;
  /** What kind of outflow, from the platform's row when it sent it. */
  reason: string;
}

/** What the last pass saw, for the operator's page. */
export interface Snapshot {
  collectedAt: string | null;
  chain: { up: boolean; headBlock: number | null; error?: string };
  indexer: { cursorBlock: number | null; lagBlocks: number | null; lagSeconds: number | null };
  balances: { operator: string | null; feeCollector: string | null; operatorGas24h: string };
  escrow: { paused: boolean | null; capUsed: Record<string, number>; queued: QueuedOutflow[] };
  outbox: { byKindAndStatus: { kind: string; status: string; count: number }[]; oldestUnsettledSeconds: Record<string, number> };
  signers: { signer: string; address: string; nextNonce: number | null; chainPending: number | null }[];
  webhooks: { source: string; waiting: number; oldestSeconds: number }[];
  outbound: { pending: number; retrying: number; failed: number };
  leases: { held: number; expired: number };
  scopingJobsWaiting: number;
  computeTasksWaiting: number;
  database: { sizeBytes: number | null; writeLatencyMs: number | null };
}

const OUTFLOW_KINDS: Record<string, string> = {
  pay_bounty: "bounty payout",
  pay_tip: "tip payout",
  withdraw_pool: "pool withdrawal",
};

/** The probe row of the database write check (worker_leases; left out of the lease figures). */
export const WRITE_PROBE_LEASE = "probe:database-write";

/** Times one small durable write (the probe row's upsert): the database's write latency, and that it is writable. */
export async function probeDatabaseWrite(database: DatabaseHandle, now = Date.now()): Promise<number> {
  const started = performance.now();
  await database.db
    .insert(workerLeases)
    .values({ name: WRITE_PROBE_LEASE, owner: "probe", until: new Date(now) })
    .onConflictDoUpdate({ target: workerLeases.name, set: { until: new Date(now) } });
  return performance.now() - started;
}

export class MetricsCollector {
  private readonly client: PublicClient;
  private readonly worker: Periodic;
  private lastCaughtUpAt: number;
  private feeCollector?: Address;
  snapshot: Snapshot = emptySnapshot();

  constructor(private readonly deps: CollectorDeps) {
    const { config } = deps.chain;
    this.client = createPublicClient({ chain: config.chain, transport: http(config.rpcUrl, { timeout: deps.chainTimeoutMs ?? 2_000, retryCount: 0, batch: false }) }) as PublicClient;
    this.lastCaughtUpAt = this.now();
    this.worker = new Periodic(
      "metrics",
      () => this.runOnce(),
      (err) => deps.log.warn("metrics collection pass failed", { err: (err as Error).message }),
    );
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** One pass: the database's figures, then the chain's (each chain read on its own: one failing does not hide the rest). */
  async runOnce(): Promise<Snapshot> {
    const { metrics, startup } = this.deps;
    const snapshot = emptySnapshot();
    await this.collectDatabase(snapshot);
    await this.collectChain(snapshot);
    metrics.startupRepairDone.set(startup.isDone ? 1 : 0);
    snapshot.collectedAt = new Date(this.now()).toISOString();
    metrics.collectionLastSuccess.set(Math.floor(this.now() / 1000));
    this.snapshot = snapshot;
    return snapshot;
  }

  private async collectDatabase(snapshot: Snapshot): Promise<void> {
    const { database, metrics, chain } = this.deps;
    const db = database.db;
    const now = this.now();
    const live = and(eq(chainTransactions.chainId, chain.config.chain.id), isNull(chainTransactions.oldChain));
    const unsettled = inArray(chainTransactions.status, ["queued", "signed", "sent"]);

    const byKind = await db
      .select({ kind: chainTransactions.kind, status: chainTransactions.status, n: count() })
      .from(chainTransactions)
      .where(live)
      .groupBy(chainTransactions.kind, chainTransactions.status);
    metrics.outboxTransactions.reset();
    for (const { kind, status, n } of byKind) metrics.outboxTransactions.set({ kind, status }, n);
    snapshot.outbox.byKindAndStatus = byKind.map(({ kind, status, n }) => ({ kind, status, count: n }));

    const oldest = await db
      .select({ kind: chainTransactions.kind, createdAt: min(chainTransactions.createdAt) })
      .from(chainTransactions)
      .where(and(live, unsettled))
      .groupBy(chainTransactions.kind);
    metrics.outboxOldestUnsettled.reset();
    for (const { kind } of byKind) metrics.outboxOldestUnsettled.set({ kind }, 0);
    for (const { kind, createdAt } of oldest) {
      const age = createdAt ? Math.max(0, (now - createdAt.getTime()) / 1000) : 0;
      metrics.outboxOldestUnsettled.set({ kind }, age);
      snapshot.outbox.oldestUnsettledSeconds[kind] = Math.round(age);
    }

    const operator = chain.operator.address;
    const inFlight = await db
      .selectDistinct({ from: chainTransactions.fromAddress })
      .from(chainTransactions)
      .where(and(live, unsettled))
      .limit(MAX_SIGNERS);
    const signers = [operator as string, ...inFlight.map((r) => r.from).filter((a) => a.toLowerCase() !== operator.toLowerCase())].slice(0, MAX_SIGNERS);
    const keys = signers.map((a) => `${chain.config.chain.id}:${a}`);
    const nonces = new Map((await db.select().from(walletNonces).where(inArray(walletNonces.key, keys))).map((r) => [r.key, r.nextNonce]));
    snapshot.signers = signers.map((address) => ({
      signer: address === operator ? "operator" : address.toLowerCase(),
      address,
      nextNonce: nonces.get(`${chain.config.chain.id}:${address}`) ?? null,
      chainPending: null,
    }));
    metrics.signerNextNonce.reset();
    for (const signer of snapshot.signers) if (signer.nextNonce !== null) metrics.signerNextNonce.set({ signer: signer.signer }, signer.nextNonce);

    const since = new Date(now - 86_400_000);
    const gasRows = await db
      .select({ gasLimit: chainTransactions.gasLimit, gasPrice: chainTransactions.gasPrice })
      .from(chainTransactions)
      .where(and(live, eq(chainTransactions.fromAddress, operator), gte(chainTransactions.sentAt, since)));
    const gasWei = gasRows.reduce((sum, r) => sum + (r.gasLimit ?? 0n) * (r.gasPrice ?? 0n), 0n);
    metrics.operatorGas24h.set(Number(formatEther(gasWei)));
    snapshot.balances.operatorGas24h = formatEther(gasWei);

    const waiting = await db
      .select({ source: webhookDeliveries.source, n: count(), oldest: min(webhookDeliveries.receivedAt) })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.status, ["pending", "processing"]))
      .groupBy(webhookDeliveries.source);
    for (const source of ["github", "onramp"] as const) {
      const row = waiting.find((w) => w.source === source);
      const age = row?.oldest ? Math.max(0, (now - row.oldest.getTime()) / 1000) : 0;
      metrics.webhooksWaiting.set({ source }, row?.n ?? 0);
      metrics.webhooksOldestWaiting.set({ source }, age);
      snapshot.webhooks.push({ source, waiting: row?.n ?? 0, oldestSeconds: Math.round(age) });
    }

    const [outbound] = await db
      .select({
        pending: sql<number>`coalesce(sum(${outboundMessages.status} = 'pending'), 0)`,
        retrying: sql<number>`coalesce(sum(${outboundMessages.status} = 'pending' and ${outboundMessages.attempts} > 0), 0)`,
        failed: sql<number>`coalesce(sum(${outboundMessages.status} = 'failed'), 0)`,
      })
      .from(outboundMessages);
    snapshot.outbound = { pending: Number(outbound?.pending ?? 0), retrying: Number(outbound?.retrying ?? 0), failed: Number(outbound?.failed ?? 0) };
    metrics.outboundMessages.set({ status: "pending" }, snapshot.outbound.pending);
    metrics.outboundMessages.set({ status: "failed" }, snapshot.outbound.failed);
    metrics.outboundRetrying.set(snapshot.outbound.retrying);

    const [leases] = await db
      .select({ held: sql<number>`coalesce(sum(${workerLeases.until} >= ${now}), 0)`, expired: sql<number>`coalesce(sum(${workerLeases.until} < ${now}), 0)` })
      .from(workerLeases)
      .where(sql`${workerLeases.name} not like 'probe:%'`);
    snapshot.leases = { held: Number(leases?.held ?? 0), expired: Number(leases?.expired ?? 0) };
    metrics.leases.set({ state: "held" }, snapshot.leases.held);
    metrics.leases.set({ state: "expired" }, snapshot.leases.expired);

    const [scoping] = await db.select({ n: count() }).from(scopingJobs).where(inArray(scopingJobs.status, ["queued", "processing"]));
    const [compute] = await db.select({ n: count() }).from(computeTasks).where(eq(computeTasks.status, "queued"));
    snapshot.scopingJobsWaiting = scoping?.n ?? 0;
    snapshot.computeTasksWaiting = compute?.n ?? 0;
    metrics.scopingJobsWaiting.set(snapshot.scopingJobsWaiting);
    metrics.computeTasksWaiting.set(snapshot.computeTasksWaiting);

    snapshot.database.sizeBytes = databaseSize(database);
    if (snapshot.database.sizeBytes !== null) metrics.databaseSize.set(snapshot.database.sizeBytes);
    const writeMs = await probeDatabaseWrite(database, now);
    snapshot.database.writeLatencyMs = Math.round(writeMs * 100) / 100;
    metrics.databaseWriteLatency.set(writeMs / 1000);

    snapshot.escrow.queued = await this.queuedOutflows(now);
  }

  /** Outflows queued on the escrow and not executed or cancelled, from the mirrored events. */
  private async queuedOutflows(now: number): Promise<QueuedOutflow[]> {
    const { database, chain } = this.deps;
    const events = await database.db
      .select({ name: chainEvents.name, args: chainEvents.args, txHash: chainEvents.txHash })
      .from(chainEvents)
      .where(and(eq(chainEvents.chainId, chain.config.chain.id), inArray(chainEvents.name, ["OutflowQueued", "OutflowExecuted", "OutflowCancelled"]), isNull(chainEvents.oldChain)));
    const done = new Set(events.filter((e) => e.name !== "OutflowQueued").map((e) => (JSON.parse(e.args) as { id: string }).id));
    const queued = events.filter((e) => e.name === "OutflowQueued" && !done.has((JSON.parse(e.args) as { id: string }).id));
    const rows = queued.length
      ? await database.db
          .select({ txHash: chainTransactions.txHash, kind: chainTransactions.kind })
          .from(chainTransactions)
          .where(inArray(chainTransactions.txHash, queued.map((e) => e.txHash)))
      : [];
    const kindOf = new Map(rows.map((r) => [r.txHash, r.kind]));
    return queued.map((e) => {
      const args = JSON.parse(e.args) as { id: string; repoId: string; issueNumber: string; currency: number; amount: string; to: string; readyAt: string };
      const kind = kindOf.get(e.txHash);
      return {
        id: args.id,
        repoId: Number(args.repoId),
        issueNumber: Number(args.issueNumber),
        currency: CURRENCIES[args.currency] ?? String(args.currency),
        amount: args.amount,
        to: args.to,
        readyAt: new Date(Number(args.readyAt) * 1000).toISOString(),
        ready: Number(args.readyAt) * 1000 <= now,
        sentByPlatform: kind !== undefined,
        reason: kind ? `${OUTFLOW_KINDS[kind] ?? kind.replace(/_/g, " ")}: over the payout delay or a daily cap, it waits out its delay` : "not sent by the platform: the watcher pauses the escrow",
      };
    });
  }

  private async collectChain(snapshot: Snapshot): Promise<void> {
    const { metrics, chain, indexer } = this.deps;
    const now = this.now();
    const rewards = chain.config.contracts.rewards;
    const cursor = await indexer.lastIndexedBlock();
    snapshot.indexer.cursorBlock = cursor === null ? null : Number(cursor);
    let head: bigint | undefined;
    try {
      head = await this.client.getBlockNumber({ cacheTime: 0 });
      snapshot.chain = { up: true, headBlock: Number(head) };
      metrics.chainUp.set(1);
      metrics.chainHeadBlock.set(Number(head));
    } catch (err) {
      snapshot.chain = { up: false, headBlock: null, error: describeChainError(err) };
      metrics.chainUp.set(0);
    }
    if (head !== undefined) {
      const indexed = cursor ?? chain.config.contracts.deployedBlock - 1n;
      const lag = Number(head > indexed ? head - indexed : 0n);
      // The indexer reads confirmed blocks only: `confirmations - 1` blocks behind the head is caught up.
      if (lag <= Math.max(0, chain.config.confirmations - 1)) this.lastCaughtUpAt = now;
      metrics.indexerLagBlocks.set(lag);
      snapshot.indexer.lagBlocks = lag;
    }
    const lagSeconds = Math.max(0, (now - this.lastCaughtUpAt) / 1000);
    metrics.indexerLagSeconds.set(lagSeconds);
    snapshot.indexer.lagSeconds = Math.round(lagSeconds);
    if (head === undefined) return;

    const reads = await Promise.allSettled([
      this.client.getBalance({ address: chain.operator.address }),
      (async () => (this.feeCollector ??= await this.client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "feeCollector" })))().then((address) =>
        this.client.getBalance({ address }),
      ),
      this.client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "paused" }),
      ...CURRENCIES.map((_, currency) => this.client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "caps", args: [currency, 0n] })),
      ...snapshot.signers.map((s) => this.client.getTransactionCount({ address: s.address as Address, blockTag: "pending" })),
    ]);
    const [operatorBalance, feeBalance, paused, ...rest] = reads;
    if (operatorBalance?.status === "fulfilled") {
      snapshot.balances.operator = formatEther(operatorBalance.value as bigint);
      metrics.walletBalance.set({ wallet: "operator" }, Number(snapshot.balances.operator));
    }
    if (feeBalance?.status === "fulfilled") {
      snapshot.balances.feeCollector = formatEther(feeBalance.value as bigint);
      metrics.walletBalance.set({ wallet: "fee_collector" }, Number(snapshot.balances.feeCollector));
    }
    if (paused?.status === "fulfilled") {
      snapshot.escrow.paused = paused.value as boolean;
      metrics.escrowPaused.set(snapshot.escrow.paused ? 1 : 0);
    }
    for (const [currency, name] of CURRENCIES.entries()) {
      const caps = rest[currency];
      if (caps?.status !== "fulfilled") continue;
      const [, total, , totalUsed] = caps.value as readonly [bigint, bigint, bigint, bigint];
      const ratio = total > 0n ? Number((totalUsed * 1_000_000n) / total) / 1_000_000 : 0;
      snapshot.escrow.capUsed[name] = ratio;
      metrics.escrowCapUsed.set({ currency: name }, ratio);
    }
    metrics.signerChainPendingNonce.reset();
    for (const [i, signer] of snapshot.signers.entries()) {
      const pending = rest[CURRENCIES.length + i];
      if (pending?.status !== "fulfilled") continue;
      signer.chainPending = pending.value as number;
      metrics.signerChainPendingNonce.set({ signer: signer.signer }, signer.chainPending);
    }
    const queued = snapshot.escrow.queued;
    metrics.escrowQueuedOutflows.set({ state: "waiting" }, queued.filter((q) => !q.ready).length);
    metrics.escrowQueuedOutflows.set({ state: "ready" }, queued.filter((q) => q.ready).length);
    const next = queued.filter((q) => !q.ready).map((q) => Date.parse(q.readyAt));
    metrics.escrowNextReady.set(next.length ? Math.floor(Math.min(...next) / 1000) : 0);
  }

  /** A pass at once, then every `intervalMs`. */
  start(intervalMs: number): void {
    this.worker.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }
}

/** The embedded database's file and write-ahead log, in bytes (null for a libSQL server or a memory database). */
function databaseSize(database: DatabaseHandle): number | null {
  if (!database.embedded || !database.url.startsWith("file:")) return null;
  const path = filePath(database.url);
  let size = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      size += statSync(path + suffix).size;
    } catch {
      // no write-ahead log right now
    }
  }
  return size;
}

function emptySnapshot(): Snapshot {
  return {
    collectedAt: null,
    chain: { up: false, headBlock: null },
    indexer: { cursorBlock: null, lagBlocks: null, lagSeconds: null },
    balances: { operator: null, feeCollector: null, operatorGas24h: "0" },
    escrow: { paused: null, capUsed: {}, queued: [] },
    outbox: { byKindAndStatus: [], oldestUnsettledSeconds: {} },
    signers: [],
    webhooks: [],
    outbound: { pending: 0, retrying: 0, failed: 0 },
    leases: { held: 0, expired: 0 },
    scopingJobsWaiting: 0,
    computeTasksWaiting: 0,
    database: { sizeBytes: null, writeLatencyMs: null },
  };
}
