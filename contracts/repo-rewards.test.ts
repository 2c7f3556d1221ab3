/**
 * RepoRewards, function by function and revert by revert, on a real anvil.
 * Every test starts from the same chain state (evm_snapshot / evm_revert).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import solc from "solc";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeErrorResult,
  encodeDeployData,
  encodeFunctionData,
  getContract,
  http,
  keccak256,
  maxUint256,
  parseEventLogs,
  toFunctionSelector,
  toHex,
  zeroAddress,
  type Abi,
  type Account,
  type Address,
  type Hash,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { anvil as anvilChain } from "viem/chains";
import { RepoRewardsAbi, RepoRewardsBytecode, RoxnAbi, TestUsdcAbi } from "./artifacts/index.ts";
import { deployContracts } from "../scripts/deploy-contracts.ts";
import { anvilAccounts, startAnvil, type Anvil } from "../scripts/lib/anvil.ts";

const XDC = 0;
const ROXN = 1;
const USDC = 2;
const [NONE, OPEN, PAID, CANCELLED] = [0, 1, 2, 3];
const ONE_XDC = 10n ** 18n;
const MINIMUM = [ONE_XDC, 10n ** 14n, 100n] as const;
const REPO = 123_456_789n;
const OTHER_REPO = 987_654_321n;
const ISSUE = 42n;
const DEFAULT_ADMIN_ROLE = `0x${"00".repeat(32)}` as Hex;
const OPERATOR_ROLE = keccak256(toHex("OPERATOR_ROLE"));
const ADMIN_DELAY = 2 * 24 * 3600;
/** RepoRewards plus the token errors that SafeERC20 lets through. */
const ABI_WITH_TOKEN_ERRORS = [...RepoRewardsAbi, ...RoxnAbi.filter((item) => item.type === "error")] as const;

const [admin, operator, feeCollector, manager, outsider, contributor, otherManager, treasury, guardian] = anvilAccounts(9) as [
  Account, Account, Account, Account, Account, Account, Account, Account, Account,
];

let chain: Anvil;
let dataDir: string;
let contracts: { roxn: Address; usdc: Address; repoRewards: Address; repoRewardsExtension: Address };
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

function tokenAs(currency: typeof ROXN | typeof USDC, account: Account) {
  const { publicClient, walletOf } = clients;
  const address = currency === ROXN ? contracts.roxn : contracts.usdc;
  return getContract({ address, abi: TestUsdcAbi, client: { public: publicClient, wallet: walletOf(account) } });
}

async function mined(hash: Hash): Promise<TransactionReceipt> {
  const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

function eventArgs(receipt: TransactionReceipt, eventName: string) {
  return parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs }).filter((log) => log.eventName === eventName).map((log) => log.args);
}

/** Awaits a failing call and checks the custom error it reverted with. */
async function expectRevert(action: Promise<unknown>, errorName: string, args?: readonly unknown[], abi: Abi = ABI_WITH_TOKEN_ERRORS) {
  const error = await action.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(BaseError);
  const decoded = (error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  let revert = decoded?.data;
  if (!revert) {
    // Deployments and plain transfers are not contract-function calls: decode the raw revert data.
    const raw = (error as BaseError).walk((e) => typeof (e as { data?: unknown }).data === "string") as { data: Hex } | null;
    revert = raw ? decodeErrorResult({ abi, data: raw.data }) : undefined;
  }
  expect(revert?.errorName).toBe(errorName);
  if (args) expect(revert?.args as unknown).toEqual(args);
}

async function balanceOf(currency: number, address: Address): Promise<bigint> {
  if (currency === XDC) return clients.publicClient.getBalance({ address });
  return tokenAs(currency as typeof ROXN, admin).read.balanceOf([address]);
}

async function fund(currency: number, amount: bigint, by: Account = manager, repoId = REPO): Promise<TransactionReceipt> {
  const rewards = rewardsAs(by);
  const hash =
    currency === XDC
      ? await rewards.write.fundPoolXdc([repoId, 500], { value: amount })
      : await rewards.write.fundPoolToken([repoId, currency, amount, 500]);
  return mined(hash);
}

async function pool(repoId = REPO): Promise<readonly [bigint, bigint, bigint]> {
  return rewardsAs(admin).read.getPool([repoId]);
}

/** Schedules admin calls, lets ADMIN_DELAY pass on anvil's clock, and returns a sender for them. */
async function scheduled(...calls: Hex[]): Promise<(call: Hex) => Promise<TransactionReceipt>> {
  for (const call of calls) await mined(await rewardsAs(admin).write.schedule([call]));
  await clients.testClient.increaseTime({ seconds: ADMIN_DELAY });
  await clients.testClient.mine({ blocks: 1 });
  return async (call) => mined(await clients.walletOf(admin).sendTransaction({ to: contracts.repoRewards, data: call }));
}

/** An admin call through the timelock: scheduled, ADMIN_DELAY later sent. */
async function timelocked(call: Hex): Promise<TransactionReceipt> {
  return (await scheduled(call))(call);
}

const setFee = (bps: number) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "setFeeBps", args: [bps] });
const setCollector = (to: Address) => encodeFunctionData({ abi: RepoRewardsAbi, functionName: "setFeeCollector", args: [to] });

