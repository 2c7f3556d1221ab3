/**
 * /metrics on a running platform (a server process, its chain and
 * database) while work flows (issue 41): every figure docs/operations.md
 * names is in the scrape, parsed with a Prometheus text-format parser, and
 * moves with the work: a funding shows as an unsettled outbox row (the chain
 * holds it in its pool), then settles; a reorganisation shows as a repair and
 * a rewind; a killed chain shows as lag.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Address } from "viem";
import { fixtureRepo } from "../../testing/dev-tools.ts";
import { scrape, sample, type MetricFamily } from "../../testing/metrics.ts";
import { startProcessStack, type ProcessStack, type ServerProcess } from "../../testing/process-stack.ts";
import { eventually } from "../../testing/stack.ts";
import type { TestSession } from "../../testing/auth.ts";

const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;
const INTERVAL_MS = 200;

/** Every figure docs/operations.md lists. */
export const FIGURES = [
  "issuepool_outbox_transactions",
  "issuepool_outbox_oldest_unsettled_age_seconds",
  "issuepool_signer_next_nonce",
  "issuepool_signer_chain_pending_nonce",
  "issuepool_reconciler_repairs_total",
  "issuepool_indexer_rewinds_total",
  "issuepool_indexer_lag_blocks",
  "issuepool_indexer_lag_seconds",
  "issuepool_chain_up",
  "issuepool_chain_head_block",
  "issuepool_wallet_balance_xdc",
  "issuepool_operator_gas_xdc_24h",
  "issuepool_escrow_queued_outflows",
  "issuepool_escrow_queued_outflow_next_ready_timestamp_seconds",
  "issuepool_escrow_paused",
  "issuepool_escrow_cap_used_ratio",
  "issuepool_webhook_deliveries_waiting",
  "issuepool_webhook_oldest_waiting_age_seconds",
  "issuepool_outbound_messages",
  "issuepool_outbound_messages_retrying",
  "issuepool_worker_leases",
  "issuepool_scoping_jobs_waiting",
  "issuepool_compute_tasks_waiting",
  "issuepool_http_requests_total",
  "issuepool_http_request_duration_seconds",
  "issuepool_database_size_bytes",
  "issuepool_database_write_latency_seconds",
  "issuepool_startup_repair_done",
  "issuepool_metrics_collection_last_success_timestamp_seconds",
  "issuepool_backups_total",
  "issuepool_backup_last_success_timestamp_seconds",
  "process_resident_memory_bytes",
];

let stack: ProcessStack;
let server: ServerProcess | undefined;
let alice: TestSession & { wallet: Address };

beforeAll(async () => {
  stack = await startProcessStack();
  alice = await stack.signUp("alice", "poolmanager");
  await stack.registerRepository(FULL_NAME, REPO.id);
  await stack.chain.fund(alice.wallet, { xdc: "300" });
}, 120_000);
afterAll(async () => {
  await server?.kill();
  // (Stopping the chain again is a no-op: the test may have killed it.)
  await stack?.stop();
});

