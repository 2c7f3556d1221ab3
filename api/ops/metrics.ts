import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";

/**
 * What an on-call person alerts on, in Prometheus form (issue 41;
 * docs/operations.md lists every figure and the alert rules). One registry
 * per running platform (tests build several in one process).
 *
 * Names follow Prometheus's conventions: a `issuepool_` prefix, the unit in
 * the name (`_seconds`, `_bytes`, `_xdc`), `_total` for counters, and label
 * values from bounded sets (an outbox row's kind and status, a webhook's
 * source, a route's pattern, never its path or an id). The only address-like
 * label, `signer` of the nonce figures, names the operator or one of the few
 * custodial signers with a transaction in flight (at most MAX_SIGNERS).
 *
 * Counters and the HTTP figures are written as things happen (the request
 * edge, the reconciler, the indexer, the backup); the figures that need the
 * database or the chain are set by the collection pass (collector.ts), so a
 * scrape never waits on the chain.
 */
export const MAX_SIGNERS = 20;

/** One repair or rewind, kept for the operator's page (the newest RECENT_KEPT). */
export interface RecentEvent {
  at: string;
  kind: string;
  detail: Record<string, unknown>;
}
const RECENT_KEPT = 20;

export type RepairKind = "rebroadcast" | "moved" | "resent" | "chain_replaced";

export class PlatformMetrics {
  readonly registry = new Registry();
  private readonly repairs: RecentEvent[] = [];
  private readonly rewinds: RecentEvent[] = [];

