/**
 * RepoRewards v3 (issue 29), function by function and revert by revert, on a real anvil: boosts (community
 * bounties, expiries, withdrawals, refunds), the pool's share and its cancellation, split payouts, tips (direct
 * and escrowed), the payout delay for young money and new addresses (with the drain of issue 29 item 6), the
 * extension's guard and the v2 import's admin rules. Deployed with the production payout delay (1 hour).
 * Every test starts from the same chain state (evm_snapshot / evm_revert).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  getContract,
  http,
  maxUint256,
  parseEther,
  parseEventLogs,
  type Account,
  type Address,
  type Hash,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { anvil as anvilChain } from "viem/chains";
import { RepoRewardsAbi, RepoRewardsExtensionAbi, TestUsdcAbi } from "./artifacts/index.ts";
import { deployContracts, DEFAULT_NEW_RECIPIENT_THRESHOLDS } from "../scripts/deploy-contracts.ts";
import { anvilAccounts, startAnvil, type Anvil } from "../scripts/lib/anvil.ts";

const XDC = 0;
const ROXN = 1;
const [NONE, OPEN, PAID, CANCELLED, QUEUED] = [0, 1, 2, 3, 4];
const [WITHDRAWN, EXPIRED, REFUND_CANCELLED] = [0, 1, 2];
const REPO = 123_456_789n;
/** A repository nobody registered: community bounties use its GitHub id. */
const UNREGISTERED = 555_000_111n;
const ISSUE = 42n;
const HOUR = 3600;
const DAY = 24 * HOUR;
const ADMIN_DELAY = 2 * DAY;
const FEE_BPS = 50n;
const net = (gross: bigint) => gross - (gross * FEE_BPS) / 10_000n;

const [admin, operator, feeCollector, manager, outsider, contributor, funderA, funderB, guardian, coauthor] = anvilAccounts(10) as [
  Account, Account, Account, Account, Account, Account, Account, Account, Account, Account,
];

let chain: Anvil;
let dataDir: string;
let contracts: { roxn: Address; usdc: Address; repoRewards: Address; repoRewardsExtension: Address };
// Several transactions and clock moves per test: under load one took over the suite's 30 s, and bun then killed this
// file's anvil for every later test. The budget of a chain test instead.
setDefaultTimeout(120_000);
let snapshot: Hex;
let clients: ReturnType<typeof makeClients>;

function makeClients(rpcUrl: string) {
  const transport = http(rpcUrl);
  return {
    publicClient: createPublicClient({ chain: anvilChain, transport, pollingInterval: 50 }),
    testClient: createTestClient({ chain: anvilChain, mode: "anvil", transport }),
    walletOf: (account: Account) => createWalletClient({ account, chain: anvilChain, transport }),
  };
}

function rewardsAs(account: Account) {
  const { publicClient, walletOf } = clients;
  return getContract({ address: contracts.repoRewards, abi: RepoRewardsAbi, client: { public: publicClient, wallet: walletOf(account) } });
}

function roxnAs(account: Account) {
  const { publicClient, walletOf } = clients;
  return getContract({ address: contracts.roxn, abi: TestUsdcAbi, client: { public: publicClient, wallet: walletOf(account) } });
}