test("every figure is in the scrape and moves with the work: a funding in flight then settled, a reorganisation repaired, a chain killed", async () => {
  server = await stack.spawn({ METRICS_INTERVAL_MS: String(INTERVAL_MS) });
  const url = `${server.url}/metrics`;
  let last: Map<string, MetricFamily> | undefined;
  const when = (what: string, check: (m: Map<string, MetricFamily>) => boolean, timeoutMs = 20_000) =>
    eventually(async () => {
      const m = (last = await scrape(url));
      return check(m) ? m : undefined;
    }, timeoutMs, what).catch((err) => {
      // What the last scrape said of the outbox, the chain and the indexer, for the failure message.
      const shown = ["issuepool_outbox_transactions", "issuepool_outbox_oldest_unsettled_age_seconds", "issuepool_signer_next_nonce", "issuepool_chain_up", "issuepool_indexer_lag_blocks", "issuepool_reconciler_repairs_total", "issuepool_indexer_rewinds_total"];
      throw new Error(`${(err as Error).message}; last scrape: ${JSON.stringify(shown.map((n) => [n, last?.get(n)?.metrics]))}`);
    });

  const first = await when("the start-up repair and a collection pass", (m) => sample(m, "issuepool_startup_repair_done") === 1 && sample(m, "issuepool_chain_up") === 1);
  const missing = FIGURES.filter((name) => !first.has(name));
  expect(missing).toEqual([]);
  for (const family of first.values()) {
    expect(family.name).toMatch(/^[a-z_:][a-z0-9_:]*$/);
    if (family.type === "COUNTER") expect(family.name).toEndWith("_total");
  }
  expect(sample(first, "issuepool_database_size_bytes")).toBeGreaterThan(0);
  expect(sample(first, "issuepool_database_write_latency_seconds")).toBeGreaterThan(0);
  expect(sample(first, "issuepool_worker_leases", { state: "held" })).toBeGreaterThan(0);
  expect(sample(first, "issuepool_wallet_balance_xdc", { wallet: "operator" })).toBeGreaterThan(0);
  expect(sample(first, "issuepool_escrow_paused")).toBe(0);
  const feesBefore = sample(first, "issuepool_wallet_balance_xdc", { wallet: "fee_collector" })!;
  const snapshot = await stack.chain.rpc("evm_snapshot");

  // A first funding the chain holds in its pool (no block mined): the operator's appointment of alice as the pool's
  // manager, which goes first, is an unsettled row, and the operator's next nonce is ahead of what the chain has mined.
  await stack.chain.rpc("evm_setAutomine", [false]);
  const funding = stack.post(server, alice, `/api/blockchain/repository/${REPO.id}/fund`, { amountXdc: "50", repositoryFullName: FULL_NAME }, `metrics-${Date.now()}`);
  const inFlight = await when(
    "the funding in flight",
    (m) =>
      sample(m, "issuepool_outbox_transactions", { kind: "set_pool_manager", status: "sent" }) === 1 &&
      (sample(m, "issuepool_outbox_oldest_unsettled_age_seconds", { kind: "set_pool_manager" }) ?? 0) > 0 &&
      // The chain's pending count is read after the database in each pass: the two agree once a pass has seen both.
      (sample(m, "issuepool_signer_chain_pending_nonce", { signer: "operator" }) ?? -1) === sample(m, "issuepool_signer_next_nonce", { signer: "operator" }),
  );
  expect(sample(inFlight, "issuepool_signer_next_nonce", { signer: "operator" })).toBeGreaterThan(0);
  expect(sample(inFlight, "issuepool_outbox_transactions", { kind: "fund_xdc", status: "confirmed" })).toBeUndefined();
  await stack.chain.rpc("evm_setAutomine", [true]);
  await stack.chain.rpc("evm_mine");
  expect((await funding).status).toBe(200);
  const settled = await when(
    "the funding settled and indexed",
    (m) =>
      sample(m, "issuepool_outbox_transactions", { kind: "fund_xdc", status: "confirmed" }) === 1 &&
      sample(m, "issuepool_outbox_transactions", { kind: "set_pool_manager", status: "confirmed" }) === 1 &&
      sample(m, "issuepool_outbox_oldest_unsettled_age_seconds", { kind: "set_pool_manager" }) === 0 &&
      sample(m, "issuepool_outbox_oldest_unsettled_age_seconds", { kind: "fund_xdc" }) === 0 &&
      sample(m, "issuepool_indexer_lag_blocks") === 0,
  );
  expect(sample(settled, "issuepool_wallet_balance_xdc", { wallet: "fee_collector" })).toBeGreaterThan(feesBefore);
  expect(sample(settled, "issuepool_http_requests_total", { route: "/api/blockchain/repository/:repoId/fund", status: "200" })).toBe(1);
  // (The parser keeps a histogram's buckets but not its labels: its count is read from the text.)
  expect(await (await fetch(url)).text()).toContain('issuepool_http_request_duration_seconds_count{method="POST",route="/api/blockchain/repository/:repoId/fund"} 1');

  // The chain loses the funding's block: the reconciler sends it again (a repair), the indexer rewinds.
  await stack.chain.rpc("evm_revert", [snapshot]);
  await stack.chain.rpc("evm_mine");
  await when(
    "a repair and a rewind",
    (m) => (sample(m, "issuepool_reconciler_repairs_total", { kind: "rebroadcast" }) ?? 0) >= 1 && (sample(m, "issuepool_indexer_rewinds_total") ?? 0) >= 1,
    30_000,
  );

  // The chain killed: unreachable, and the indexer's lag in seconds grows.
  await stack.chain.stop();
  const down = await when("the chain down", (m) => sample(m, "issuepool_chain_up") === 0);
  const lag = sample(down, "issuepool_indexer_lag_seconds")!;
  await when("the lag growing", (m) => sample(m, "issuepool_indexer_lag_seconds")! >= lag + 1);
}, 180_000);

test("/metrics answers only callers on this machine without a token, and only the token with one; promtool's linter finds nothing", async () => {
  const { createTestContext } = await import("../../testing/context.ts");
  const open = await createTestContext();
  const withToken = await createTestContext({ env: { METRICS_TOKEN: "a-metrics-token-0123456789" } });
  const production = await createTestContext({ env: { NODE_ENV: "production" } });
  try {
    expect((await open.app.request("/metrics")).status).toBe(200);
    expect((await open.app.request("/metrics", { headers: { "X-Forwarded-For": "203.0.113.9" } })).status).toBe(404);
    expect((await withToken.app.request("/metrics")).status).toBe(401);
    expect((await withToken.app.request("/metrics", { headers: { Authorization: "Bearer wrong-token-0123456789ab" } })).status).toBe(401);
    const ok = await withToken.app.request("/metrics", { headers: { Authorization: "Bearer a-metrics-token-0123456789" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("text/plain");
    // Prometheus's own linter on the exposition (names, units, suffixes), when Debian's promtool is installed.
    const promtool = Bun.which("promtool");
    if (promtool) {
      open.ctx.ops.metrics.withProcessMetrics().observeRequest("GET", "/api/health", 200, 0.001);
      open.ctx.ops.metrics.repaired("rebroadcast", {});
      await open.ctx.ops.collector.runOnce();
      const lint = Bun.spawn([promtool, "check", "metrics"], { stdin: new TextEncoder().encode(await open.ctx.ops.metrics.text()), stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(lint.stdout).text(), new Response(lint.stderr).text(), lint.exited]);
      expect(out + err).toBe("");
      expect(code).toBe(0);
    }
    expect((await production.app.request("/metrics")).status).toBe(404);
  } finally {
    open.close();
    withToken.close();
    production.close();
  }
});