/** Funds REPO with exactly `net` of `currency` in the pool, with the fee set to zero (through the timelock). */
async function poolWith(currency: number, net: bigint): Promise<void> {
  const send = await scheduled(setFee(0), setFee(50));
  await send(setFee(0));
  await fund(currency, net);
  await send(setFee(50));
}

beforeAll(async () => {
  chain = await startAnvil({ balanceEther: 10_000_000 });
  clients = makeClients(chain.rpcUrl);
  dataDir = mkdtempSync(join(tmpdir(), "issuepool-rewards-"));
  contracts = await deployContracts({
    rpcUrl: chain.rpcUrl,
    chain: anvilChain,
    deployer: admin,
    admin: admin.address,
    guardian: guardian.address,
    operator: operator.address,
    feeCollector: feeCollector.address,
    deploymentsFile: join(dataDir, "deployments.json"),
  });
  await mined(await rewardsAs(operator).write.addPoolManager([REPO, manager.address]));
  await mined(await rewardsAs(operator).write.addPoolManager([OTHER_REPO, otherManager.address]));
  for (const account of [manager, operator, otherManager]) {
    await mined(await tokenAs(ROXN, admin).write.mint([account.address, 10n ** 24n]));
    await mined(await tokenAs(USDC, admin).write.mint([account.address, 10n ** 31n]));
    await mined(await tokenAs(ROXN, account).write.approve([contracts.repoRewards, maxUint256]));
    await mined(await tokenAs(USDC, account).write.approve([contracts.repoRewards, maxUint256]));
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
  test("the constructor sets roles, tokens and the starting fee, with events", async () => {
    const rewards = rewardsAs(outsider);
    expect(await rewards.read.hasRole([DEFAULT_ADMIN_ROLE, admin.address])).toBe(true);
    expect(await rewards.read.hasRole([OPERATOR_ROLE, operator.address])).toBe(true);
    expect(await rewards.read.hasRole([OPERATOR_ROLE, admin.address])).toBe(false);
    expect(await rewards.read.OPERATOR_ROLE()).toBe(OPERATOR_ROLE);
    expect(await rewards.read.feeBps()).toBe(50);
    expect(await rewards.read.MAX_FEE_BPS()).toBe(500);
    expect(await rewards.read.feeCollector()).toBe(feeCollector.address);
    expect(await rewards.read.roxn()).toBe(contracts.roxn);
    expect(await rewards.read.usdc()).toBe(contracts.usdc);
    expect(await rewards.read.paused()).toBe(false);

    const { publicClient } = clients;
    const logs = await publicClient.getContractEvents({ address: contracts.repoRewards, abi: RepoRewardsAbi, fromBlock: 0n });
    const initial = logs.filter((log) => log.eventName === "FeeBpsChanged" || log.eventName === "FeeCollectorChanged").map((log) => log.args);
    expect(initial).toEqual([
      { oldBps: 0, newBps: 50 },
      { oldCollector: zeroAddress, newCollector: feeCollector.address },
    ]);
  });

  test("the constructor refuses a zero address for every role and token", async () => {
    const { publicClient } = clients;
    const caps = [[10n ** 20n, 10n ** 21n], [10n ** 20n, 10n ** 21n], [10n ** 8n, 10n ** 9n]] as const;
    const good = [admin.address, guardian.address, operator.address, feeCollector.address, contracts.roxn, contracts.usdc] as const;
    for (let i = 0; i < good.length; i++) {
      const a = [...good] as [Address, Address, Address, Address, Address, Address];
      a[i] = zeroAddress;
      const data = encodeDeployData({ abi: RepoRewardsAbi, bytecode: RepoRewardsBytecode, args: [a[0], 3600, a[1], a[2], a[3], a[4], a[5], 0n, caps, 0n, [0n, 0n, 0n], contracts.repoRewardsExtension] });
      // The admin's check is OpenZeppelin's (AccessControlDefaultAdminRules).
      await expectRevert(publicClient.call({ data }), i === 0 ? "AccessControlInvalidDefaultAdmin" : "ZeroAddress");
    }
  });
});

describe("administration", () => {
  test("the admin sets the fee up to MAX_FEE_BPS through the timelock; above is refused", async () => {
    await expectRevert(rewardsAs(admin).write.setFeeBps([120]), "NotScheduled");
    const receipt = await timelocked(setFee(120));
    expect(eventArgs(receipt, "FeeBpsChanged")).toEqual([{ oldBps: 50, newBps: 120 }]);
    await timelocked(setFee(500));
    expect(await rewardsAs(admin).read.feeBps()).toBe(500);
    await expectRevert((await scheduled(setFee(501)))(setFee(501)), "FeeTooHigh", [501, 500]);
    expect(await rewardsAs(admin).read.feeBps()).toBe(500);
  });

  test("a scheduled call runs once, not before ADMIN_DELAY, and the guardian can drop it", async () => {
    await mined(await rewardsAs(admin).write.schedule([setFee(100)]));
    await clients.testClient.increaseTime({ seconds: ADMIN_DELAY - 60 });
    await clients.testClient.mine({ blocks: 1 });
    await expectRevert(rewardsAs(admin).write.setFeeBps([100]), "NotReady");
    await clients.testClient.increaseTime({ seconds: 120 });
    await mined(await rewardsAs(admin).write.setFeeBps([100]));
    await expectRevert(rewardsAs(admin).write.setFeeBps([100]), "NotScheduled");

    await mined(await rewardsAs(admin).write.schedule([setFee(200)]));
    const dropped = await mined(await rewardsAs(guardian).write.cancelScheduled([keccak256(setFee(200))]));
    expect(eventArgs(dropped, "OperationCancelled")).toEqual([{ id: keccak256(setFee(200)) }]);
    await clients.testClient.increaseTime({ seconds: ADMIN_DELAY });
    await expectRevert(rewardsAs(admin).write.setFeeBps([200]), "NotScheduled");
    await expectRevert(rewardsAs(outsider).write.cancelScheduled([keccak256(setFee(200))]), "AccessControlUnauthorizedAccount");
  });

  test("only the admin sets the fee, the fee collector and unpauses; only admin and guardian pause", async () => {
    for (const account of [operator, manager, outsider]) {
      const rewards = rewardsAs(account);
      const refused = [account.address, DEFAULT_ADMIN_ROLE];
      await expectRevert(rewards.write.setFeeBps([10]), "AccessControlUnauthorizedAccount", refused);
      await expectRevert(rewards.write.setFeeCollector([account.address]), "AccessControlUnauthorizedAccount", refused);
      await expectRevert(rewards.write.schedule([setFee(10)]), "AccessControlUnauthorizedAccount", refused);
      await expectRevert(rewards.write.pause(), "AccessControlUnauthorizedAccount", refused);
      await expectRevert(rewards.write.unpause(), "AccessControlUnauthorizedAccount", refused);
      await expectRevert(rewards.write.grantRole([OPERATOR_ROLE, account.address]), "AccessControlUnauthorizedAccount", refused);
    }
    await expectRevert(rewardsAs(guardian).write.unpause(), "AccessControlUnauthorizedAccount", [guardian.address, DEFAULT_ADMIN_ROLE]);
  });

  test("the admin changes the fee collector, never to zero or to the contract itself", async () => {
    const receipt = await timelocked(setCollector(treasury.address));
    expect(eventArgs(receipt, "FeeCollectorChanged")).toEqual([{ oldCollector: feeCollector.address, newCollector: treasury.address }]);
    expect(await rewardsAs(admin).read.feeCollector()).toBe(treasury.address);
    await expectRevert(timelocked(setCollector(zeroAddress)), "ZeroAddress");
    await expectRevert(timelocked(setCollector(contracts.repoRewards)), "InvalidRecipient", [contracts.repoRewards]);

    const before = await balanceOf(XDC, treasury.address);
    await fund(XDC, 10n * ONE_XDC);
    expect((await balanceOf(XDC, treasury.address)) - before).toBe(ONE_XDC / 20n);
  });

  test("the admin grants OPERATOR_ROLE only through the timelock, and revokes it at once", async () => {
    const grant = encodeFunctionData({ abi: RepoRewardsAbi, functionName: "grantRole", args: [OPERATOR_ROLE, outsider.address] });
    await expectRevert(rewardsAs(admin).write.grantRole([OPERATOR_ROLE, outsider.address]), "NotScheduled", [keccak256(grant)]);
    const receipt = await timelocked(grant);
    expect(parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs, eventName: "RoleGranted" })[0]?.args).toEqual({
      role: OPERATOR_ROLE,
      account: outsider.address,
      sender: admin.address,
    });
    await mined(await rewardsAs(outsider).write.addPoolManager([REPO, treasury.address]));
    await mined(await rewardsAs(admin).write.revokeRole([OPERATOR_ROLE, outsider.address]));
    await expectRevert(rewardsAs(outsider).write.removePoolManager([REPO, treasury.address]), "AccessControlUnauthorizedAccount");
  });

  test("the last admin cannot renounce without the two-step, delayed hand-over", async () => {
    await expectRevert(rewardsAs(admin).write.renounceRole([DEFAULT_ADMIN_ROLE, admin.address]), "AccessControlEnforcedDefaultAdminDelay");
    expect(await rewardsAs(outsider).read.defaultAdmin()).toBe(admin.address);
  });
});