  private readonly counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  private readonly gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [this.registry] });

  // As things happen.
  /** `issuepool_http_requests_total` and `issuepool_http_request_duration_seconds`: counted on every request's path. */
  private readonly http = new RequestFigures(this.registry);
  readonly reconcilerRepairs = this.counter("issuepool_reconciler_repairs_total", "Beliefs the chain no longer supported, repaired by the reconciler, by kind.", ["kind"]);
  readonly indexerRewinds = this.counter("issuepool_indexer_rewinds_total", "Times the indexer rewound to a common ancestor (a reorganisation, or a chain that lost blocks).");
  readonly backups = this.counter("issuepool_backups_total", "Backups of the embedded database, by result.", ["result"]);
  readonly backupLastSuccess = this.gauge("issuepool_backup_last_success_timestamp_seconds", "When the last backup that succeeded was written (Unix time).");
  readonly backupLastSize = this.gauge("issuepool_backup_last_size_bytes", "Size of the last backup written.");

  // Set by the collection pass (collector.ts).
  readonly outboxTransactions = this.gauge("issuepool_outbox_transactions", "Outbox rows (transactions the platform sends), by kind and status.", ["kind", "status"]);
  readonly outboxOldestUnsettled = this.gauge("issuepool_outbox_oldest_unsettled_age_seconds", "Age of the oldest outbox row not yet confirmed, reverted or failed, by kind (0: none).", ["kind"]);
  readonly signerNextNonce = this.gauge("issuepool_signer_next_nonce", "The next nonce the platform will use for a signer (wallet_nonces).", ["signer"]);
  readonly signerChainPendingNonce = this.gauge("issuepool_signer_chain_pending_nonce", "The chain's pending transaction count for a signer.", ["signer"]);
  readonly chainUp = this.gauge("issuepool_chain_up", "1 when the chain's node answered the last collection pass, else 0.");
  readonly chainHeadBlock = this.gauge("issuepool_chain_head_block", "The chain's latest block number, as last seen.");
  readonly indexerLagBlocks = this.gauge("issuepool_indexer_lag_blocks", "Blocks between the chain's head (as last seen) and the indexer's cursor.");
  readonly indexerLagSeconds = this.gauge("issuepool_indexer_lag_seconds", "Seconds since the indexer was last seen caught up with the chain's head (grows while the chain is unreachable).");
  readonly walletBalance = this.gauge("issuepool_wallet_balance_xdc", "XDC balance of the platform's own wallets (operator, fee_collector).", ["wallet"]);
  readonly operatorGas24h = this.gauge("issuepool_operator_gas_xdc_24h", "Gas the operator's transactions of the last 24 hours may have cost (gas limit x price, an upper bound), in XDC.");
  readonly escrowQueuedOutflows = this.gauge("issuepool_escrow_queued_outflows", "Outflows queued in the escrow contract, not yet executed or cancelled, by whether their delay is over.", ["state"]);
  readonly escrowNextReady = this.gauge("issuepool_escrow_queued_outflow_next_ready_timestamp_seconds", "When the next queued outflow becomes executable (Unix time; 0: none queued).");
  readonly escrowPaused = this.gauge("issuepool_escrow_paused", "1 when the escrow contract is paused.");
  readonly escrowCapUsed = this.gauge("issuepool_escrow_cap_used_ratio", "Share of the escrow's daily outflow cap over all repositories used in the last 24 hours, by currency.", ["currency"]);
  readonly webhooksWaiting = this.gauge("issuepool_webhook_deliveries_waiting", "Incoming webhook deliveries not yet processed, by source.", ["source"]);
  readonly webhooksOldestWaiting = this.gauge("issuepool_webhook_oldest_waiting_age_seconds", "Age of the oldest incoming webhook delivery not yet processed, by source (0: none).", ["source"]);
  readonly outboundMessages = this.gauge("issuepool_outbound_messages", "Webhook messages to integrators: pending (never tried or retrying) and failed for good.", ["status"]);
  readonly outboundRetrying = this.gauge("issuepool_outbound_messages_retrying", "Webhook messages to integrators whose last attempt failed and that will be tried again.");
  readonly leases = this.gauge("issuepool_worker_leases", "Worker leases in the database, held or expired.", ["state"]);
  readonly scopingJobsWaiting = this.gauge("issuepool_scoping_jobs_waiting", "AI scoping jobs queued or being worked.");
  readonly computeTasksWaiting = this.gauge("issuepool_compute_tasks_waiting", "Compute tasks queued for a node.");
  readonly databaseSize = this.gauge("issuepool_database_size_bytes", "Size of the embedded database file and its write-ahead log.");
  readonly databaseWriteLatency = this.gauge("issuepool_database_write_latency_seconds", "How long the collection pass's probe write took.");
  readonly collectionLastSuccess = this.gauge("issuepool_metrics_collection_last_success_timestamp_seconds", "When the collection pass last finished (Unix time).");
  readonly startupRepairDone = this.gauge("issuepool_startup_repair_done", "1 once the start-up check against the chain has completed.");

  private processMetrics = false;

  /**
   * Adds the standard process figures (`process_cpu_seconds_total`, `process_resident_memory_bytes`…): once per
   * process, by the server (a test process builds many platforms).
   */
  withProcessMetrics(): this {
    if (this.processMetrics) return this;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry });
    // Bun's event-loop delay monitor gives no figures (NaN, 2^63): left out rather than shown wrong. The active
    // handles/requests/resources gauges are named like counters (`_total`), which `promtool check metrics` refuses.
    for (const metric of this.registry.getMetricsAsArray()) {
      if (metric.name.startsWith("nodejs_eventloop_lag") || /^nodejs_active_.*_total$/.test(metric.name)) this.registry.removeSingleMetric(metric.name);
    }
    return this;
  }

  /** One answered request (api/middleware/edge.ts). */
  observeRequest = (method: string, route: string, status: number, seconds: number): void => this.http.observe(method, route, status, seconds);

  /** A repair by the reconciler (api/chain/outbox-reconciling.ts). */
  repaired = (kind: RepairKind, detail: Record<string, unknown>): void => {
    this.reconcilerRepairs.inc({ kind });
    remember(this.repairs, { at: new Date().toISOString(), kind, detail });
  };

  /** A rewind of the indexer (api/chain/indexer.ts). */
  rewound = (detail: Record<string, unknown>): void => {
    this.indexerRewinds.inc();
    remember(this.rewinds, { at: new Date().toISOString(), kind: "rewind", detail });
  };

  /** The newest repairs and rewinds this process made, newest first. */
  recent(): { repairs: RecentEvent[]; rewinds: RecentEvent[] } {
    return { repairs: [...this.repairs].reverse(), rewinds: [...this.rewinds].reverse() };
  }

  /** The text exposition format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20];

/**
 * The HTTP figures, kept in plain arrays and handed to the registry as it scrapes: on every request's path,
 * prom-client's own counter and histogram hashed their labels on each call (about 1 µs a request, measured here;
 * the health check answers some 100,000 requests a second), this is a map lookup and a few additions.
 */