async function mined(hash: Hash | Promise<Hash>): Promise<TransactionReceipt> {
  const receipt = await clients.publicClient.waitForTransactionReceipt({ hash: await hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

function eventArgs(receipt: TransactionReceipt, eventName: string) {
  return parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs }).filter((log) => log.eventName === eventName).map((log) => log.args);
}

async function expectRevert(action: Promise<unknown>, errorName: string, args?: readonly unknown[]) {
  const error = await action.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(BaseError);
  const revert = ((error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null)?.data;
  expect(revert?.errorName).toBe(errorName);
  if (args) expect(revert?.args as unknown).toEqual(args);
}

async function passTime(seconds: number): Promise<void> {
  await clients.testClient.increaseTime({ seconds });
  await clients.testClient.mine({ blocks: 1 });
}

async function now(): Promise<bigint> {
  return (await clients.publicClient.getBlock()).timestamp;
}

async function xdcOf(address: Address): Promise<bigint> {
  return clients.publicClient.getBalance({ address });
}

/** A fresh address this contract never paid (the thief's). */
function freshAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

async function fundPool(amount: bigint, repoId = REPO): Promise<void> {
  await mined(rewardsAs(manager).write.fundPoolXdc([repoId, 500], { value: amount }));
}

async function boost(by: Account, amount: bigint, options: { repoId?: bigint; issue?: bigint; expiresAt?: bigint } = {}) {
  return mined(rewardsAs(by).write.boostXdc([options.repoId ?? REPO, options.issue ?? ISSUE, options.expiresAt ?? 0n, 500], { value: amount }));
}

async function details(repoId = REPO, issue = ISSUE) {
  return rewardsAs(admin).read.getBountyDetails([repoId, issue]);
}

async function owedXdc(): Promise<bigint> {
  return rewardsAs(admin).read.owed([XDC]);
}

/** The escrow holds exactly what it owes (nothing forced in by these tests). */
async function expectHeldIsOwed(): Promise<void> {
  expect(await xdcOf(contracts.repoRewards)).toBe(await owedXdc());
}

async function timelocked(call: Hex): Promise<TransactionReceipt> {
  await mined(rewardsAs(admin).write.schedule([call]));
  await passTime(ADMIN_DELAY);
  return mined(clients.walletOf(admin).sendTransaction({ to: contracts.repoRewards, data: call }));
}

beforeAll(async () => {
  chain = await startAnvil({ balanceEther: 10_000_000 });
  clients = makeClients(chain.rpcUrl);
  dataDir = mkdtempSync(join(tmpdir(), "issuepool-rewards-v3-"));
  contracts = await deployContracts({
    rpcUrl: chain.rpcUrl,
    chain: anvilChain,
    deployer: admin,
    admin: admin.address,
    guardian: guardian.address,
    operator: operator.address,
    feeCollector: feeCollector.address,
    payoutDelaySeconds: HOUR,
    deploymentsFile: join(dataDir, "deployments.json"),
  });
  await mined(rewardsAs(operator).write.addPoolManager([REPO, manager.address]));
  for (const account of [funderA, funderB, manager]) {
    await mined(roxnAs(admin).write.mint([account.address, 10n ** 24n]));
    await mined(roxnAs(account).write.approve([contracts.repoRewards, maxUint256]));
  }
}, 120_000);

afterAll(async () => {
  await chain?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  snapshot = await clients.testClient.snapshot();
});

afterEach(async () => {
  await clients.testClient.revert({ id: snapshot });
});

describe("deployment", () => {
  test("the payout delay, the new-recipient thresholds and the extension are set; the extension refuses direct calls", async () => {
    const rewards = rewardsAs(outsider);
    expect(await rewards.read.payoutDelay()).toBe(BigInt(HOUR));
    expect(await rewards.read.newRecipientThreshold([XDC])).toBe(DEFAULT_NEW_RECIPIENT_THRESHOLDS.XDC);
    expect(await rewards.read.extension()).toBe(contracts.repoRewardsExtension);
    expect(await rewards.read.importOpen()).toBe(true);
    const extension = getContract({
      address: contracts.repoRewardsExtension,
      abi: RepoRewardsExtensionAbi,
      client: { public: clients.publicClient, wallet: clients.walletOf(funderA) },
    });
    await expectRevert(extension.write.boostXdc([REPO, ISSUE, 0n, 500], { value: parseEther("5") }), "NotDelegated");
    await expectRevert(extension.write.tipXdc([contributor.address, 500], { value: parseEther("5") }), "NotDelegated");
  });

  test("the admin changes the payout delay and the thresholds only through the timelock, within bounds", async () => {
    await expectRevert(rewardsAs(admin).write.setPayoutDelay([60n]), "NotScheduled");
    await expectRevert(rewardsAs(operator).write.setPayoutDelay([60n]), "AccessControlUnauthorizedAccount");
    const set = encodeFunctionData({ abi: RepoRewardsAbi, functionName: "setPayoutDelay", args: [7200n] });
    expect(eventArgs(await timelocked(set), "PayoutDelayChanged")).toEqual([{ oldDelay: BigInt(HOUR), newDelay: 7200n }]);
    const tooLong = encodeFunctionData({ abi: RepoRewardsAbi, functionName: "setPayoutDelay", args: [BigInt(8 * DAY)] });
    await mined(rewardsAs(admin).write.schedule([tooLong]));
    await passTime(ADMIN_DELAY);
    await expectRevert(rewardsAs(admin).write.setPayoutDelay([BigInt(8 * DAY)]), "DelayOutOfBounds", [BigInt(8 * DAY)]);
    const threshold = encodeFunctionData({ abi: RepoRewardsAbi, functionName: "setNewRecipientThreshold", args: [XDC, 5n] });
    expect(eventArgs(await timelocked(threshold), "NewRecipientThresholdChanged")).toEqual([{ currency: XDC, threshold: 5n }]);
    expect(await rewardsAs(admin).read.newRecipientThreshold([XDC])).toBe(5n);
  });
});

describe("boosts", () => {
  test("the first boost on an unregistered repository's issue creates a community bounty; the fee goes to the collector", async () => {
    const feeBefore = await xdcOf(feeCollector.address);
    const expiresAt = (await now()) + BigInt(30 * DAY);
    const receipt = await boost(funderA, parseEther("10"), { repoId: UNREGISTERED, expiresAt });
    expect(eventArgs(receipt, "BountyBoosted")).toEqual([
      { repoId: UNREGISTERED, issueNumber: ISSUE, currency: XDC, funder: funderA.address, gross: parseEther("10"), fee: parseEther("0.05"), net: parseEther("9.95"), expiresAt },
    ]);
    expect(await xdcOf(feeCollector.address)).toBe(feeBefore + parseEther("0.05"));
    const bounty = await details(UNREGISTERED);
    expect(bounty).toMatchObject({ currency: XDC, status: OPEN, amount: parseEther("9.95"), poolShare: 0n, boosted: parseEther("9.95"), funderCount: 1n });
    expect(await rewardsAs(admin).read.getBounty([UNREGISTERED, ISSUE])).toEqual([XDC, parseEther("9.95"), OPEN, "0x0000000000000000000000000000000000000000"]);
    expect(await rewardsAs(admin).read.funders([UNREGISTERED, ISSUE])).toEqual([funderA.address]);
    expect(await rewardsAs(admin).read.getBoost([UNREGISTERED, ISSUE, funderA.address])).toEqual([parseEther("9.95"), expiresAt, 0n]);
    await expectHeldIsOwed();
  });

  test("boosts add to the pool's share; each funder's share is recorded; a later boost keeps or extends its expiry", async () => {
    await fundPool(parseEther("100"));
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("20")]));
    const t = await now();
    await boost(funderA, parseEther("10"), { expiresAt: t + BigInt(DAY) });
    await boost(funderB, parseEther("4"));
    await boost(funderA, parseEther("2"));
    await expectRevert(rewardsAs(funderA).write.boostXdc([REPO, ISSUE, t + 10n, 500], { value: parseEther("2") }), "ExpiryInvalid");
    await expectRevert(rewardsAs(funderB).write.boostXdc([REPO, ISSUE, t + BigInt(2 * DAY), 500], { value: parseEther("2") }), "ExpiryInvalid");
    await boost(funderA, parseEther("2"), { expiresAt: t + BigInt(2 * DAY) });
    const bounty = await details();
    expect(bounty.poolShare).toBe(parseEther("20"));
    expect(bounty.boosted).toBe(net(parseEther("10")) + net(parseEther("4")) + 2n * net(parseEther("2")));
    expect(bounty.amount).toBe(bounty.poolShare + bounty.boosted);
    expect(await rewardsAs(admin).read.getBoost([REPO, ISSUE, funderA.address])).toEqual([net(parseEther("10")) + 2n * net(parseEther("2")), t + BigInt(2 * DAY), 0n]);
    await expectHeldIsOwed();
  });

  test("a boost is refused below the minimum, above maxFeeBps, in another currency, with a past expiry, and while paused", async () => {
    await expectRevert(rewardsAs(funderA).write.boostXdc([REPO, ISSUE, 0n, 500], { value: parseEther("0.99") }), "BelowMinimum");
    await expectRevert(rewardsAs(funderA).write.boostXdc([REPO, ISSUE, 0n, 49], { value: parseEther("1") }), "FeeTooHigh", [50, 49]);
    await expectRevert(rewardsAs(funderA).write.boostXdc([REPO, ISSUE, (await now()) - 1n, 500], { value: parseEther("1") }), "ExpiryInvalid");
    await boost(funderA, parseEther("1"));
    await expectRevert(rewardsAs(funderB).write.boostToken([REPO, ISSUE, ROXN, 10n ** 18n, 0n, 500]), "CurrencyMismatch", [XDC, ROXN]);
    await expectRevert(rewardsAs(funderB).write.boostToken([REPO, ISSUE + 1n, XDC, 10n ** 18n, 0n, 500]), "InvalidCurrency");
    await expectRevert(rewardsAs(funderB).write.boostToken([REPO, ISSUE + 1n, ROXN, 10n ** 14n - 1n, 0n, 500]), "BelowMinimum");
    await mined(rewardsAs(guardian).write.pause());
    await expectRevert(rewardsAs(funderA).write.boostXdc([REPO, ISSUE, 0n, 500], { value: parseEther("1") }), "EnforcedPause");
  });

  test("a ROXN boost pulls the net into escrow and the fee to the collector", async () => {
    const before = await roxnAs(admin).read.balanceOf([funderB.address]);
    await mined(rewardsAs(funderB).write.boostToken([REPO, ISSUE, ROXN, 10n ** 18n, 0n, 500]));
    expect(await roxnAs(admin).read.balanceOf([funderB.address])).toBe(before - 10n ** 18n);
    expect(await roxnAs(admin).read.balanceOf([contracts.repoRewards])).toBe(net(10n ** 18n));
    expect(await roxnAs(admin).read.balanceOf([feeCollector.address])).toBe((10n ** 18n * FEE_BPS) / 10_000n);
    expect(await rewardsAs(admin).read.owed([ROXN])).toBe(net(10n ** 18n));
  });

  test("a funder withdraws their own boost at once while nobody claimed; the last one out ends a community bounty", async () => {
    await boost(funderA, parseEther("10"));
    await boost(funderB, parseEther("5"));
    await expectRevert(rewardsAs(outsider).write.withdrawBoost([REPO, ISSUE]), "NoShare");
    const before = await xdcOf(funderA.address);
    const receipt = await mined(rewardsAs(funderA).write.withdrawBoost([REPO, ISSUE]));
    const gas = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(await xdcOf(funderA.address)).toBe(before - gas + net(parseEther("10")));
    expect(eventArgs(receipt, "BoostRefunded")).toEqual([
      { repoId: REPO, issueNumber: ISSUE, currency: XDC, funder: funderA.address, amount: net(parseEther("10")), reason: WITHDRAWN, by: funderA.address },
    ]);
    await expectRevert(rewardsAs(funderA).write.withdrawBoost([REPO, ISSUE]), "NoShare");
    // Boosting again after a refund: one share, listed once.
    await boost(funderA, parseEther("2"));
    expect(await rewardsAs(admin).read.funders([REPO, ISSUE])).toEqual([funderA.address, funderB.address]);
    await mined(rewardsAs(funderA).write.withdrawBoost([REPO, ISSUE]));
    const last = await mined(rewardsAs(funderB).write.withdrawBoost([REPO, ISSUE]));
    expect(eventArgs(last, "BountyCancelled")).toEqual([{ repoId: REPO, issueNumber: ISSUE, currency: XDC, amount: 0n, by: funderB.address }]);
    expect((await details()).status).toBe(CANCELLED);
    expect(await owedXdc()).toBe(0n);
    // A new round starts clean.
    await boost(funderB, parseEther("3"));
    expect(await details()).toMatchObject({ status: OPEN, round: 1n, boosted: net(parseEther("3")), funderCount: 1n });
    await expectHeldIsOwed();
  });

  test("after a claim, a funder's withdrawal is requested on-chain and runs CLAIM_CANCEL_DELAY later", async () => {
    await boost(funderA, parseEther("10"));
    await mined(rewardsAs(operator).write.claimBounty([REPO, ISSUE, contributor.address]));
    const request = await mined(rewardsAs(funderA).write.withdrawBoost([REPO, ISSUE]));
    const [{ readyAt }] = eventArgs(request, "BoostWithdrawRequested") as unknown as [{ readyAt: bigint }];
    expect(readyAt).toBe((await now()) + BigInt(3 * DAY));
    await expectRevert(rewardsAs(funderA).write.withdrawBoost([REPO, ISSUE]), "NotReady", [readyAt]);
    await passTime(3 * DAY);
    await mined(rewardsAs(funderA).write.withdrawBoost([REPO, ISSUE]));
    expect(await rewardsAs(admin).read.getBoost([REPO, ISSUE, funderA.address])).toEqual([0n, 0n, 0n]);
    await expectHeldIsOwed();
  });

  test("past its expiry an unpaid funder's share is refunded exactly by anyone; not before, not once paid", async () => {
    await fundPool(parseEther("100"));
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("20")]));
    const expiresAt = (await now()) + BigInt(DAY);
    await boost(funderA, parseEther("10"), { expiresAt });
    await boost(funderB, parseEther("10"));
    await expectRevert(rewardsAs(outsider).write.refundBoost([REPO, ISSUE, funderA.address]), "NotRefundable");
    await passTime(DAY);
    const before = await xdcOf(funderA.address);
    const receipt = await mined(rewardsAs(outsider).write.refundBoost([REPO, ISSUE, funderA.address]));
    expect(await xdcOf(funderA.address)).toBe(before + net(parseEther("10")));
    expect((eventArgs(receipt, "BoostRefunded")[0] as { reason: number }).reason).toBe(EXPIRED);
    await expectRevert(rewardsAs(outsider).write.refundBoost([REPO, ISSUE, funderB.address]), "NotRefundable");
    expect(await details()).toMatchObject({ status: OPEN, amount: parseEther("20") + net(parseEther("10")), boosted: net(parseEther("10")) });
    // Paid: nothing is refundable any more.
    const expiresB = (await now()) + BigInt(HOUR);
    await boost(funderA, parseEther("1"), { expiresAt: expiresB });
    await passTime(2 * HOUR);
    await mined(rewardsAs(operator).write.payBounty([REPO, ISSUE, contributor.address]));
    expect((await details()).status).toBe(PAID);
    await expectRevert(rewardsAs(outsider).write.refundBoost([REPO, ISSUE, funderA.address]), "NotRefundable");
    await expectHeldIsOwed();
  });

  test("closing as not planned (cancelBounty) returns the pool's share to the pool and every funder's share exactly", async () => {
    await fundPool(parseEther("100"));
    const poolBefore = (await rewardsAs(admin).read.getPool([REPO]))[0];
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("20")]));
    await boost(funderA, parseEther("10"));
    await boost(funderB, parseEther("7"));
    const cancel = await mined(rewardsAs(operator).write.cancelBounty([REPO, ISSUE]));
    expect(eventArgs(cancel, "BountyCancelled")).toEqual([
      { repoId: REPO, issueNumber: ISSUE, currency: XDC, amount: parseEther("20") + net(parseEther("10")) + net(parseEther("7")), by: operator.address },
    ]);
    expect((await rewardsAs(admin).read.getPool([REPO]))[0]).toBe(poolBefore);
    // A new bounty waits for the refunds.
    await expectRevert(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("5")]), "BoostsOutstanding");
    const [a, b] = [await xdcOf(funderA.address), await xdcOf(funderB.address)];
    const refunds = await mined(rewardsAs(outsider).write.refundBoosts([REPO, ISSUE, [funderA.address, funderB.address]]));
    expect(eventArgs(refunds, "BoostRefunded").map((e) => (e as { reason: number }).reason)).toEqual([REFUND_CANCELLED, REFUND_CANCELLED]);
    expect(await xdcOf(funderA.address)).toBe(a + net(parseEther("10")));
    expect(await xdcOf(funderB.address)).toBe(b + net(parseEther("7")));
    await expectRevert(rewardsAs(outsider).write.refundBoost([REPO, ISSUE, funderA.address]), "NoShare");
    expect(await owedXdc()).toBe(poolBefore);
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("5")]));
    expect(await details()).toMatchObject({ round: 1n, poolShare: parseEther("5"), boosted: 0n, funderCount: 0n });
    await expectHeldIsOwed();
  });

  test("cancelPoolShare takes only the pool's share back; claimed, it waits its visible delay", async () => {
    await fundPool(parseEther("100"));
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("20")]));
    await boost(funderA, parseEther("10"));
    await mined(rewardsAs(operator).write.claimBounty([REPO, ISSUE, contributor.address]));
    await expectRevert(rewardsAs(outsider).write.cancelPoolShare([REPO, ISSUE]), "NotPoolManager");
    const request = await mined(rewardsAs(manager).write.cancelPoolShare([REPO, ISSUE]));
    expect(eventArgs(request, "BountyCancelRequested")).toHaveLength(1);
    await expectRevert(rewardsAs(manager).write.cancelPoolShare([REPO, ISSUE]), "NotReady");
    await passTime(3 * DAY);
    const done = await mined(rewardsAs(manager).write.cancelPoolShare([REPO, ISSUE]));
    expect(eventArgs(done, "PoolShareCancelled")).toEqual([{ repoId: REPO, issueNumber: ISSUE, currency: XDC, amount: parseEther("20"), by: manager.address }]);
    expect(await details()).toMatchObject({ status: OPEN, poolShare: 0n, amount: net(parseEther("10")) });
    await expectRevert(rewardsAs(manager).write.cancelPoolShare([REPO, ISSUE]), "ZeroAmount");
    // The pool may put a share on it again (the community bounty has none).
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("3")]));
    await expectRevert(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("3")]), "BountyExists");
    await expectHeldIsOwed();
  });
});