describe("pool managers", () => {
  test("the operator (and the admin through the timelock) add pool managers, never the zero address; the set is enumerable", async () => {
    const receipt = await mined(await rewardsAs(operator).write.addPoolManager([OTHER_REPO, manager.address]));
    expect(eventArgs(receipt, "PoolManagerSet")).toEqual([{ repoId: OTHER_REPO, manager: manager.address, enabled: true }]);
    expect(await rewardsAs(outsider).read.isPoolManager([OTHER_REPO, manager.address])).toBe(true);
    expect(await rewardsAs(outsider).read.isPoolManager([OTHER_REPO, outsider.address])).toBe(false);
    // The admin alone goes through the timelock.
    const appoint = encodeFunctionData({ abi: RepoRewardsAbi, functionName: "addPoolManager", args: [OTHER_REPO, treasury.address] });
    await expectRevert(rewardsAs(admin).write.addPoolManager([OTHER_REPO, treasury.address]), "NotScheduled", [keccak256(appoint)]);
    await timelocked(appoint);
    expect(await rewardsAs(outsider).read.poolManagers([OTHER_REPO])).toEqual([otherManager.address, manager.address, treasury.address]);

    for (const account of [manager, outsider, guardian]) {
      await expectRevert(rewardsAs(account).write.addPoolManager([REPO, outsider.address]), "AccessControlUnauthorizedAccount", [
        account.address,
        OPERATOR_ROLE,
      ]);
    }
    await expectRevert(rewardsAs(operator).write.addPoolManager([REPO, zeroAddress]), "ZeroAddress");
  });

  test("a removed manager loses every right on that repository", async () => {
    await fund(XDC, 5n * ONE_XDC);
    const receipt = await mined(await rewardsAs(operator).write.removePoolManager([REPO, manager.address]));
    expect(eventArgs(receipt, "PoolManagerSet")).toEqual([{ repoId: REPO, manager: manager.address, enabled: false }]);
    expect(await rewardsAs(outsider).read.isPoolManager([REPO, manager.address])).toBe(false);
    expect(await rewardsAs(outsider).read.poolManagers([REPO])).toEqual([]);
    const refused = [REPO, manager.address];
    await expectRevert(rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, ONE_XDC]), "NotPoolManager", refused);
    await expectRevert(rewardsAs(manager).write.withdrawPool([REPO, XDC, ONE_XDC, treasury.address]), "NotPoolManager", refused);
  });
});