class RequestFigures {
  /** `${method} ${status} ${route}` -> the series. */
  private readonly series = new Map<string, { method: string; route: string; status: string; count: number; sum: number; buckets: number[] }>();

  constructor(registry: Registry) {
    const figures = this;
    const values = (pick: (s: RequestFigures["series"] extends Map<string, infer V> ? V : never) => { labels: Record<string, string>; value: number; metricName?: string }[]) =>
      [...figures.series.values()].flatMap(pick);
    registry.registerMetric({
      name: "issuepool_http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status.",
      type: "counter",
      aggregator: "sum",
      get: async () => ({
        name: "issuepool_http_requests_total",
        help: "HTTP requests answered, by method, route pattern and status.",
        type: "counter",
        aggregator: "sum",
        values: values((s) => [{ labels: { method: s.method, route: s.route, status: s.status }, value: s.count }]),
      }),
      reset: () => figures.series.clear(),
    } as never);
    registry.registerMetric({
      name: "issuepool_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method and route pattern.",
      type: "histogram",
      aggregator: "sum",
      get: async () => {
        // One histogram per method and route: the statuses' series added up.
        const byRoute = new Map<string, { method: string; route: string; count: number; sum: number; buckets: number[] }>();
        for (const s of figures.series.values()) {
          const key = `${s.method} ${s.route}`;
          const into = byRoute.get(key) ?? { method: s.method, route: s.route, count: 0, sum: 0, buckets: BUCKETS.map(() => 0) };
          into.count += s.count;
          into.sum += s.sum;
          s.buckets.forEach((n, i) => (into.buckets[i]! += n));
          byRoute.set(key, into);
        }
        const name = "issuepool_http_request_duration_seconds";
        return {
          name,
          help: "Time to answer an HTTP request, by method and route pattern.",
          type: "histogram",
          aggregator: "sum",
          values: [...byRoute.values()].flatMap((r) => {
            const labels = { method: r.method, route: r.route };
            let cumulative = 0;
            return [
              ...BUCKETS.map((le, i) => ({ metricName: `${name}_bucket`, labels: { le: String(le), ...labels }, value: (cumulative += r.buckets[i]!) })),
              { metricName: `${name}_bucket`, labels: { le: "+Inf", ...labels }, value: r.count },
              { metricName: `${name}_sum`, labels, value: r.sum },
              { metricName: `${name}_count`, labels, value: r.count },
            ];
          }),
        };
      },
      reset: () => figures.series.clear(),
    } as never);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { method, route, status: String(status), count: 0, sum: 0, buckets: BUCKETS.map(() => 0) }));
    s.count++;
    s.sum += seconds;
    // Counted in the first bucket it fits; the scrape adds them up.
    for (let i = 0; i < BUCKETS.length; i++) {
      if (seconds <= BUCKETS[i]!) {
        s.buckets[i]!++;
        break;
      }
    }
  }
}

function remember(list: RecentEvent[], event: RecentEvent): void {
  list.push(event);
  if (list.length > RECENT_KEPT) list.splice(0, list.length - RECENT_KEPT);
}