describe("the payout delay (issue 29, item 6)", () => {
  test("the drain: with the operator key, the whole pool allocated to an unused issue and paid to a fresh address in one burst moves nothing; the guardian cancels it", async () => {
    await fundPool(parseEther("424.623115577889447236")); // 422.5 XDC net, as on the dev stack
    const whole = (await rewardsAs(admin).read.getPool([REPO]))[0];
    const thief = freshAddress();
    const held = await xdcOf(contracts.repoRewards);
    // Both transactions in the same block: no watcher, no poll, no waiting.
    await clients.testClient.setAutomine(false);
    const allocate = await rewardsAs(operator).write.allocateBounty([REPO, 9_999n, XDC, whole]);
    const pay = await rewardsAs(operator).write.payBounty([REPO, 9_999n, thief]);
    await clients.testClient.mine({ blocks: 1 });
    await clients.testClient.setAutomine(true);
    await mined(allocate);
    const receipt = await mined(pay);
    expect(await xdcOf(thief)).toBe(0n);
    expect(await xdcOf(contracts.repoRewards)).toBe(held);
    const [queued] = eventArgs(receipt, "OutflowQueued") as unknown as [{ id: bigint; readyAt: bigint; amount: bigint }];
    expect(queued.amount).toBe(whole);
    expect(queued.readyAt).toBe((await now()) + BigInt(HOUR));
    // Within the window nobody can run it; the guardian pauses and cancels it.
    await passTime(HOUR - 60);
    await expectRevert(rewardsAs(outsider).write.executeOutflow([queued.id]), "NotReady");
    await mined(rewardsAs(guardian).write.pause());
    await mined(rewardsAs(guardian).write.cancelOutflow([queued.id]));
    expect((await details(REPO, 9_999n)).status).toBe(OPEN);
    expect(await xdcOf(thief)).toBe(0n);
    expect(await xdcOf(contracts.repoRewards)).toBe(held);
  });

  test("the drain with patience: an old bounty paid to a fresh address above the threshold still waits the window", async () => {
    await fundPool(parseEther("500"));
    await mined(rewardsAs(operator).write.allocateBounty([REPO, 9_999n, XDC, parseEther("400")]));
    await passTime(2 * HOUR);
    const thief = freshAddress();
    const receipt = await mined(rewardsAs(operator).write.payBounty([REPO, 9_999n, thief]));
    expect(eventArgs(receipt, "OutflowQueued")).toHaveLength(1);
    expect(await xdcOf(thief)).toBe(0n);
    expect((await details(REPO, 9_999n)).status).toBe(QUEUED);
  });

  test("young money pays through the queue after the window; old money to a known or small recipient pays at once", async () => {
    await fundPool(parseEther("500"));
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("200")]));
    const queued = await mined(rewardsAs(operator).write.payBounty([REPO, ISSUE, contributor.address]));
    const [{ id }] = eventArgs(queued, "OutflowQueued") as unknown as [{ id: bigint }];
    await expectRevert(rewardsAs(outsider).write.executeOutflow([id]), "NotReady");
    await passTime(HOUR);
    const before = await xdcOf(contributor.address);
    const run = await mined(rewardsAs(outsider).write.executeOutflow([id]));
    expect(eventArgs(run, "BountyPaid")).toHaveLength(1);
    expect(await xdcOf(contributor.address)).toBe(before + parseEther("200"));
    expect(await rewardsAs(admin).read.hasBeenPaid([contributor.address])).toBe(true);
    // Paid before: the next old bounty pays at once, even above the threshold.
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE + 1n, XDC, parseEther("150")]));
    await passTime(HOUR);
    const atOnce = await mined(rewardsAs(operator).write.payBounty([REPO, ISSUE + 1n, contributor.address]));
    expect(eventArgs(atOnce, "BountyPaid")).toHaveLength(1);
    // A new address at or below the threshold: at once too, once the money is old.
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE + 2n, XDC, parseEther("100")]));
    await passTime(HOUR);
    const small = freshAddress();
    await mined(rewardsAs(operator).write.payBounty([REPO, ISSUE + 2n, small]));
    expect(await xdcOf(small)).toBe(parseEther("100"));
    await expectHeldIsOwed();
  });

  test("a boost makes the bounty young again: a merge right after it pays through the queue", async () => {
    await fundPool(parseEther("50"));
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("10")]));
    await passTime(2 * HOUR);
    await boost(funderA, parseEther("2"));
    const receipt = await mined(rewardsAs(operator).write.payBounty([REPO, ISSUE, contributor.address]));
    expect(eventArgs(receipt, "OutflowQueued")).toHaveLength(1);
    expect((await details()).payableAt).toBe((eventArgs(receipt, "OutflowQueued")[0] as { readyAt: bigint }).readyAt);
  });
});