describe("funding", () => {
  test("a manager funds XDC: the fee goes to the collector, the net to the pool", async () => {
    const collectorBefore = await balanceOf(XDC, feeCollector.address);
    const receipt = await fund(XDC, 100n * ONE_XDC);
    expect(eventArgs(receipt, "PoolFunded")).toEqual([
      { repoId: REPO, currency: XDC, funder: manager.address, gross: 100n * ONE_XDC, fee: ONE_XDC / 2n, net: 99_500_000_000_000_000_000n },
    ]);
    expect(await pool()).toEqual([99_500_000_000_000_000_000n, 0n, 0n]);
    expect((await balanceOf(XDC, feeCollector.address)) - collectorBefore).toBe(ONE_XDC / 2n);
    expect(await balanceOf(XDC, contracts.repoRewards)).toBe(99_500_000_000_000_000_000n);
  });

  test("the fee is floor(gross * 50 / 10000) for awkward amounts, in every currency", async () => {
    const grossAmounts = [1n, 199n, 200n, 201n, 12_345_678_901n, 10n ** 30n];
    for (const currency of [XDC, ROXN, USDC]) {
      for (const gross of grossAmounts) {
        if (currency === ROXN && gross > 10n ** 24n) continue; // the manager holds 10^24 ROXN (the cap is 10^27)
        const collectorBefore = await balanceOf(currency, feeCollector.address);
        const poolBefore = (await pool())[currency]!;
        if (currency === XDC && gross > 10n ** 24n) await clients.testClient.setBalance({ address: manager.address, value: 2n * gross });
        const receipt = await fund(currency, gross);
        const fee = (gross * 50n) / 10_000n;
        expect(eventArgs(receipt, "PoolFunded")).toEqual([{ repoId: REPO, currency, funder: manager.address, gross, fee, net: gross - fee }]);
        expect((await balanceOf(currency, feeCollector.address)) - collectorBefore).toBe(fee);
        expect((await pool())[currency]! - poolBefore).toBe(gross - fee);
      }
    }
    expect((await pool())[USDC]).toBe(await balanceOf(USDC, contracts.repoRewards));
  });

  test("the fee follows feeBps: none at 0, 5% at the cap", async () => {
    const send = await scheduled(setFee(0), setFee(500));
    await send(setFee(0));
    let receipt = await fund(USDC, 999n);
    expect(eventArgs(receipt, "PoolFunded")[0]).toMatchObject({ gross: 999n, fee: 0n, net: 999n });
    await send(setFee(500));
    receipt = await fund(USDC, 999n);
    expect(eventArgs(receipt, "PoolFunded")[0]).toMatchObject({ gross: 999n, fee: 49n, net: 950n });
  });

  test("a funding refuses a fee above the funder's maxFeeBps (a raised fee cannot front-run it)", async () => {
    await timelocked(setFee(120));
    await expectRevert(rewardsAs(manager).write.fundPoolXdc([REPO, 50], { value: ONE_XDC }), "FeeTooHigh", [120, 50]);
    await expectRevert(rewardsAs(manager).write.fundPoolToken([REPO, USDC, 1_000n, 119]), "FeeTooHigh", [120, 119]);
    expect(await pool()).toEqual([0n, 0n, 0n]);
    await mined(await rewardsAs(manager).write.fundPoolToken([REPO, USDC, 1_000n, 120]));
  });

  test("anyone may add money to any pool (money only comes in)", async () => {
    await fund(XDC, ONE_XDC, operator, OTHER_REPO);
    await fund(ROXN, ONE_XDC, operator, OTHER_REPO);
    await fund(XDC, ONE_XDC, outsider, OTHER_REPO);
    expect((await pool(OTHER_REPO))[XDC]).toBe(2n * (ONE_XDC - ONE_XDC / 200n));
  });

  test("zero amounts, XDC through fundPoolToken and missing allowances are refused", async () => {
    const rewards = rewardsAs(manager);
    await expectRevert(rewards.write.fundPoolXdc([REPO, 50], { value: 0n }), "ZeroAmount");
    await expectRevert(rewards.write.fundPoolToken([REPO, ROXN, 0n, 50]), "ZeroAmount");
    await expectRevert(rewards.write.fundPoolToken([REPO, USDC, 0n, 50]), "ZeroAmount");
    await expectRevert(rewards.write.fundPoolToken([REPO, XDC, ONE_XDC, 50]), "InvalidCurrency", [XDC]);

    await mined(await tokenAs(ROXN, manager).write.approve([contracts.repoRewards, 10n]));
    await expectRevert(rewards.write.fundPoolToken([REPO, ROXN, 11n, 50]), "ERC20InsufficientAllowance");
    expect(await pool()).toEqual([0n, 0n, 0n]);
  });

  test("a fee collector that refuses XDC makes XDC funding revert with TransferFailed", async () => {
    // The ROXN token has no receive function: it refuses plain XDC.
    await timelocked(setCollector(contracts.roxn));
    await expectRevert(rewardsAs(manager).write.fundPoolXdc([REPO, 50], { value: 10n * ONE_XDC }), "TransferFailed", [contracts.roxn, ONE_XDC / 20n]);
    expect(await pool()).toEqual([0n, 0n, 0n]);
  });

  test("plain XDC sent to the contract is rejected", async () => {
    const wallet = clients.walletOf(manager);
    await expectRevert(wallet.sendTransaction({ to: contracts.repoRewards, value: ONE_XDC }), "DirectTransferRejected");
    // An unknown function with value falls through to no fallback and reverts too.
    await expect(wallet.sendTransaction({ to: contracts.repoRewards, value: ONE_XDC, data: "0x12345678" })).rejects.toThrow();
    expect(await balanceOf(XDC, contracts.repoRewards)).toBe(0n);
  });
});

