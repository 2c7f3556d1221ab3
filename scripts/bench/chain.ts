/**
 * Chain benchmark (not a test): `bun scripts/bench/chain.ts [count] [concurrency]`.
 *
 * `count` (default 200) bounty allocations and `count` payouts through the
 * platform's HTTP API and its transaction outbox (the server in its own
 * process, workers on, as in production), against the same number of the
 * same contract calls sent as raw viem transactions by funded accounts
 * holding the operator role (one per client), on the same anvil in the same
 * run, in the order API, raw, raw, API. Both sides run closed-loop with
 * `concurrency` clients (default 20) and count an operation done when its
 * transaction is confirmed. Prints throughput
 * (operations per second, first request to last confirmation), the ratio
 * API / raw (target: at least 0.5) and p50/p99 from request to confirmed.
 * Before measuring, both sides run `concurrency` allocations and payouts
 * each, not counted (first-request costs, compilation).
 *
 * Everything it needs (anvil, contracts, GitHub emulator, users, issues,
 * pools) is started and seeded here and removed at the end.
 */
import { createWalletClient, encodeFunctionData, http, keccak256, parseEther, toHex, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { fixtureRepo } from "../github-emulator/fixture.ts";
import { anvilPrivateKey } from "../lib/anvil.ts";
import { createTestUser } from "../../testing/auth.ts";
import { startProcessStack, type ProcessStack, type ServerProcess } from "../../testing/process-stack.ts";
import { wallets } from "../../db/schema/index.ts";
import { eq } from "drizzle-orm";
import { percentile, table } from "./lib.ts";

const COUNT = Number(process.argv[2] ?? 200);
const CONCURRENCY = Number(process.argv[3] ?? 20);
const CONTRIBUTORS = 20;
/** The raw side's first sender among anvil's accounts (0-4 are the deployer, the operator, the fee collector, the admin and the guardian). */
const RAW_FIRST_ACCOUNT = 5;
const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;
/** The raw side's pool: a repository id no one else uses. */
const RAW_REPO_ID = 990_001n;
/** Operations of each kind, on each side, run before measuring. */
const WARMUP = CONCURRENCY;
/** The raw side's warm-up issues: numbers the measured ones never reach. */
const RAW_WARM_ISSUE = 1_000_000n;
/** 1.001 XDC, 1.002 XDC, ...: above the 1 XDC minimum, and each bounty distinct. */
const amountOf = (i: number) => `1.${String(i + 1).padStart(3, "0")}`;

interface Phase {
  label: string;
  latenciesMs: number[];
  wallMs: number;
  errors: string[];
}

/** Runs `count` operations with `concurrency` workers, each op resolving when its transaction is confirmed. */
async function closedLoop(label: string, count: number, concurrency: number, op: (i: number, worker: number) => Promise<void>): Promise<Phase> {
  const latenciesMs: number[] = [];
  const errors: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = next++; i < count; i = next++) {
        const t0 = performance.now();
        try {
          await op(i, worker);
          latenciesMs.push(performance.now() - t0);
        } catch (err) {
          errors.push(`#${i}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }),
  );
  latenciesMs.sort((a, b) => a - b);
  return { label, latenciesMs, wallMs: performance.now() - started, errors };
}

let stack: ProcessStack | undefined;
let server: ServerProcess | undefined;
const startedAt = performance.now();
try {
  console.log(`Chain benchmark: ${COUNT} allocations + ${COUNT} payouts each way, ${CONCURRENCY} concurrent clients, ${navigator.hardwareConcurrency} cores`);
  // Accounts 3.. are the raw side's senders, one per client (see below).
  stack = await startProcessStack({ logLevel: "info", chain: { accounts: RAW_FIRST_ACCOUNT + CONCURRENCY }, checkAnswers: false });
  const { t, chain, github } = stack;
  const client = t.ctx.chain.client;
  const rewards = chain.deployment.repoRewards;

  // ---- seed (not timed) ----
  const alice = await stack.signUp("alice", "poolmanager");
  await stack.registerRepository(FULL_NAME, REPO.id);
  await chain.fund(alice.wallet, { xdc: "2000" });
  const contributors: Address[] = [];
  for (let i = 0; i < CONTRIBUTORS; i++) {
    const user = await createTestUser(t, { role: "contributor" });
    const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, user.id));
    contributors.push(wallet!.address as Address);
  }
  // Bounties go on open issues (the API checks with GitHub): open COUNT of them in the emulator.
  const issues: number[] = [];
  for (let i = 0; i < COUNT; i++) {
    const { issue } = await github.controls.openIssue({ repo: FULL_NAME, title: `Bench issue ${i}`, author: "erin" });
    issues.push((issue as { number: number }).number);
  }
  const warmIssues: number[] = [];
  for (let i = 0; i < WARMUP; i++) {
    const { issue } = await github.controls.openIssue({ repo: FULL_NAME, title: `Warm-up ${i}`, author: "erin" });
    warmIssues.push((issue as { number: number }).number);
  }
  const poolNeeded = Array.from({ length: COUNT }, (_, i) => parseEther(amountOf(i))).reduce((a, b) => a + b, 0n) + BigInt(WARMUP) * parseEther("1");
  const poolGross = ((poolNeeded * 10_000n) / 9_950n / 10n ** 18n + 2n) * 10n ** 18n; // covers the 0.5 % fee

  server = await stack.spawn();
  const post = async (path: string, body: unknown, key: string) => {
    const res = await stack!.post(server!, alice, path, body, key);
    const json = (await res.json()) as { status?: string; transactionHash?: Hex; message?: string };
    if (res.status !== 200) throw new Error(`${res.status} ${json.message}`);
    return json;
  };
  /** The API answers once confirmed, or "pending" with the hash after its wait: then the client watches the chain. */
  const confirmed = async (answer: { status?: string; transactionHash?: Hex }) => {
    if (answer.status === "confirmed") return;
    const receipt = await client.waitForTransactionReceipt({ hash: answer.transactionHash!, pollingInterval: 50, timeout: 60_000 });
    if (receipt.status !== "success") throw new Error(`reverted: ${answer.transactionHash}`);
  };
  await confirmed(await post(`/api/blockchain/repository/${REPO.id}/fund`, { amountXdc: String(poolGross / 10n ** 18n), repositoryFullName: FULL_NAME }, "bench-fund-pool"));
  // Warm-up (not counted), the same on both sides: WARMUP allocations and payouts with the measured concurrency, so
  // first-request costs and compilation stay out of the figures.
  const warmUp = async (label: string, op: (i: number, worker: number) => Promise<void>) => {
    const phase = await closedLoop(label, WARMUP, CONCURRENCY, op);
    if (phase.errors.length) throw new Error(`${label}: ${phase.errors[0]}`);
  };
  await warmUp("warm-up allocations via API", async (i) =>
    confirmed(await post(`/api/blockchain/allocate-bounty/${REPO.id}/${warmIssues[i]}`, { bountyAmount: "1", currency: "XDC", githubRepoFullName: FULL_NAME }, `bench-warm-allocate-${i}`)),
  );
  await warmUp("warm-up payouts via API", async (i) =>
    confirmed(await post(`/api/blockchain/distribute-bounty/${REPO.id}/${warmIssues[i]}`, { contributorAddress: contributors[i % CONTRIBUTORS], githubRepoFullName: FULL_NAME }, `bench-warm-pay-${i}`)),
  );

  // The raw side: one funded account per client, each given the operator role by the admin and sending its own
  // transactions one after another, as lean as a client can be: the nonce counted locally, the gas price read once
  // (legacy transactions, as the outbox sends), only the gas estimated per transaction, with the outbox's headroom. One
  // account shared by concurrent clients (viem's nonce manager) sends out of nonce order, and anvil then sometimes
  // leaves a transaction queued for good although its nonce is next (seen with anvil 1.7.1; cf.
  // foundry-rs/foundry#10122): the run stalled. The platform's outbox sends each signer's transactions in order.
  // RepoRewards v2: the admin is anvil's account 3, and a role grant waits ADMIN_DELAY (anvil's clock is moved on).
  const admin = createWalletClient({ account: privateKeyToAccount(anvilPrivateKey(3)), chain: t.ctx.chain.config.chain, transport: http(chain.anvil.rpcUrl) });
  const raws = Array.from({ length: CONCURRENCY }, (_, k) =>
    createWalletClient({
      account: privateKeyToAccount(anvilPrivateKey(RAW_FIRST_ACCOUNT + k)),
      chain: t.ctx.chain.config.chain,
      transport: http(chain.anvil.rpcUrl),
      pollingInterval: 50,
    }),
  );
  const operatorRole = keccak256(toHex("OPERATOR_ROLE"));
  const grants = raws.map((raw) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "grantRole", args: [operatorRole, raw.account.address] }));
  for (const grant of grants) {
    await client.waitForTransactionReceipt({
      hash: await admin.writeContract({ address: rewards, abi: RepoRewardsAbi, functionName: "schedule", args: [grant] }),
    });
  }
  await chain.rpc("evm_increaseTime", [2 * 24 * 3600]);
  await chain.rpc("evm_mine");
  for (const grant of grants) {
    await client.waitForTransactionReceipt({ hash: await admin.sendTransaction({ to: rewards, data: grant }) });
  }
  await client.waitForTransactionReceipt({
    hash: await raws[0]!.writeContract({ address: rewards, abi: RepoRewardsAbi, functionName: "fundPoolXdc", args: [RAW_REPO_ID, 50], value: poolGross }),
  });
  const gasPrice = await client.getGasPrice();
  const nonces = await Promise.all(raws.map((raw) => client.getTransactionCount({ address: raw.account.address, blockTag: "pending" })));
  const rawSend = async (worker: number, data: Hex) => {
    // The outbox's headroom (api/chain/outbox-signing.ts): an estimate made while other clients' payouts mine is for
    // the state before them (e.g. the caps' checkpoint of this second updated in place, where the next second adds one).
    const estimate = await client.estimateGas({ account: raws[worker]!.account, to: rewards, data });
    const gas = (estimate * 12n) / 10n + 150_000n;
    const hash = await raws[worker]!.sendTransaction({ to: rewards, data, nonce: nonces[worker]!++, gasPrice, gas, type: "legacy" });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 60_000 });
    if (receipt.status !== "success") throw new Error(`reverted: ${hash}`);
  };
  const allocateRaw = (issue: bigint, amount: bigint) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "allocateBounty", args: [RAW_REPO_ID, issue, 0, amount] });
  const payRaw = (issue: bigint, to: Address) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payBounty", args: [RAW_REPO_ID, issue, to] });
  await warmUp("warm-up allocations, raw", (i, worker) => rawSend(worker, allocateRaw(RAW_WARM_ISSUE + BigInt(i), parseEther("1"))));
  await warmUp("warm-up payouts, raw", (i, worker) => rawSend(worker, payRaw(RAW_WARM_ISSUE + BigInt(i), contributors[i % CONTRIBUTORS]!)));
  console.log(`seeded and warmed up in ${((performance.now() - startedAt) / 1000).toFixed(1)} s; measuring...`);

  // ---- measured, in the order API, raw, raw, API: anvil slows down as its chain grows (a side that always went
  // first would be favoured), and this order puts both sides' phases the same distance from the middle. ----
  const apiAllocate = await closedLoop("allocate-bounty via API + outbox", COUNT, CONCURRENCY, async (i) =>
    confirmed(await post(`/api/blockchain/allocate-bounty/${REPO.id}/${issues[i]}`, { bountyAmount: amountOf(i), currency: "XDC", githubRepoFullName: FULL_NAME }, `bench-allocate-${i}`)),
  );
  const rawAllocate = await closedLoop("allocateBounty, raw viem", COUNT, CONCURRENCY, (i, worker) => rawSend(worker, allocateRaw(BigInt(i + 1), parseEther(amountOf(i)))));
  const rawPay = await closedLoop("payBounty, raw viem", COUNT, CONCURRENCY, (i, worker) => rawSend(worker, payRaw(BigInt(i + 1), contributors[i % CONTRIBUTORS]!)));
  const apiPay = await closedLoop("distribute-bounty via API + outbox", COUNT, CONCURRENCY, async (i) =>
    confirmed(await post(`/api/blockchain/distribute-bounty/${REPO.id}/${issues[i]}`, { contributorAddress: contributors[i % CONTRIBUTORS], githubRepoFullName: FULL_NAME }, `bench-pay-${i}`)),
  );
  const phases: Phase[] = [apiAllocate, rawAllocate, apiPay, rawPay];

  // ---- check: every bounty of both sides is paid (status 2) ----
  let unpaid = 0;
  for (let i = 0; i < COUNT; i++) {
    const [, , apiStatus] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getBounty", args: [BigInt(REPO.id), BigInt(issues[i]!)] });
    const [, , rawStatus] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getBounty", args: [RAW_REPO_ID, BigInt(i + 1)] });
    if (apiStatus !== 2) unpaid++;
    if (rawStatus !== 2) unpaid++;
  }

  const perSec = (p: Phase) => (p.latenciesMs.length / p.wallMs) * 1000;
  const rows: (string | number)[][] = [["phase", "ops", "wall s", "ops/s", "p50 ms", "p99 ms", "errors"]];
  for (const p of phases) {
    rows.push([p.label, p.latenciesMs.length, (p.wallMs / 1000).toFixed(2), perSec(p).toFixed(1), percentile(p.latenciesMs, 50).toFixed(1), percentile(p.latenciesMs, 99).toFixed(1), p.errors.length]);
  }
  const combined = (a: Phase, b: Phase) => ((a.latenciesMs.length + b.latenciesMs.length) / (a.wallMs + b.wallMs)) * 1000;
  console.log(`\n${table(rows)}\n`);
  console.log(`ratio API / raw, allocations: ${(perSec(apiAllocate) / perSec(rawAllocate)).toFixed(2)}`);
  console.log(`ratio API / raw, payouts:     ${(perSec(apiPay) / perSec(rawPay)).toFixed(2)}`);
  console.log(`ratio API / raw, both:        ${(combined(apiAllocate, apiPay) / combined(rawAllocate, rawPay)).toFixed(2)}  (target >= 0.5)`);
  console.log(`bounties left unpaid: ${unpaid}; total run ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
  for (const p of phases) for (const e of p.errors.slice(0, 5)) console.log(`  error in ${p.label}: ${e}`);
  if (unpaid > 0 || phases.some((p) => p.errors.length > 0)) process.exitCode = 1;
} finally {
  await server?.stop();
  await stack?.stop();
}