describe("split payouts", () => {
  async function oldBounty(amount: bigint): Promise<void> {
    await fundPool(amount * 2n);
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, amount]));
    await passTime(HOUR);
  }

  test("pays each recipient their share, summing exactly to the bounty, once", async () => {
    await oldBounty(parseEther("10"));
    await boost(funderA, parseEther("2"));
    await passTime(HOUR);
    const total = (await details()).amount;
    const shares = [total / 3n + (total % 3n), total / 3n, total / 3n];
    const recipients = [contributor.address, coauthor.address, funderB.address];
    const before = await Promise.all(recipients.map(xdcOf));
    const receipt = await mined(rewardsAs(operator).write.payBountySplit([REPO, ISSUE, recipients, shares]));
    expect(eventArgs(receipt, "BountySharePaid").map((e) => (e as { amount: bigint }).amount)).toEqual(shares);
    expect(eventArgs(receipt, "BountyPaid")).toEqual([
      { repoId: REPO, issueNumber: ISSUE, currency: XDC, amount: total, contributor: contributor.address, by: operator.address },
    ]);
    const after = await Promise.all(recipients.map(xdcOf));
    expect(after.map((balance, i) => balance - before[i]!)).toEqual(shares);
    await expectRevert(rewardsAs(operator).write.payBountySplit([REPO, ISSUE, recipients, shares]), "BountyNotOpen");
    await expectRevert(rewardsAs(operator).write.payBounty([REPO, ISSUE, contributor.address]), "BountyNotOpen");
    await expectHeldIsOwed();
  });

  test("refuses shares that do not sum to the bounty, duplicates, zero shares, mismatched lengths, too many recipients", async () => {
    await oldBounty(parseEther("10"));
    const rewards = rewardsAs(operator);
    const [a, b] = [contributor.address, coauthor.address];
    await expectRevert(rewards.write.payBountySplit([REPO, ISSUE, [a, b], [parseEther("5"), parseEther("4")]]), "SplitInvalid", [parseEther("10"), parseEther("9")]);
    await expectRevert(rewards.write.payBountySplit([REPO, ISSUE, [a, b], [parseEther("5"), parseEther("6")]]), "SplitInvalid");
    await expectRevert(rewards.write.payBountySplit([REPO, ISSUE, [a, a], [parseEther("5"), parseEther("5")]]), "DuplicateRecipient", [a]);
    await expectRevert(rewards.write.payBountySplit([REPO, ISSUE, [a, b], [parseEther("10"), 0n]]), "ZeroAmount");
    await expectRevert(rewards.write.payBountySplit([REPO, ISSUE, [a, b], [parseEther("10")]]), "SplitInvalid");
    await expectRevert(rewards.write.payBountySplit([REPO, ISSUE, [], []]), "SplitInvalid");
    const many = Array.from({ length: 21 }, () => freshAddress());
    await expectRevert(rewards.write.payBountySplit([REPO, ISSUE, many, many.map(() => 1n)]), "SplitInvalid");
    await expectRevert(rewards.write.payBountySplit([REPO, ISSUE, [a, "0x0000000000000000000000000000000000000000"], [parseEther("5"), parseEther("5")]]), "ZeroAddress");
    await expectRevert(rewardsAs(outsider).write.payBountySplit([REPO, ISSUE, [a, b], [parseEther("5"), parseEther("5")]]), "NotPoolManager");
  });

  test("a manager splits a claimed bounty only among claimants", async () => {
    await oldBounty(parseEther("10"));
    await mined(rewardsAs(operator).write.claimBounty([REPO, ISSUE, contributor.address]));
    const split = [[contributor.address, coauthor.address], [parseEther("5"), parseEther("5")]] as const;
    await expectRevert(rewardsAs(manager).write.payBountySplit([REPO, ISSUE, ...split]), "NotClaimant", [REPO, ISSUE, coauthor.address]);
    await mined(rewardsAs(operator).write.claimBounty([REPO, ISSUE, coauthor.address]));
    await mined(rewardsAs(manager).write.payBountySplit([REPO, ISSUE, ...split]));
  });

  test("a split with a new recipient above the threshold is queued as a whole, runs once, or the guardian reopens the bounty", async () => {
    await oldBounty(parseEther("300"));
    const fresh = freshAddress();
    const shares = [parseEther("150"), parseEther("150")];
    const receipt = await mined(rewardsAs(operator).write.payBountySplit([REPO, ISSUE, [contributor.address, fresh], shares]));
    const [{ id }] = eventArgs(receipt, "OutflowQueued") as unknown as [{ id: bigint }];
    expect(await rewardsAs(admin).read.getOutflowShares([id])).toEqual([[contributor.address, fresh], shares]);
    expect((await rewardsAs(admin).read.getOutflow([id])).kind).toBe(2);
    await mined(rewardsAs(guardian).write.cancelOutflow([id]));
    expect((await details()).status).toBe(OPEN);
    expect(await rewardsAs(admin).read.getOutflowShares([id])).toEqual([[], []]);
    const again = await mined(rewardsAs(operator).write.payBountySplit([REPO, ISSUE, [contributor.address, fresh], shares]));
    const [{ id: second }] = eventArgs(again, "OutflowQueued") as unknown as [{ id: bigint }];
    await passTime(HOUR);
    const before = await xdcOf(contributor.address);
    const run = await mined(rewardsAs(outsider).write.executeOutflow([second]));
    expect(eventArgs(run, "BountySharePaid")).toHaveLength(2);
    expect(await xdcOf(fresh)).toBe(parseEther("150"));
    expect(await xdcOf(contributor.address)).toBe(before + parseEther("150"));
    await expectRevert(rewardsAs(outsider).write.executeOutflow([second]), "UnknownOutflow");
    await expectHeldIsOwed();
  });
});