describe("allocating bounties", () => {
  test("a manager allocates from the pool; the bounty is Open", async () => {
    await poolWith(XDC, 10n * ONE_XDC);
    const receipt = await mined(await rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, 4n * ONE_XDC]));
    expect(eventArgs(receipt, "BountyAllocated")).toEqual([
      { repoId: REPO, issueNumber: ISSUE, currency: XDC, amount: 4n * ONE_XDC, by: manager.address },
    ]);
    expect(await rewardsAs(outsider).read.getBounty([REPO, ISSUE])).toEqual([XDC, 4n * ONE_XDC, OPEN, zeroAddress]);
    expect(await pool()).toEqual([6n * ONE_XDC, 0n, 0n]);
  });

  test("the operator allocates too; outsiders and other repositories' managers cannot", async () => {
    await poolWith(USDC, 1_000n);
    const receipt = await mined(await rewardsAs(operator).write.allocateBounty([REPO, ISSUE, USDC, 100n]));
    expect(eventArgs(receipt, "BountyAllocated")[0]).toMatchObject({ by: operator.address });
    for (const account of [outsider, otherManager]) {
      await expectRevert(rewardsAs(account).write.allocateBounty([REPO, ISSUE + 1n, USDC, 100n]), "NotPoolManager", [REPO, account.address]);
    }
  });

  test("an unset bounty reads as None", async () => {
    expect(await rewardsAs(outsider).read.getBounty([REPO, 1n])).toEqual([XDC, 0n, NONE, zeroAddress]);
  });

  test("each currency has its minimum: one unit less is refused, the minimum is accepted", async () => {
    for (const currency of [XDC, ROXN, USDC]) {
      const minimum = MINIMUM[currency]!;
      expect(await rewardsAs(outsider).read.minimumBounty([currency])).toBe(minimum);
      await poolWith(currency, 3n * minimum);
      const rewards = rewardsAs(manager);
      const issueNumber = 100n + BigInt(currency);
      await expectRevert(rewards.write.allocateBounty([REPO, issueNumber, currency, minimum - 1n]), "BelowMinimum", [currency, minimum - 1n, minimum]);
      await expectRevert(rewards.write.allocateBounty([REPO, issueNumber, currency, 0n]), "BelowMinimum", [currency, 0n, minimum]);
      await mined(await rewards.write.allocateBounty([REPO, issueNumber, currency, minimum]));
    }
  });

  test("a bounty never exceeds the pool of its currency", async () => {
    const roxnPool = 5n * 10n ** 14n;
    await poolWith(ROXN, roxnPool);
    await poolWith(XDC, 100n * ONE_XDC);
    const rewards = rewardsAs(manager);
    await expectRevert(rewards.write.allocateBounty([REPO, ISSUE, ROXN, roxnPool + 1n]), "InsufficientPool", [REPO, ROXN, roxnPool, roxnPool + 1n]);
    await expectRevert(rewards.write.allocateBounty([REPO, ISSUE, USDC, 100n]), "InsufficientPool", [REPO, USDC, 0n, 100n]);
    await mined(await rewards.write.allocateBounty([REPO, ISSUE, ROXN, roxnPool]));
    expect(await pool()).toEqual([100n * ONE_XDC, 0n, 0n]);
  });

  test("a bounty is final: an Open or Paid bounty cannot be allocated again", async () => {
    await poolWith(XDC, 10n * ONE_XDC);
    const rewards = rewardsAs(manager);
    await mined(await rewards.write.allocateBounty([REPO, ISSUE, XDC, ONE_XDC]));
    await expectRevert(rewards.write.allocateBounty([REPO, ISSUE, XDC, 2n * ONE_XDC]), "BountyExists", [REPO, ISSUE, OPEN]);
    await expectRevert(rewardsAs(operator).write.allocateBounty([REPO, ISSUE, XDC, 2n * ONE_XDC]), "BountyExists", [REPO, ISSUE, OPEN]);
    await mined(await rewards.write.payBounty([REPO, ISSUE, contributor.address]));
    await expectRevert(rewards.write.allocateBounty([REPO, ISSUE, XDC, 2n * ONE_XDC]), "BountyExists", [REPO, ISSUE, PAID]);
    expect(await rewards.read.getBounty([REPO, ISSUE])).toEqual([XDC, ONE_XDC, PAID, contributor.address]);
  });

  test("the same issue number on another repository is another bounty", async () => {
    await poolWith(XDC, 2n * ONE_XDC);
    await fund(XDC, 2n * ONE_XDC, otherManager, OTHER_REPO);
    await mined(await rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, ONE_XDC]));
    await mined(await rewardsAs(otherManager).write.allocateBounty([OTHER_REPO, ISSUE, XDC, ONE_XDC]));
    expect((await rewardsAs(outsider).read.getBounty([OTHER_REPO, ISSUE]))[2]).toBe(OPEN);
  });
});

