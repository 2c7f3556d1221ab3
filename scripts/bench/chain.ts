/**
 * Chain benchmark (not a test): `bun scripts/bench/chain.ts [count] [concurrency] [splits]`.
 *
 * `count` (default 200) bounty allocations, `count` boosts (a funder adds
 * 1 XDC to each of those bounties from their own wallet, issue 29) and
 * `count` payouts through the platform's HTTP API and its transaction outbox
 * (the server in its own process, workers on, as in production), plus
 * `splits` (default count / 4) split payouts: a pull request by bob
 * co-authored by carol is merged in the GitHub emulator, its webhook opens the
 * split (release window 1 ms) and the release pass pays both with one
 * `payBountySplit`. Against the same number of the same contract calls sent
 * as raw viem transactions by funded accounts holding the operator role (one
 * per client), on the same anvil in the same run, each kind in the order API,
 * raw or raw, API (alternating, so neither side always goes first). Both sides run closed-loop with
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
import { createTestUser, signInAs, type TestSession } from "../../testing/auth.ts";
import { startProcessStack, type ProcessStack, type ServerProcess } from "../../testing/process-stack.ts";
import { repositories, wallets } from "../../db/schema/index.ts";
import { eq } from "drizzle-orm";
import { percentile, table } from "./lib.ts";

const COUNT = Number(process.argv[2] ?? 200);
const CONCURRENCY = Number(process.argv[3] ?? 20);
const SPLITS = Number(process.argv[4] ?? Math.max(CONCURRENCY, Math.round(COUNT / 4)));
/** Each boost: 1 XDC from the funder's wallet (the minimum), one funder per client. */
const BOOST_XDC = "1";
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
/** The raw side's split issues (measured, then warm-up). */
const RAW_SPLIT_ISSUE = 2_000_000n;
const RAW_SPLIT_WARM_ISSUE = 3_000_000n;
const SPLIT_XDC = "2";
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
  console.log(`Chain benchmark: ${COUNT} allocations + ${COUNT} boosts + ${COUNT} payouts + ${SPLITS} split payouts each way, ${CONCURRENCY} concurrent clients, ${navigator.hardwareConcurrency} cores`);
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
  // Split payouts: bob's pull requests co-authored by carol (both registered, so nothing is held), through the App's
  // webhooks. Boosts: one funder per client, each with their own custodial wallet. The App is installed, as on every
  // registered repository in production (each bounty change then also updates the bot's comment, which the runs
  // before issue 29 did not include): without it a boost asks GitHub anonymously whether the issue is open, and the
  // emulator's anonymous rate limit answers 502 after 60 of them.
  const bob = await stack.signUp("bob", "contributor");
  const carol = await stack.signUp("carol", "contributor");
  const installed = await github.controls.install({ account: REPO.owner, repositories: "all", sender: "alice" });
  await t.ctx.database.db.update(repositories).set({ installationId: (installed.installation as { id: number }).id }).where(eq(repositories.githubRepoId, REPO.id));
  const funders: TestSession[] = [];
  for (let k = 0; k < CONCURRENCY; k++) {
    const user = await createTestUser(t, { role: "contributor" });
    const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, user.id));
    await chain.fund(wallet!.address as Address, { xdc: String(Math.ceil(COUNT / CONCURRENCY) + 10) });
    funders.push(await signInAs(t, user));
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
  const splitIssues: number[] = [];
  for (let i = 0; i < SPLITS + WARMUP; i++) {
    const { issue } = await github.controls.openIssue({ repo: FULL_NAME, title: `Shared fix ${i}`, author: "erin" });
    splitIssues.push((issue as { number: number }).number);
  }
  const poolNeeded =
    Array.from({ length: COUNT }, (_, i) => parseEther(amountOf(i))).reduce((a, b) => a + b, 0n) + BigInt(WARMUP) * parseEther("1") + BigInt(SPLITS + WARMUP) * parseEther(SPLIT_XDC);
  const poolGross = ((poolNeeded * 10_000n) / 9_950n / 10n ** 18n + 2n) * 10n ** 18n; // covers the 0.5 % fee

  // The split's release window as short as the configuration allows and the release pass every 100 ms (defaults: a
  // 24 h window, a pass a minute): what is measured is the path from the merge's webhook to the payout, not the wait.
  server = await stack.spawn({ SPLIT_RELEASE_WINDOW_MS: "1", SPLIT_RELEASE_INTERVAL_MS: "100" });
  const postAs = async (session: TestSession, path: string, body: unknown, key: string) => {
    const res = await stack!.post(server!, session, path, body, key);
    const json = (await res.json()) as { txHash?: Hex | null; message?: string };
    if (res.status !== 200) throw new Error(`${res.status} ${json.message}`);
    return json;
  };
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
  const boostApi = async (issue: number, worker: number, key: string) => {
    const answer = await postAs(funders[worker]!, `/api/funding/issues/${FULL_NAME}/${issue}/boosts`, { currency: "XDC", amount: BOOST_XDC }, key);
    await confirmed({ status: "pending", transactionHash: answer.txHash! });
  };
  await warmUp("warm-up boosts via API", (i, worker) => boostApi(warmIssues[i]!, worker, `bench-warm-boost-${i}`));
  await warmUp("warm-up payouts via API", async (i) =>
    confirmed(await post(`/api/blockchain/distribute-bounty/${REPO.id}/${warmIssues[i]}`, { contributorAddress: contributors[i % CONTRIBUTORS], githubRepoFullName: FULL_NAME }, `bench-warm-pay-${i}`)),
  );

  const splitBounties = await closedLoop("split bounties via API (not measured)", SPLITS + WARMUP, CONCURRENCY, async (i) =>
    confirmed(await post(`/api/blockchain/allocate-bounty/${REPO.id}/${splitIssues[i]}`, { bountyAmount: SPLIT_XDC, currency: "XDC", githubRepoFullName: FULL_NAME }, `bench-split-allocate-${i}`)),
  );
  if (splitBounties.errors.length) throw new Error(splitBounties.errors[0]);
  // The pull requests (opened, not measured): the merge is what starts a split payout.
  const pulls: number[] = [];
  for (const issue of splitIssues) {
    const { pull_request } = await github.controls.openPullRequest({
      repo: FULL_NAME,
      author: "bob",
      title: `Fix #${issue}`,
      body: `Fixes #${issue}`,
      head: `bob:fix-${issue}`,
      commits: [{ message: `Fix #${issue}\n\nCo-authored-by: Carol <${carol.user.githubId}+carol@users.noreply.github.com>` }],
    });
    pulls.push((pull_request as { number: number }).number);
  }
  await github.controls.settle();
  const paidOnChain = async (repoId: bigint, issue: bigint) => {
    const [, , status] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getBounty", args: [repoId, issue] });
    return status === 2;
  };
  /** The merge (GitHub's webhook to the platform), then the chain watched until the bounty is paid. */
  const splitApi = async (k: number) => {
    await github.controls.mergePullRequest({ repo: FULL_NAME, number: pulls[k]!, actor: "alice" });
    const deadline = performance.now() + 60_000;
    while (!(await paidOnChain(BigInt(REPO.id), BigInt(splitIssues[k]!)))) {
      if (performance.now() > deadline) throw new Error(`split of #${splitIssues[k]} not paid within 60 s`);
      await Bun.sleep(50);
    }
  };
  await warmUp("warm-up split payouts via API", (i) => splitApi(SPLITS + i));

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
  const rawSend = async (worker: number, data: Hex, value?: bigint) => {
    // The outbox's headroom (api/chain/outbox-signing.ts): an estimate made while other clients' payouts mine is for
    // the state before them (e.g. the caps' checkpoint of this second updated in place, where the next second adds one).
    const estimate = await client.estimateGas({ account: raws[worker]!.account, to: rewards, data, value });
    const gas = (estimate * 12n) / 10n + 150_000n;
    const hash = await raws[worker]!.sendTransaction({ to: rewards, data, value, nonce: nonces[worker]!++, gasPrice, gas, type: "legacy" });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 60_000 });
    if (receipt.status !== "success") throw new Error(`reverted: ${hash}`);
  };
  const allocateRaw = (issue: bigint, amount: bigint) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "allocateBounty", args: [RAW_REPO_ID, issue, 0, amount] });
  const payRaw = (issue: bigint, to: Address) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payBounty", args: [RAW_REPO_ID, issue, to] });
  const boostRaw = (issue: bigint) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "boostXdc", args: [RAW_REPO_ID, issue, 0n, 50] });
  const splitHalf = parseEther(SPLIT_XDC) / 2n;
  const splitRaw = (issue: bigint) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payBountySplit", args: [RAW_REPO_ID, issue, [bob.wallet, carol.wallet], [splitHalf, splitHalf]] });
  await warmUp("warm-up allocations, raw", (i, worker) => rawSend(worker, allocateRaw(RAW_WARM_ISSUE + BigInt(i), parseEther("1"))));
  await warmUp("warm-up boosts, raw", (i, worker) => rawSend(worker, boostRaw(RAW_WARM_ISSUE + BigInt(i)), parseEther(BOOST_XDC)));
  await warmUp("warm-up payouts, raw", (i, worker) => rawSend(worker, payRaw(RAW_WARM_ISSUE + BigInt(i), contributors[i % CONTRIBUTORS]!)));
  const rawSplitBounties = await closedLoop("split bounties, raw (not measured)", SPLITS + WARMUP, CONCURRENCY, (i, worker) =>
    rawSend(worker, allocateRaw(i < SPLITS ? RAW_SPLIT_ISSUE + BigInt(i) : RAW_SPLIT_WARM_ISSUE + BigInt(i - SPLITS), parseEther(SPLIT_XDC))),
  );
  if (rawSplitBounties.errors.length) throw new Error(rawSplitBounties.errors[0]);
  await warmUp("warm-up split payouts, raw", (i, worker) => rawSend(worker, splitRaw(RAW_SPLIT_WARM_ISSUE + BigInt(i))));
  console.log(`seeded and warmed up in ${((performance.now() - startedAt) / 1000).toFixed(1)} s; measuring...`);

  // ---- measured, in the order API, raw, raw, API: anvil slows down as its chain grows (a side that always went
  // first would be favoured), and this order puts both sides' phases the same distance from the middle. ----
  const apiAllocate = await closedLoop("allocate-bounty via API + outbox", COUNT, CONCURRENCY, async (i) =>
    confirmed(await post(`/api/blockchain/allocate-bounty/${REPO.id}/${issues[i]}`, { bountyAmount: amountOf(i), currency: "XDC", githubRepoFullName: FULL_NAME }, `bench-allocate-${i}`)),
  );
  const rawAllocate = await closedLoop("allocateBounty, raw viem", COUNT, CONCURRENCY, (i, worker) => rawSend(worker, allocateRaw(BigInt(i + 1), parseEther(amountOf(i)))));
  const rawBoost = await closedLoop("boostXdc, raw viem", COUNT, CONCURRENCY, (i, worker) => rawSend(worker, boostRaw(BigInt(i + 1)), parseEther(BOOST_XDC)));
  const apiBoost = await closedLoop("boost via API + outbox", COUNT, CONCURRENCY, (i, worker) => boostApi(issues[i]!, worker, `bench-boost-${i}`));
  const apiSplit = await closedLoop("split payout: merge -> webhook -> release", SPLITS, CONCURRENCY, (i) => splitApi(i));
  const rawSplit = await closedLoop("payBountySplit, raw viem", SPLITS, CONCURRENCY, (i, worker) => rawSend(worker, splitRaw(RAW_SPLIT_ISSUE + BigInt(i))));
  const rawPay = await closedLoop("payBounty, raw viem", COUNT, CONCURRENCY, (i, worker) => rawSend(worker, payRaw(BigInt(i + 1), contributors[i % CONTRIBUTORS]!)));
  const apiPay = await closedLoop("distribute-bounty via API + outbox", COUNT, CONCURRENCY, async (i) =>
    confirmed(await post(`/api/blockchain/distribute-bounty/${REPO.id}/${issues[i]}`, { contributorAddress: contributors[i % CONTRIBUTORS], githubRepoFullName: FULL_NAME }, `bench-pay-${i}`)),
  );
  const phases: Phase[] = [apiAllocate, rawAllocate, apiBoost, rawBoost, apiSplit, rawSplit, apiPay, rawPay];

  // ---- check: every bounty of both sides is paid (status 2) ----
  let unpaid = 0;
  for (let i = 0; i < COUNT; i++) {
    const [, , apiStatus] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getBounty", args: [BigInt(REPO.id), BigInt(issues[i]!)] });
    const [, , rawStatus] = await client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getBounty", args: [RAW_REPO_ID, BigInt(i + 1)] });
    if (apiStatus !== 2) unpaid++;
    if (rawStatus !== 2) unpaid++;
  }
  for (let i = 0; i < SPLITS; i++) {
    if (!(await paidOnChain(BigInt(REPO.id), BigInt(splitIssues[i]!)))) unpaid++;
    if (!(await paidOnChain(RAW_REPO_ID, RAW_SPLIT_ISSUE + BigInt(i)))) unpaid++;
  }

  const perSec = (p: Phase) => (p.latenciesMs.length / p.wallMs) * 1000;
  const rows: (string | number)[][] = [["phase", "ops", "wall s", "ops/s", "p50 ms", "p99 ms", "errors"]];
  for (const p of phases) {
    rows.push([p.label, p.latenciesMs.length, (p.wallMs / 1000).toFixed(2), perSec(p).toFixed(1), percentile(p.latenciesMs, 50).toFixed(1), percentile(p.latenciesMs, 99).toFixed(1), p.errors.length]);
  }
  const combined = (...ps: Phase[]) => (ps.reduce((n, p) => n + p.latenciesMs.length, 0) / ps.reduce((ms, p) => ms + p.wallMs, 0)) * 1000;
  console.log(`\n${table(rows)}\n`);
  console.log(`ratio API / raw, allocations: ${(perSec(apiAllocate) / perSec(rawAllocate)).toFixed(2)}`);
  console.log(`ratio API / raw, boosts:      ${(perSec(apiBoost) / perSec(rawBoost)).toFixed(2)}`);
  console.log(`ratio API / raw, splits:      ${(perSec(apiSplit) / perSec(rawSplit)).toFixed(2)}`);
  console.log(`ratio API / raw, payouts:     ${(perSec(apiPay) / perSec(rawPay)).toFixed(2)}`);
  console.log(`ratio API / raw, allocations + payouts: ${(combined(apiAllocate, apiPay) / combined(rawAllocate, rawPay)).toFixed(2)}`);
  console.log(`ratio API / raw, the whole mix:         ${(combined(apiAllocate, apiBoost, apiSplit, apiPay) / combined(rawAllocate, rawBoost, rawSplit, rawPay)).toFixed(2)}  (target >= 0.5)`);
  console.log(`bounties left unpaid: ${unpaid}; total run ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
  for (const p of phases) for (const e of p.errors.slice(0, 5)) console.log(`  error in ${p.label}: ${e}`);
  if (unpaid > 0 || phases.some((p) => p.errors.length > 0)) process.exitCode = 1;
} finally {
  await server?.stop();
  await stack?.stop();
}