describe("split payouts with held shares (a co-author without a wallet)", () => {
  const CAROL = 777n;
  const TIP_HELD = 1;
  const TIP_QUEUED = 2;
  const TIP_PAID = 3;
  const TIP_REFUNDED = 4;

  async function oldBounty(amount: bigint): Promise<void> {
    await fundPool(amount * 2n);
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, amount]));
    await passTime(HOUR);
  }

  async function heldSplit(): Promise<{ receipt: TransactionReceipt; tipId: bigint }> {
    const receipt = await mined(rewardsAs(operator).write.payBountySplitHeld([REPO, ISSUE, [contributor.address], [parseEther("6")], [CAROL], [parseEther("4")]]));
    const [{ tipId }] = eventArgs(receipt, "BountyShareHeld") as unknown as [{ tipId: bigint }];
    return { receipt, tipId };
  }

  test("pays the address parts now, escrows the held part for its GitHub user; the escrow still holds what it owes", async () => {
    await oldBounty(parseEther("10"));
    const before = await xdcOf(contributor.address);
    const { receipt, tipId } = await heldSplit();
    expect(eventArgs(receipt, "BountySharePaid")).toEqual([{ repoId: REPO, issueNumber: ISSUE, currency: XDC, amount: parseEther("6"), recipient: contributor.address }]);
    expect(eventArgs(receipt, "BountyShareHeld")).toEqual([{ repoId: REPO, issueNumber: ISSUE, currency: XDC, amount: parseEther("4"), githubUserId: CAROL, tipId }]);
    // The total is the whole bounty: the mirror and the contributors' records count both shares.
    expect(eventArgs(receipt, "BountyPaid")).toEqual([
      { repoId: REPO, issueNumber: ISSUE, currency: XDC, amount: parseEther("10"), contributor: contributor.address, by: operator.address },
    ]);
    expect(await xdcOf(contributor.address)).toBe(before + parseEther("6"));
    expect((await details()).status).toBe(PAID);
    expect(await rewardsAs(admin).read.getTip([tipId])).toMatchObject({ tipper: "0x0000000000000000000000000000000000000000", status: TIP_HELD, githubUserId: CAROL, amount: parseEther("4") });
    const held = await rewardsAs(admin).read.getHeldShare([tipId]);
    expect([held.repoId, held.issueNumber]).toEqual([REPO, ISSUE]);
    // What is left in the pool (20 XDC less the fee, less the bounty) and carol's 4 XDC.
    expect(await owedXdc()).toBe(net(parseEther("20")) - parseEther("10") + parseEther("4"));
    await expectHeldIsOwed();
    await expectRevert(rewardsAs(admin).write.sweepExcess([XDC, admin.address]), "ZeroAmount");
    await expectRevert(rewardsAs(operator).write.payBountySplitHeld([REPO, ISSUE, [contributor.address], [parseEther("6")], [CAROL], [parseEther("4")]]), "BountyNotOpen");
  });

  test("the held share is paid once, by the operator only, to the address its user registers", async () => {
    await oldBounty(parseEther("10"));
    const { tipId } = await heldSplit();
    await expectRevert(rewardsAs(outsider).write.payTip([tipId, outsider.address]), "AccessControlUnauthorizedAccount");
    await expectRevert(rewardsAs(manager).write.payTip([tipId, manager.address]), "AccessControlUnauthorizedAccount");
    // Old money (the bounty's) to an address below the new-recipient threshold: at once.
    const carol = freshAddress();
    const paid = await mined(rewardsAs(operator).write.payTip([tipId, carol]));
    expect(eventArgs(paid, "TipPaid")).toEqual([{ tipId, recipient: carol, currency: XDC, amount: parseEther("4"), by: operator.address }]);
    expect(await xdcOf(carol)).toBe(parseEther("4"));
    expect((await rewardsAs(admin).read.getTip([tipId])).status).toBe(TIP_PAID);
    await expectRevert(rewardsAs(operator).write.payTip([tipId, carol]), "UnknownTip");
    await expectRevert(rewardsAs(operator).write.refundTip([tipId]), "UnknownTip");
    expect(await xdcOf(carol)).toBe(parseEther("4"));
    expect(await owedXdc()).toBe(net(parseEther("20")) - parseEther("10"));
    await expectHeldIsOwed();
  });

  test("a held share above the threshold to a new address waits the window in the queue, counted against its repository's cap", async () => {
    await oldBounty(parseEther("300"));
    const receipt = await mined(rewardsAs(operator).write.payBountySplitHeld([REPO, ISSUE, [contributor.address], [parseEther("50")], [CAROL], [parseEther("250")]]));
    const [{ tipId }] = eventArgs(receipt, "BountyShareHeld") as unknown as [{ tipId: bigint }];
    const [, , repoUsedBefore] = await rewardsAs(admin).read.caps([XDC, REPO]);
    const carol = freshAddress();
    const queued = await mined(rewardsAs(operator).write.payTip([tipId, carol]));
    const [{ id }] = eventArgs(queued, "OutflowQueued") as unknown as [{ id: bigint }];
    const [, , repoUsedAfter] = await rewardsAs(admin).read.caps([XDC, REPO]);
    expect(repoUsedAfter - repoUsedBefore).toBe(parseEther("250"));
    expect((await rewardsAs(admin).read.getTip([tipId])).status).toBe(TIP_QUEUED);
    await expectRevert(rewardsAs(outsider).write.executeOutflow([id]), "NotReady");
    await passTime(HOUR);
    await mined(rewardsAs(outsider).write.executeOutflow([id]));
    expect(await xdcOf(carol)).toBe(parseEther("250"));
    await expectHeldIsOwed();
  });

  test("refuses held parts that do not sum, zero or duplicate users, zero amounts, no address part, too many parts, a caller other than the operator", async () => {
    await oldBounty(parseEther("10"));
    const rewards = rewardsAs(operator);
    const a = contributor.address;
    await expectRevert(rewards.write.payBountySplitHeld([REPO, ISSUE, [a], [parseEther("6")], [CAROL], [parseEther("3")]]), "SplitInvalid", [parseEther("10"), parseEther("9")]);
    await expectRevert(rewards.write.payBountySplitHeld([REPO, ISSUE, [a], [parseEther("6")], [0n], [parseEther("4")]]), "ZeroAmount");
    await expectRevert(rewards.write.payBountySplitHeld([REPO, ISSUE, [a], [parseEther("6")], [CAROL, 5n], [parseEther("4"), 0n]]), "ZeroAmount");
    await expectRevert(rewards.write.payBountySplitHeld([REPO, ISSUE, [a], [parseEther("6")], [CAROL, CAROL], [parseEther("2"), parseEther("2")]]), "DuplicateHeldUser", [CAROL]);
    await expectRevert(rewards.write.payBountySplitHeld([REPO, ISSUE, [], [], [CAROL], [parseEther("10")]]), "SplitInvalid");
    await expectRevert(rewards.write.payBountySplitHeld([REPO, ISSUE, [a], [parseEther("6")], [CAROL], []]), "SplitInvalid");
    const many = Array.from({ length: 20 }, (_, i) => BigInt(i + 1));
    await expectRevert(rewards.write.payBountySplitHeld([REPO, ISSUE, [a], [1n], many, many.map(() => 1n)]), "SplitInvalid");
    await expectRevert(rewardsAs(manager).write.payBountySplitHeld([REPO, ISSUE, [a], [parseEther("6")], [CAROL], [parseEther("4")]]), "AccessControlUnauthorizedAccount");
    expect((await details()).status).toBe(OPEN);
  });

  test("when the address part must wait, the whole split waits: the held part is escrowed only when it runs; the guardian's cancel reopens the bounty whole", async () => {
    // Young money: allocated now.
    await fundPool(parseEther("20"));
    await mined(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, parseEther("10")]));
    const split = [REPO, ISSUE, [contributor.address], [parseEther("6")], [CAROL], [parseEther("4")]] as const;
    const receipt = await mined(rewardsAs(operator).write.payBountySplitHeld(split));
    expect(eventArgs(receipt, "BountyShareHeld")).toEqual([]);
    const [{ id, amount }] = eventArgs(receipt, "OutflowQueued") as unknown as [{ id: bigint; amount: bigint }];
    expect(amount).toBe(parseEther("10"));
    expect(await rewardsAs(admin).read.getOutflowHeldShares([id])).toEqual([[CAROL], [parseEther("4")]]);
    expect(await rewardsAs(admin).read.nextTipId()).toBe(0n);
    await mined(rewardsAs(guardian).write.cancelOutflow([id]));
    expect((await details()).status).toBe(OPEN);
    expect((await details()).amount).toBe(parseEther("10"));
    expect(await rewardsAs(admin).read.getOutflowHeldShares([id])).toEqual([[], []]);
    await expectHeldIsOwed();
    const again = await mined(rewardsAs(operator).write.payBountySplitHeld(split));
    const [{ id: second }] = eventArgs(again, "OutflowQueued") as unknown as [{ id: bigint }];
    await passTime(HOUR);
    const before = await xdcOf(contributor.address);
    const run = await mined(rewardsAs(outsider).write.executeOutflow([second]));
    const [{ tipId }] = eventArgs(run, "BountyShareHeld") as unknown as [{ tipId: bigint }];
    expect(eventArgs(run, "BountyPaid")).toHaveLength(1);
    expect(await xdcOf(contributor.address)).toBe(before + parseEther("6"));
    expect((await rewardsAs(admin).read.getTip([tipId])).amount).toBe(parseEther("4"));
    expect(await owedXdc()).toBe(net(parseEther("20")) - parseEther("10") + parseEther("4"));
    await expectHeldIsOwed();
    // Its money is as old as the bounty's: paid at once to a known address.
    expect(eventArgs(await mined(rewardsAs(operator).write.payTip([tipId, contributor.address])), "TipPaid")).toHaveLength(1);
    await expectHeldIsOwed();
  });

  test("unclaimed after TIP_REFUND_DELAY, a held share goes back to its repository's pool (manager or operator), never elsewhere", async () => {
    await oldBounty(parseEther("10"));
    const { tipId } = await heldSplit();
    await expectRevert(rewardsAs(manager).write.refundTip([tipId]), "NotReady");
    await passTime(30 * DAY);
    await expectRevert(rewardsAs(outsider).write.refundTip([tipId]), "NotTipper", [tipId, outsider.address]);
    const [poolBefore] = await rewardsAs(admin).read.getPool([REPO]);
    const owedBefore = await owedXdc();
    const managerBefore = await xdcOf(manager.address);
    const returned = await mined(rewardsAs(manager).write.refundTip([tipId]));
    expect(eventArgs(returned, "HeldShareReturned")).toEqual([{ tipId, repoId: REPO, issueNumber: ISSUE, currency: XDC, amount: parseEther("4"), by: manager.address }]);
    expect(eventArgs(returned, "TipRefunded")).toEqual([]);
    const [poolAfter] = await rewardsAs(admin).read.getPool([REPO]);
    expect(poolAfter - poolBefore).toBe(parseEther("4"));
    expect(await owedXdc()).toBe(owedBefore);
    // Nothing left the escrow (the manager paid only gas).
    expect(await xdcOf(manager.address)).toBeLessThanOrEqual(managerBefore);
    expect((await rewardsAs(admin).read.getTip([tipId])).status).toBe(TIP_REFUNDED);
    await expectRevert(rewardsAs(operator).write.payTip([tipId, contributor.address]), "UnknownTip");
    await expectRevert(rewardsAs(operator).write.refundTip([tipId]), "UnknownTip");
    await expectHeldIsOwed();
  });
});