describe("paying bounties", () => {
  for (const [currency, amount] of [[XDC, 3n * ONE_XDC], [ROXN, 7n * 10n ** 14n], [USDC, 1_234_567n]] as const) {
    test(`pays an open ${["XDC", "ROXN", "USDC"][currency]} bounty once, to one contributor`, async () => {
      await poolWith(currency, amount);
      await mined(await rewardsAs(manager).write.allocateBounty([REPO, ISSUE, currency, amount]));
      const before = await balanceOf(currency, contributor.address);

      const receipt = await mined(await rewardsAs(manager).write.payBounty([REPO, ISSUE, contributor.address]));
      expect(eventArgs(receipt, "BountyPaid")).toEqual([
        { repoId: REPO, issueNumber: ISSUE, currency, amount, contributor: contributor.address, by: manager.address },
      ]);
      expect((await balanceOf(currency, contributor.address)) - before).toBe(amount);
      expect(await balanceOf(currency, contracts.repoRewards)).toBe(0n);
      expect(await rewardsAs(outsider).read.getBounty([REPO, ISSUE])).toEqual([currency, amount, PAID, contributor.address]);

      await expectRevert(rewardsAs(operator).write.payBounty([REPO, ISSUE, contributor.address]), "BountyNotOpen", [REPO, ISSUE, PAID]);
      await expectRevert(rewardsAs(manager).write.payBounty([REPO, ISSUE, treasury.address]), "BountyNotOpen", [REPO, ISSUE, PAID]);
      expect((await balanceOf(currency, contributor.address)) - before).toBe(amount);
    });
  }

  test("the operator pays (a verified merge); outsiders cannot", async () => {
    await poolWith(USDC, 500n);
    await mined(await rewardsAs(manager).write.allocateBounty([REPO, ISSUE, USDC, 500n]));
    await expectRevert(rewardsAs(outsider).write.payBounty([REPO, ISSUE, outsider.address]), "NotPoolManager", [REPO, outsider.address]);
    await expectRevert(rewardsAs(otherManager).write.payBounty([REPO, ISSUE, otherManager.address]), "NotPoolManager", [REPO, otherManager.address]);
    const receipt = await mined(await rewardsAs(operator).write.payBounty([REPO, ISSUE, contributor.address]));
    expect(eventArgs(receipt, "BountyPaid")[0]).toMatchObject({ by: operator.address, contributor: contributor.address });
  });

  test("only an Open bounty is paid, and never to the zero address or the contract", async () => {
    const rewards = rewardsAs(manager);
    await expectRevert(rewards.write.payBounty([REPO, ISSUE, contributor.address]), "BountyNotOpen", [REPO, ISSUE, NONE]);
    await poolWith(XDC, ONE_XDC);
    await mined(await rewards.write.allocateBounty([REPO, ISSUE, XDC, ONE_XDC]));
    await expectRevert(rewards.write.payBounty([REPO, ISSUE, zeroAddress]), "ZeroAddress");
    await expectRevert(rewards.write.payBounty([REPO, ISSUE, contracts.repoRewards]), "InvalidRecipient", [contracts.repoRewards]);
    await mined(await rewards.write.cancelBounty([REPO, ISSUE]));
    await expectRevert(rewards.write.payBounty([REPO, ISSUE, contributor.address]), "BountyNotOpen", [REPO, ISSUE, CANCELLED]);
  });

  test("a recipient that refuses XDC gets TransferFailed and the bounty stays Open", async () => {
    await poolWith(XDC, ONE_XDC);
    await mined(await rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, ONE_XDC]));
    await expectRevert(rewardsAs(manager).write.payBounty([REPO, ISSUE, contracts.roxn]), "TransferFailed", [contracts.roxn, ONE_XDC]);
    expect(await rewardsAs(outsider).read.getBounty([REPO, ISSUE])).toEqual([XDC, ONE_XDC, OPEN, zeroAddress]);
  });

  test("a re-entering recipient is stopped by the reentrancy guard", async () => {
    // The recipient is a pool manager contract that tries to take a second bounty while being paid.
    await poolWith(XDC, 2n * ONE_XDC);
    const attacker = await deployReenterer(REPO, ISSUE + 1n);
    await mined(await rewardsAs(operator).write.addPoolManager([REPO, attacker]));
    await mined(await rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, ONE_XDC]));
    await mined(await rewardsAs(manager).write.allocateBounty([REPO, ISSUE + 1n, XDC, ONE_XDC]));

    await mined(await rewardsAs(manager).write.payBounty([REPO, ISSUE, attacker]));
    const { publicClient } = clients;
    const innerError = await publicClient.readContract({ address: attacker, abi: REENTERER_ABI, functionName: "innerError" });
    expect(innerError).toBe(toFunctionSelector("ReentrancyGuardReentrantCall()"));
    expect(await publicClient.getBalance({ address: attacker })).toBe(ONE_XDC);
    expect((await rewardsAs(outsider).read.getBounty([REPO, ISSUE + 1n]))[2]).toBe(OPEN);
  });
});

describe("cancelling bounties", () => {
  test("cancelling returns the amount to the pool; the issue can then get a new bounty", async () => {
    await poolWith(XDC, 5n * ONE_XDC);
    await poolWith(USDC, 300n);
    const rewards = rewardsAs(manager);
    await mined(await rewards.write.allocateBounty([REPO, ISSUE, XDC, 2n * ONE_XDC]));
    const receipt = await mined(await rewardsAs(operator).write.cancelBounty([REPO, ISSUE]));
    expect(eventArgs(receipt, "BountyCancelled")).toEqual([
      { repoId: REPO, issueNumber: ISSUE, currency: XDC, amount: 2n * ONE_XDC, by: operator.address },
    ]);
    expect(await pool()).toEqual([5n * ONE_XDC, 0n, 300n]);
    expect(await rewards.read.getBounty([REPO, ISSUE])).toEqual([XDC, 2n * ONE_XDC, CANCELLED, zeroAddress]);

    await mined(await rewards.write.allocateBounty([REPO, ISSUE, USDC, 300n]));
    expect(await rewards.read.getBounty([REPO, ISSUE])).toEqual([USDC, 300n, OPEN, zeroAddress]);
    expect(await pool()).toEqual([5n * ONE_XDC, 0n, 0n]);
  });

  test("only an Open bounty is cancelled, only by its managers or the operator", async () => {
    const rewards = rewardsAs(manager);
    await expectRevert(rewards.write.cancelBounty([REPO, ISSUE]), "BountyNotOpen", [REPO, ISSUE, NONE]);
    await poolWith(XDC, 2n * ONE_XDC);
    await mined(await rewards.write.allocateBounty([REPO, ISSUE, XDC, ONE_XDC]));
    await expectRevert(rewardsAs(outsider).write.cancelBounty([REPO, ISSUE]), "NotPoolManager", [REPO, outsider.address]);
    await expectRevert(rewardsAs(otherManager).write.cancelBounty([REPO, ISSUE]), "NotPoolManager", [REPO, otherManager.address]);
    await mined(await rewards.write.cancelBounty([REPO, ISSUE]));
    await expectRevert(rewards.write.cancelBounty([REPO, ISSUE]), "BountyNotOpen", [REPO, ISSUE, CANCELLED]);
    await mined(await rewards.write.allocateBounty([REPO, ISSUE, XDC, ONE_XDC]));
    await mined(await rewards.write.payBounty([REPO, ISSUE, contributor.address]));
    await expectRevert(rewards.write.cancelBounty([REPO, ISSUE]), "BountyNotOpen", [REPO, ISSUE, PAID]);
  });
});