describe("tips", () => {
  test("a direct tip goes to the recipient minus the fee; nothing stays in escrow", async () => {
    const [recipientBefore, feeBefore] = [await xdcOf(contributor.address), await xdcOf(feeCollector.address)];
    const receipt = await mined(rewardsAs(funderA).write.tipXdc([contributor.address, 500], { value: parseEther("10") }));
    expect(eventArgs(receipt, "Tipped")).toEqual([
      { tipper: funderA.address, recipient: contributor.address, currency: XDC, gross: parseEther("10"), fee: parseEther("0.05"), net: parseEther("9.95") },
    ]);
    expect(await xdcOf(contributor.address)).toBe(recipientBefore + parseEther("9.95"));
    expect(await xdcOf(feeCollector.address)).toBe(feeBefore + parseEther("0.05"));
    expect(await xdcOf(contracts.repoRewards)).toBe(0n);
    await mined(rewardsAs(funderA).write.tipToken([contributor.address, ROXN, 10n ** 18n, 500]));
    expect(await roxnAs(admin).read.balanceOf([contributor.address])).toBe(net(10n ** 18n));
    await expectRevert(rewardsAs(funderA).write.tipXdc([contributor.address, 10], { value: parseEther("1") }), "FeeTooHigh");
    await expectRevert(rewardsAs(funderA).write.tipXdc(["0x0000000000000000000000000000000000000000", 500], { value: parseEther("1") }), "ZeroAddress");
    await expectRevert(rewardsAs(funderA).write.tipXdc([contributor.address, 500], { value: 0n }), "ZeroAmount");
    await expectRevert(rewardsAs(funderA).write.tipToken([contributor.address, XDC, 1n, 500]), "InvalidCurrency");
  });

  test("an escrowed tip is held for a GitHub user, paid by the operator to their address after the window, once", async () => {
    const receipt = await mined(rewardsAs(funderA).write.escrowTipXdc([777n, 500], { value: parseEther("10") }));
    const [{ tipId }] = eventArgs(receipt, "TipEscrowed") as unknown as [{ tipId: bigint }];
    expect(tipId).toBe(1n);
    expect(await rewardsAs(admin).read.getTip([tipId])).toMatchObject({ tipper: funderA.address, status: 1, githubUserId: 777n, amount: parseEther("9.95") });
    expect(await owedXdc()).toBe(parseEther("9.95"));
    await expectHeldIsOwed();
    await expectRevert(rewardsAs(outsider).write.payTip([tipId, contributor.address]), "AccessControlUnauthorizedAccount");
    // Paid right away: younger than the window, so queued.
    const queued = await mined(rewardsAs(operator).write.payTip([tipId, contributor.address]));
    const [{ id, repoId, issueNumber }] = eventArgs(queued, "OutflowQueued") as unknown as [{ id: bigint; repoId: bigint; issueNumber: bigint }];
    expect([repoId, issueNumber]).toEqual([0n, tipId]);
    expect((await rewardsAs(admin).read.getTip([tipId])).status).toBe(2);
    await expectRevert(rewardsAs(operator).write.payTip([tipId, contributor.address]), "UnknownTip");
    await passTime(HOUR);
    const before = await xdcOf(contributor.address);
    const run = await mined(rewardsAs(outsider).write.executeOutflow([id]));
    expect(eventArgs(run, "TipPaid")).toEqual([{ tipId, recipient: contributor.address, currency: XDC, amount: parseEther("9.95"), by: outsider.address }]);
    expect(await xdcOf(contributor.address)).toBe(before + parseEther("9.95"));
    expect(await owedXdc()).toBe(0n);
    // An old tip to a known address pays at once.
    const second = await mined(rewardsAs(funderB).write.escrowTipXdc([777n, 500], { value: parseEther("2") }));
    const [{ tipId: tip2 }] = eventArgs(second, "TipEscrowed") as unknown as [{ tipId: bigint }];
    await passTime(HOUR);
    expect(eventArgs(await mined(rewardsAs(operator).write.payTip([tip2, contributor.address])), "TipPaid")).toHaveLength(1);
    await expectHeldIsOwed();
  });

  test("the guardian's cancel holds a queued tip again; the tipper takes a held tip back only after TIP_REFUND_DELAY", async () => {
    const receipt = await mined(rewardsAs(funderA).write.escrowTipToken([777n, ROXN, 10n ** 18n, 500]));
    const [{ tipId }] = eventArgs(receipt, "TipEscrowed") as unknown as [{ tipId: bigint }];
    const queued = await mined(rewardsAs(operator).write.payTip([tipId, freshAddress()]));
    const [{ id }] = eventArgs(queued, "OutflowQueued") as unknown as [{ id: bigint }];
    await mined(rewardsAs(guardian).write.cancelOutflow([id]));
    expect((await rewardsAs(admin).read.getTip([tipId])).status).toBe(1);
    await expectRevert(rewardsAs(funderA).write.refundTip([tipId]), "NotReady");
    await passTime(30 * DAY);
    await expectRevert(rewardsAs(outsider).write.refundTip([tipId]), "NotTipper");
    const before = await roxnAs(admin).read.balanceOf([funderA.address]);
    const refund = await mined(rewardsAs(funderA).write.refundTip([tipId]));
    expect(eventArgs(refund, "TipRefunded")).toHaveLength(1);
    expect(await roxnAs(admin).read.balanceOf([funderA.address])).toBe(before + net(10n ** 18n));
    await expectRevert(rewardsAs(funderA).write.refundTip([tipId]), "UnknownTip");
    expect(await rewardsAs(admin).read.owed([ROXN])).toBe(0n);
    await expectRevert(rewardsAs(funderA).write.escrowTipXdc([777n, 500], { value: parseEther("0.5") }), "BelowMinimum");
    await expectRevert(rewardsAs(funderA).write.escrowTipXdc([0n, 500], { value: parseEther("5") }), "ZeroAmount");
  });

  test("sweepExcess never takes funders' shares or escrowed tips", async () => {
    await boost(funderA, parseEther("10"));
    await mined(rewardsAs(funderB).write.escrowTipXdc([777n, 500], { value: parseEther("10") }));
    await expectRevert(rewardsAs(admin).write.sweepExcess([XDC, admin.address]), "ZeroAmount");
    await expectHeldIsOwed();
  });
});