describe("withdrawing from a pool", () => {
  test("a manager withdraws unallocated money to any address", async () => {
    await poolWith(ROXN, 10n ** 18n);
    const before = await balanceOf(ROXN, treasury.address);
    const receipt = await mined(await rewardsAs(manager).write.withdrawPool([REPO, ROXN, 4n * 10n ** 17n, treasury.address]));
    expect(eventArgs(receipt, "PoolWithdrawn")).toEqual([
      { repoId: REPO, currency: ROXN, amount: 4n * 10n ** 17n, to: treasury.address, by: manager.address },
    ]);
    expect((await balanceOf(ROXN, treasury.address)) - before).toBe(4n * 10n ** 17n);
    expect(await pool()).toEqual([0n, 6n * 10n ** 17n, 0n]);
  });

  test("XDC withdrawals reach the recipient", async () => {
    await poolWith(XDC, 3n * ONE_XDC);
    const before = await balanceOf(XDC, treasury.address);
    await mined(await rewardsAs(manager).write.withdrawPool([REPO, XDC, 3n * ONE_XDC, treasury.address]));
    expect((await balanceOf(XDC, treasury.address)) - before).toBe(3n * ONE_XDC);
    expect(await balanceOf(XDC, contracts.repoRewards)).toBe(0n);
  });

  test("only unallocated money can be withdrawn", async () => {
    await poolWith(USDC, 1_000n);
    const rewards = rewardsAs(manager);
    await mined(await rewards.write.allocateBounty([REPO, ISSUE, USDC, 600n]));
    await expectRevert(rewards.write.withdrawPool([REPO, USDC, 401n, treasury.address]), "InsufficientPool", [REPO, USDC, 400n, 401n]);
    await mined(await rewards.write.withdrawPool([REPO, USDC, 400n, treasury.address]));
    expect(await balanceOf(USDC, contracts.repoRewards)).toBe(600n);
  });

  test("the operator, the guardian, the admin, outsiders and other repositories' managers cannot withdraw", async () => {
    await poolWith(XDC, ONE_XDC);
    for (const account of [operator, outsider, otherManager, admin, guardian]) {
      await expectRevert(rewardsAs(account).write.withdrawPool([REPO, XDC, ONE_XDC, account.address]), "NotPoolManager", [REPO, account.address]);
    }
  });

  test("zero amounts, the zero address and the contract itself are refused", async () => {
    await poolWith(XDC, ONE_XDC);
    const rewards = rewardsAs(manager);
    await expectRevert(rewards.write.withdrawPool([REPO, XDC, 0n, treasury.address]), "ZeroAmount");
    await expectRevert(rewards.write.withdrawPool([REPO, XDC, ONE_XDC, zeroAddress]), "ZeroAddress");
    await expectRevert(rewards.write.withdrawPool([REPO, XDC, ONE_XDC, contracts.repoRewards]), "InvalidRecipient", [contracts.repoRewards]);
  });
});

describe("pausing", () => {
  test("while paused no money moves; unpausing restores everything", async () => {
    await poolWith(XDC, 3n * ONE_XDC);
    await mined(await rewardsAs(manager).write.allocateBounty([REPO, ISSUE, XDC, ONE_XDC]));
    const paused = await mined(await rewardsAs(admin).write.pause());
    expect(parseEventLogs({ abi: RepoRewardsAbi, logs: paused.logs, eventName: "Paused" })[0]?.args).toEqual({ account: admin.address });
    await expectRevert(rewardsAs(admin).write.pause(), "EnforcedPause");

    for (const account of [manager, operator]) {
      const rewards = rewardsAs(account);
      await expectRevert(rewards.write.fundPoolXdc([REPO, 50], { value: ONE_XDC }), "EnforcedPause");
      await expectRevert(rewards.write.fundPoolToken([REPO, USDC, 1_000n, 50]), "EnforcedPause");
      await expectRevert(rewards.write.allocateBounty([REPO, ISSUE + 1n, XDC, ONE_XDC]), "EnforcedPause");
      await expectRevert(rewards.write.payBounty([REPO, ISSUE, contributor.address]), "EnforcedPause");
      await expectRevert(rewards.write.cancelBounty([REPO, ISSUE]), "EnforcedPause");
    }
    await expectRevert(rewardsAs(manager).write.withdrawPool([REPO, XDC, ONE_XDC, treasury.address]), "EnforcedPause");
    expect(await rewardsAs(outsider).read.getPool([REPO])).toEqual([2n * ONE_XDC, 0n, 0n]);

    const unpaused = await mined(await rewardsAs(admin).write.unpause());
    expect(parseEventLogs({ abi: RepoRewardsAbi, logs: unpaused.logs, eventName: "Unpaused" })[0]?.args).toEqual({ account: admin.address });
    await expectRevert(rewardsAs(admin).write.unpause(), "ExpectedPause");
    await mined(await rewardsAs(operator).write.payBounty([REPO, ISSUE, contributor.address]));
  });
});

const REENTERER_SOURCE = `
pragma solidity ^0.8.28;
interface IRepoRewards { function payBounty(uint256 repoId, uint256 issueNumber, address contributor) external; }
contract Reenterer {
    IRepoRewards private immutable rewards;
    uint256 private immutable repoId;
    uint256 private immutable issueNumber;
    bytes public innerError;
    constructor(IRepoRewards rewards_, uint256 repoId_, uint256 issueNumber_) {
        rewards = rewards_; repoId = repoId_; issueNumber = issueNumber_;
    }
    receive() external payable {
        try rewards.payBounty(repoId, issueNumber, address(this)) {} catch (bytes memory reason) { innerError = reason; }
    }
}`;

const REENTERER_ABI = [
  { type: "function", name: "innerError", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "bytes" }] },
] as const;

/** A test-only attacker, compiled here so it never ships with the contracts. */
async function deployReenterer(repoId: bigint, issueNumber: bigint): Promise<Address> {
  const input = {
    language: "Solidity",
    sources: { "Reenterer.sol": { content: REENTERER_SOURCE } },
    settings: { evmVersion: "paris", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const compiled = output.contracts["Reenterer.sol"].Reenterer;
  const { publicClient, walletOf } = clients;
  const hash = await walletOf(admin).deployContract({
    abi: compiled.abi as Abi,
    bytecode: `0x${compiled.evm.bytecode.object}`,
    args: [contracts.repoRewards, repoId, issueNumber],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  return receipt.contractAddress!;
}