describe("the v2 import", () => {
  test("only the admin imports, only until finishImport; imported bounties are payable at once", async () => {
    await expectRevert(rewardsAs(operator).write.importPool([REPO, XDC, 1n, []], { value: 1n }), "AccessControlUnauthorizedAccount");
    await mined(rewardsAs(admin).write.importPool([REPO, XDC, parseEther("5"), [manager.address]], { value: parseEther("5") }));
    await expectRevert(rewardsAs(admin).write.importPool([REPO, XDC, parseEther("5"), []], { value: parseEther("4") }), "TransferFailed");
    await mined(rewardsAs(admin).write.importBounty([REPO, 7n, XDC, parseEther("3"), [contributor.address]], { value: parseEther("3") }));
    await expectRevert(rewardsAs(admin).write.importBounty([REPO, 7n, XDC, parseEther("3"), []], { value: parseEther("3") }), "BountyExists");
    expect(await rewardsAs(admin).read.claimants([REPO, 7n])).toEqual([contributor.address]);
    await mined(rewardsAs(admin).write.finishImport());
    await expectRevert(rewardsAs(admin).write.importPool([REPO, XDC, 1n, []], { value: 1n }), "ImportClosed");
    await expectRevert(rewardsAs(admin).write.finishImport(), "ImportClosed");
    const receipt = await mined(rewardsAs(manager).write.payBounty([REPO, 7n, contributor.address]));
    expect(eventArgs(receipt, "BountyPaid")).toHaveLength(1);
    expect((await rewardsAs(admin).read.getPool([REPO]))[0]).toBe(parseEther("5"));
    await expectHeldIsOwed();
  });
});

void NONE;
