/**
 * The audit of issue 19 as regression tests: what a stolen key can do to
 * RepoRewards v2, measured on a real anvil. A stolen operator key, in one
 * block and over a day, moves at most the caps (per currency, per repository
 * and in total); the rest is queued, and the guardian cancels it. A stolen
 * manager key cannot take a claimed bounty. The admin cannot take funds
 * without the timelock. The guardian pauses and cancels but moves nothing.
 * Managers a revoked operator appointed are removed. Hostile recipients
 * (reverting, re-entering, burning gas, returning huge data) block nobody and
 * overcharge nobody. Delays pass by moving anvil's clock, never by sleeping.
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
  encodeFunctionData,
  getContract,
  http,
  keccak256,
  maxUint256,
  parseEventLogs,
  toHex,
  type Abi,
  type Account,
  type Address,
  type Hash,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { anvil as anvilChain } from "viem/chains";
import { RepoRewardsAbi, TestUsdcAbi } from "./artifacts/index.ts";
import { deployContracts, type OutflowCaps } from "../scripts/deploy-contracts.ts";
import { anvilAccounts, startAnvil, type Anvil } from "../scripts/lib/anvil.ts";

const CURRENCIES = [0, 1, 2] as const;
const NAMES = ["XDC", "ROXN", "USDC"] as const;
const UNIT = [10n ** 18n, 10n ** 18n, 10n ** 6n] as const;
const [OPEN, PAID, QUEUED] = [1, 2, 4];
const REPOS = [11n, 22n, 33n] as const;
const HOUR = 3600;
const DAY = 24 * HOUR;
const ADMIN_DELAY = 2 * DAY;
const OPERATOR_ROLE = keccak256(toHex("OPERATOR_ROLE"));
/** Caps of this suite, per currency: 100 units per repository, 250 in total, per rolling day. */
const CAPS: OutflowCaps = {
  XDC: { perRepo: 100n * UNIT[0], total: 250n * UNIT[0] },
  ROXN: { perRepo: 100n * UNIT[1], total: 250n * UNIT[1] },
  USDC: { perRepo: 100n * UNIT[2], total: 250n * UNIT[2] },
};
const perRepoCap = (c: number) => 100n * UNIT[c]!;
const totalCap = (c: number) => 250n * UNIT[c]!;
/** Each repository's pool per currency: far above the caps. */
const POOL = (c: number) => 1_000n * UNIT[c]!;

const [deployer, operator, feeCollector, admin, guardian, manager, attacker, contributor, bystander] = anvilAccounts(9) as [
  Account, Account, Account, Account, Account, Account, Account, Account, Account,
];

let chain: Anvil;
let dataDir: string;
let contracts: { roxn: Address; usdc: Address; repoRewards: Address };
let snapshot: Hex;
const transport = () => http(chain.rpcUrl);
const publicClient = () => createPublicClient({ chain: anvilChain, transport: transport(), pollingInterval: 50 });
const testClient = () => createTestClient({ chain: anvilChain, mode: "anvil", transport: transport() });
const walletOf = (account: Account) => createWalletClient({ account, chain: anvilChain, transport: transport() });
const rewardsAs = (account: Account) =>
  getContract({ address: contracts.repoRewards, abi: RepoRewardsAbi, client: { public: publicClient(), wallet: walletOf(account) } });
const tokenAt = (currency: number) => (currency === 1 ? contracts.roxn : contracts.usdc);
const tokenAs = (currency: number, account: Account) =>
  getContract({ address: tokenAt(currency), abi: TestUsdcAbi, client: { public: publicClient(), wallet: walletOf(account) } });

async function mined(hash: Hash): Promise<TransactionReceipt> {
  const receipt = await publicClient().waitForTransactionReceipt({ hash });
  // Used all its gas: out of gas; less: the contract refused it.
  if (receipt.status !== "success") {
    const { gas } = await publicClient().getTransaction({ hash });
    throw new Error(`${hash} reverted, gas used ${receipt.gasUsed} of ${gas}`);
  }
  return receipt;
}

async function revertName(action: Promise<unknown>): Promise<string | undefined> {
  const error = await action.then(() => null, (err: unknown) => err);
  expect(error).toBeInstanceOf(BaseError);
  const decoded = (error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  return decoded?.data?.errorName;
}

async function balanceOf(currency: number, address: Address): Promise<bigint> {
  return currency === 0 ? publicClient().getBalance({ address }) : tokenAs(currency, deployer).read.balanceOf([address]);
}

async function balancesOf(address: Address): Promise<bigint[]> {
  return Promise.all(CURRENCIES.map((c) => balanceOf(c, address)));
}

async function passTime(seconds: number): Promise<void> {
  await testClient().increaseTime({ seconds });
  await testClient().mine({ blocks: 1 });
}

/** Sends every transaction into the mempool with mining off, then mines them all in one block. */
async function inOneBlock(send: () => Promise<Hash[]>): Promise<TransactionReceipt[]> {
  await testClient().setAutomine(false);
  let hashes: Hash[];
  try {
    hashes = await send();
    await testClient().mine({ blocks: 1 });
  } finally {
    await testClient().setAutomine(true);
  }
  const receipts = await Promise.all(hashes.map((hash) => publicClient().waitForTransactionReceipt({ hash })));
  expect(new Set(receipts.map((r) => r.blockNumber)).size).toBe(1);
  return receipts;
}

function events(receipts: TransactionReceipt[], eventName: string) {
  return receipts.flatMap((r) => parseEventLogs({ abi: RepoRewardsAbi, logs: r.logs }).filter((l) => l.eventName === eventName).map((l) => l.args as Record<string, unknown>));
}

async function fundAll(): Promise<void> {
  for (const repoId of REPOS) {
    await mined(await rewardsAs(manager).write.fundPoolXdc([repoId, 50], { value: (POOL(0) * 10_000n) / 9_950n + 1n }));
    for (const c of [1, 2]) await mined(await rewardsAs(manager).write.fundPoolToken([repoId, c, (POOL(c) * 10_000n) / 9_950n + 1n, 50]));
  }
}

/**
 * Everything a stolen operator key can try against every pool in one go:
 * allocate the whole pool to an unused issue and pay it to itself, and pay
 * every open bounty to itself. Gas is given, so nothing is estimated against
 * a block that does not hold the earlier transactions yet.
 */
async function drainAttempt(round: number): Promise<Hash[]> {
  const thief = rewardsAs(operator);
  const hashes: Hash[] = [];
  for (const repoId of REPOS) {
    const [xdc, roxn, usdc] = await thief.read.getPool([repoId]);
    const pools = [xdc, roxn, usdc];
    for (const c of CURRENCIES) {
      if (pools[c]! < UNIT[c]!) continue;
      const issue = 10_000n + BigInt(round * 10 + c);
      hashes.push(await thief.write.allocateBounty([repoId, issue, c, pools[c]!], { gas: 300_000n }));
      hashes.push(await thief.write.payBounty([repoId, issue, attacker.address], { gas: 400_000n }));
    }
  }
  return hashes;
}

beforeAll(async () => {
  chain = await startAnvil({ balanceEther: 10_000_000 });
  dataDir = mkdtempSync(join(tmpdir(), "issuepool-adversarial-"));
  contracts = await deployContracts({
    rpcUrl: chain.rpcUrl,
    chain: anvilChain,
    deployer,
    admin: admin.address,
    guardian: guardian.address,
    operator: operator.address,
    feeCollector: feeCollector.address,
    // What production runs with: an operator's appointment waits a day.
    managerDelaySeconds: DAY,
    caps: CAPS,
    deploymentsFile: join(dataDir, "deployments.json"),
  });
  for (const repoId of REPOS) await mined(await rewardsAs(operator).write.addPoolManager([repoId, manager.address]));
  await passTime(DAY);
  for (const repoId of REPOS) await mined(await rewardsAs(operator).write.addPoolManager([repoId, manager.address]));
  for (const c of [1, 2]) {
    await mined(await tokenAs(c, deployer).write.mint([manager.address, 10n ** 24n]));
    await mined(await tokenAs(c, manager).write.approve([contracts.repoRewards, maxUint256]));
  }
  await fundAll();
}, 120_000);

afterAll(async () => {
  await chain?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  snapshot = await testClient().snapshot();
});

afterEach(async () => {
  await testClient().revert({ id: snapshot });
});

describe("a stolen operator key", () => {
  test("in one block moves at most the caps out, in each currency; the rest is queued and the guardian cancels it", async () => {
    const before = await balancesOf(attacker.address);
    const receipts = await inOneBlock(() => drainAttempt(0));
    const taken = (await balancesOf(attacker.address)).map((b, c) => b - before[c]!);

    const paid = events(receipts, "BountyPaid");
    for (const c of CURRENCIES) {
      expect(taken[c]).toBeLessThanOrEqual(totalCap(c));
      for (const repoId of REPOS) {
        const fromRepo = paid.filter((p) => p.repoId === repoId && p.currency === c).reduce((sum, p) => sum + (p.amount as bigint), 0n);
        expect(fromRepo).toBeLessThanOrEqual(perRepoCap(c));
      }
    }
    // Each pool's whole balance was tried in one payout, over the per-repository cap: all of it is queued, nothing left.
    const queued = events(receipts, "OutflowQueued");
    expect(paid).toEqual([]);
    expect(queued).toHaveLength(REPOS.length * CURRENCIES.length);
    expect(taken).toEqual([0n, 0n, 0n]);
    console.log(`one block, stolen operator key: took ${taken.map((t, c) => `${t / UNIT[c]!} ${NAMES[c]}`).join(", ")}; queued ${queued.length} outflows`);

    // The guardian cancels every queued outflow (even while paused): the money is back in the bounties.
    await mined(await rewardsAs(guardian).write.pause());
    for (const q of queued) await mined(await rewardsAs(guardian).write.cancelOutflow([q.id as bigint]));
    await passTime(3 * DAY);
    await mined(await rewardsAs(admin).write.unpause());
    for (const q of queued) expect(await revertName(rewardsAs(attacker).write.executeOutflow([q.id as bigint]))).toBe("UnknownOutflow");
    expect(await balancesOf(attacker.address)).toEqual(before);
  });

  test("in one block, payouts just under the caps: at most the per-repository and total caps, the rest queued", async () => {
    // Smaller bounties: 40 units each, so the caps (100 per repository, 250 in total) are what stops them.
    const thief = rewardsAs(operator);
    const before = await balancesOf(attacker.address);
    const receipts = await inOneBlock(async () => {
      const hashes: Hash[] = [];
      for (const repoId of REPOS) {
        for (const c of CURRENCIES) {
          for (let k = 0n; k < 4n; k++) {
            const issue = 20_000n + BigInt(c) * 10n + k;
            hashes.push(await thief.write.allocateBounty([repoId, issue, c, 40n * UNIT[c]!], { gas: 300_000n }));
            hashes.push(await thief.write.payBounty([repoId, issue, attacker.address], { gas: 400_000n }));
          }
        }
      }
      return hashes;
    });
    const taken = (await balancesOf(attacker.address)).map((b, c) => b - before[c]!);
    const paid = events(receipts, "BountyPaid");
    for (const c of CURRENCIES) {
      // Two 40-unit payouts fit each repository's 100; three repositories' 240 fit the 250 in total.
      expect(taken[c]).toBe(240n * UNIT[c]!);
      expect(taken[c]).toBeLessThanOrEqual(totalCap(c));
      for (const repoId of REPOS) {
        const fromRepo = paid.filter((p) => p.repoId === repoId && p.currency === c).reduce((sum, p) => sum + (p.amount as bigint), 0n);
        expect(fromRepo).toBe(80n * UNIT[c]!);
      }
    }
    expect(events(receipts, "OutflowQueued")).toHaveLength(REPOS.length * CURRENCIES.length * 2);
    console.log(`one block, 40-unit payouts: took ${taken.map((t, c) => `${t / UNIT[c]!} ${NAMES[c]}`).join(", ")}`);
  });

  test("for a whole day, trying every hour, moves at most the caps per rolling day; then still only a cap a day", async () => {
    const thief = rewardsAs(operator);
    const before = await balancesOf(attacker.address);
    const takenBy = async () => (await balancesOf(attacker.address)).map((b, c) => b - before[c]!);
    let issue = 30_000n;
    const payEachHour = async () => {
      for (const repoId of REPOS) {
        for (const c of CURRENCIES) {
          issue += 1n;
          // 30 units a try: small enough to pass the caps whenever there is room. Gas given, not estimated: the
          // estimate is taken on a pending block whose time can fall before a rolling window's end while the
          // mined block falls after it (one more storage write), and a loaded machine widens that gap.
          await mined(await thief.write.allocateBounty([repoId, issue, c, 30n * UNIT[c]!], { gas: 300_000n }));
          await mined(await thief.write.payBounty([repoId, issue, attacker.address], { gas: 400_000n }));
        }
      }
    };
    for (let hour = 0; hour < 24; hour++) {
      await payEachHour();
      await passTime(HOUR - 5);
    }
    const firstDay = await takenBy();
    for (const c of CURRENCIES) expect(firstDay[c]).toBeLessThanOrEqual(totalCap(c));
    // The queued rest is visible, and due only after QUEUE_DELAY: the guardian's window.
    const next = await thief.read.nextOutflowId();
    expect(next).toBeGreaterThan(0n);
    expect(await revertName(rewardsAs(attacker).write.executeOutflow([next]))).toBe("NotReady");

    await passTime(DAY);
    for (let hour = 0; hour < 3; hour++) {
      await payEachHour();
      await passTime(HOUR);
    }
    const twoDays = await takenBy();
    for (const c of CURRENCIES) expect(twoDays[c]).toBeLessThanOrEqual(2n * totalCap(c));
    console.log(
      `a day, stolen operator key: took ${firstDay.map((t, c) => `${t / UNIT[c]!} ${NAMES[c]}`).join(", ")}; two days: ${twoDays.map((t, c) => `${t / UNIT[c]!} ${NAMES[c]}`).join(", ")}`,
    );
  }, 120_000);

  test("cannot appoint itself pool manager at once, and cannot withdraw a pool", async () => {
    const proposed = await mined(await rewardsAs(operator).write.addPoolManager([REPOS[0], attacker.address]));
    expect(events([proposed], "PoolManagerProposed")).toHaveLength(1);
    expect(await rewardsAs(attacker).read.isPoolManager([REPOS[0], attacker.address])).toBe(false);
    expect(await revertName(rewardsAs(operator).write.addPoolManager([REPOS[0], attacker.address]))).toBe("NotReady");
    expect(await revertName(rewardsAs(attacker).write.withdrawPool([REPOS[0], 0, UNIT[0], attacker.address]))).toBe("NotPoolManager");
    expect(await revertName(rewardsAs(operator).write.withdrawPool([REPOS[0], 0, UNIT[0], attacker.address]))).toBe("NotPoolManager");
    // The real managers stay: the operator cannot lock them out while paused, and the admin removes the proposal.
    await mined(await rewardsAs(admin).write.removePoolManager([REPOS[0], attacker.address]));
    await passTime(DAY);
    expect(await rewardsAs(attacker).read.pendingPoolManager([REPOS[0], attacker.address])).toBe(0n);
    expect(await rewardsAs(attacker).read.poolManagers([REPOS[0]])).toEqual([manager.address]);
  });

  test("revoked, the managers it appointed are removed by the admin, even while paused", async () => {
    await mined(await rewardsAs(operator).write.addPoolManager([REPOS[1], attacker.address]));
    await passTime(DAY);
    await mined(await rewardsAs(operator).write.addPoolManager([REPOS[1], attacker.address]));
    expect(await rewardsAs(attacker).read.poolManagers([REPOS[1]])).toEqual([manager.address, attacker.address]);

    await mined(await rewardsAs(guardian).write.pause());
    await mined(await rewardsAs(admin).write.revokeRole([OPERATOR_ROLE, operator.address]));
    expect(await revertName(rewardsAs(operator).write.removePoolManager([REPOS[1], manager.address]))).toBe("AccessControlUnauthorizedAccount");
    await mined(await rewardsAs(admin).write.removePoolManager([REPOS[1], attacker.address]));
    expect(await rewardsAs(attacker).read.poolManagers([REPOS[1]])).toEqual([manager.address]);
    // No manager changes by an operator while paused.
    const grant = encodeFunctionData({ abi: RepoRewardsAbi, functionName: "grantRole", args: [OPERATOR_ROLE, bystander.address] });
    await mined(await rewardsAs(admin).write.schedule([grant]));
    await passTime(ADMIN_DELAY);
    await mined(await walletOf(admin).sendTransaction({ to: contracts.repoRewards, data: grant }));
    expect(await revertName(rewardsAs(bystander).write.addPoolManager([REPOS[1], bystander.address]))).toBe("EnforcedPause");
    expect(await revertName(rewardsAs(bystander).write.removePoolManager([REPOS[1], manager.address]))).toBe("EnforcedPause");
  });
});

describe("a stolen manager key", () => {
  test("cannot take a claimed bounty: not to itself, not by cancelling it; the merged fix is still paid", async () => {
    const [repoId] = REPOS;
    const issue = 7n;
    await mined(await rewardsAs(manager).write.allocateBounty([repoId, issue, 0, 50n * UNIT[0]]));
    await mined(await rewardsAs(operator).write.claimBounty([repoId, issue, contributor.address]));
    expect(await rewardsAs(manager).read.claimants([repoId, issue])).toEqual([contributor.address]);

    expect(await revertName(rewardsAs(manager).write.payBounty([repoId, issue, attacker.address]))).toBe("NotClaimant");
    // Cancelling a claimed bounty only requests the refund, visibly; it cannot run before CLAIM_CANCEL_DELAY.
    const requested = await mined(await rewardsAs(manager).write.cancelBounty([repoId, issue]));
    expect(events([requested], "BountyCancelRequested")).toHaveLength(1);
    expect((await rewardsAs(manager).read.getBounty([repoId, issue]))[2]).toBe(OPEN);
    await passTime(2 * DAY);
    expect(await revertName(rewardsAs(manager).write.cancelBounty([repoId, issue]))).toBe("NotReady");

    // Meanwhile the pull request is merged: the operator pays the contributor; the refund is void.
    const before = await balanceOf(0, contributor.address);
    await mined(await rewardsAs(operator).write.payBounty([repoId, issue, contributor.address]));
    expect((await balanceOf(0, contributor.address)) - before).toBe(50n * UNIT[0]);
    await passTime(2 * DAY);
    expect(await revertName(rewardsAs(manager).write.cancelBounty([repoId, issue]))).toBe("BountyNotOpen");
  });

  test("a claimed bounty nobody pays is refunded to the pool after the delay, and only then withdrawable within the caps", async () => {
    const [repoId] = REPOS;
    await mined(await rewardsAs(manager).write.allocateBounty([repoId, 8n, 2, 50n * UNIT[2]]));
    await mined(await rewardsAs(operator).write.claimBounty([repoId, 8n, contributor.address]));
    await mined(await rewardsAs(manager).write.cancelBounty([repoId, 8n]));
    await passTime(3 * DAY);
    const cancelled = await mined(await rewardsAs(manager).write.cancelBounty([repoId, 8n]));
    expect(events([cancelled], "BountyCancelled")).toHaveLength(1);

    const before = await balanceOf(2, attacker.address);
    const [, , usdcPool] = await rewardsAs(manager).read.getPool([repoId]);
    const receipt = await mined(await rewardsAs(manager).write.withdrawPool([repoId, 2, usdcPool, attacker.address]));
    expect(events([receipt], "OutflowQueued")).toHaveLength(1);
    expect((await balanceOf(2, attacker.address)) - before).toBe(0n);
  });
});

describe("the admin", () => {
  test("cannot take funds without the timelock", async () => {
    const asAdmin = rewardsAs(admin);
    expect(await revertName(asAdmin.write.withdrawPool([REPOS[0], 0, UNIT[0], admin.address]))).toBe("NotPoolManager");
    expect(await revertName(asAdmin.write.payBounty([REPOS[0], 1n, admin.address]))).toBe("NotPoolManager");
    expect(await revertName(asAdmin.write.allocateBounty([REPOS[0], 1n, 0, UNIT[0]]))).toBe("NotPoolManager");
    expect(await revertName(asAdmin.write.addPoolManager([REPOS[0], admin.address]))).toBe("NotScheduled");
    expect(await revertName(asAdmin.write.grantRole([OPERATOR_ROLE, admin.address]))).toBe("NotScheduled");
    expect(await revertName(asAdmin.write.setCaps([0, 10n ** 25n, 10n ** 25n]))).toBe("NotScheduled");
    // Nothing above what is owed: the sweep has nothing to move.
    expect(await revertName(asAdmin.write.sweepExcess([0, admin.address]))).toBe("ZeroAmount");
    expect(await revertName(asAdmin.write.sweepExcess([1, admin.address]))).toBe("ZeroAmount");
    // A scheduled grant is public for ADMIN_DELAY, and the guardian can drop it.
    const grant = encodeFunctionData({ abi: RepoRewardsAbi, functionName: "grantRole", args: [OPERATOR_ROLE, admin.address] });
    await mined(await asAdmin.write.schedule([grant]));
    await passTime(ADMIN_DELAY - 60);
    expect(await revertName(asAdmin.write.grantRole([OPERATOR_ROLE, admin.address]))).toBe("NotReady");
    await mined(await rewardsAs(guardian).write.cancelScheduled([keccak256(grant)]));
    await passTime(120);
    expect(await revertName(asAdmin.write.grantRole([OPERATOR_ROLE, admin.address]))).toBe("NotScheduled");
  });

  test("sweeps only what was forced in above what is owed, per currency", async () => {
    const held = await balancesOf(contracts.repoRewards);
    const owed = await Promise.all(CURRENCIES.map((c) => rewardsAs(admin).read.owed([c])));
    expect(held).toEqual(owed);
    await testClient().setBalance({ address: contracts.repoRewards, value: held[0]! + 7n * UNIT[0] });
    await mined(await tokenAs(2, deployer).write.mint([contracts.repoRewards, 3n * UNIT[2]]));
    const before = await balancesOf(bystander.address);
    await mined(await rewardsAs(admin).write.sweepExcess([0, bystander.address]));
    await mined(await rewardsAs(admin).write.sweepExcess([2, bystander.address]));
    const gained = (await balancesOf(bystander.address)).map((b, c) => b - before[c]!);
    expect(gained).toEqual([7n * UNIT[0], 0n, 3n * UNIT[2]]);
    expect(await balancesOf(contracts.repoRewards)).toEqual(owed);
    expect(await revertName(rewardsAs(admin).write.sweepExcess([0, bystander.address]))).toBe("ZeroAmount");
  });
});

describe("the guardian", () => {
  test("pauses at once and cancels queued outflows, but moves nothing", async () => {
    const g = rewardsAs(guardian);
    const receipt = await mined(await rewardsAs(manager).write.withdrawPool([REPOS[0], 1, 500n * UNIT[1], manager.address]));
    const [queued] = events([receipt], "OutflowQueued");
    const refused: [string, () => Promise<unknown>][] = [
      ["NotPoolManager", () => g.write.withdrawPool([REPOS[0], 0, UNIT[0], guardian.address])],
      ["NotPoolManager", () => g.write.payBounty([REPOS[0], 1n, guardian.address])],
      ["NotPoolManager", () => g.write.allocateBounty([REPOS[0], 1n, 0, UNIT[0]])],
      ["AccessControlUnauthorizedAccount", () => g.write.sweepExcess([0, guardian.address])],
      ["AccessControlUnauthorizedAccount", () => g.write.unpause()],
      ["AccessControlUnauthorizedAccount", () => g.write.grantRole([OPERATOR_ROLE, guardian.address])],
      ["AccessControlUnauthorizedAccount", () => g.write.schedule(["0x"])],
      ["AccessControlUnauthorizedAccount", () => g.write.addPoolManager([REPOS[0], guardian.address])],
      ["NotReady", () => g.write.executeOutflow([queued!.id as bigint])],
    ];
    for (const [error, attempt] of refused) expect(await revertName(attempt())).toBe(error);
    await mined(await g.write.pause());
    expect(await revertName(g.write.unpause())).toBe("AccessControlUnauthorizedAccount");
    const before = await balancesOf(guardian.address);
    const [, roxnBefore] = await g.read.getPool([REPOS[0]]);
    await mined(await g.write.cancelOutflow([queued!.id as bigint]));
    const [, roxnAfter] = await g.read.getPool([REPOS[0]]);
    expect(roxnAfter - roxnBefore).toBe(500n * UNIT[1]);
    // Only gas left the guardian's account: no token arrived, no XDC beyond gas.
    const after = await balancesOf(guardian.address);
    expect(after[1]).toBe(before[1]);
    expect(after[2]).toBe(before[2]);
    expect(after[0]! <= before[0]!).toBe(true);
  });
});

describe("hostile recipients", () => {
  /** Modes: 0 reverts, 1 burns all gas, 2 returns 40 KB of data, 3 re-enters payBounty. */
  async function hostile(mode: number, repoId: bigint, issue: bigint): Promise<Address> {
    const source = `
pragma solidity ^0.8.28;
interface IRepoRewards { function payBounty(uint256 repoId, uint256 issueNumber, address contributor) external; }
contract Hostile {
    uint256 private immutable mode; IRepoRewards private immutable rewards; uint256 private immutable repoId; uint256 private immutable issue;
    bool public reentered;
    constructor(uint256 m, IRepoRewards r, uint256 id, uint256 i) { mode = m; rewards = r; repoId = id; issue = i; }
    receive() external payable {
        if (mode == 0) revert("no");
        if (mode == 1) { while (true) {} }
        if (mode == 2) { assembly { return(0, 40000) } }
        try rewards.payBounty(repoId, issue, address(this)) { reentered = true; } catch {}
    }
}`;
    const input = { language: "Solidity", sources: { "Hostile.sol": { content: source } }, settings: { evmVersion: "paris", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } } };
    const compiled = JSON.parse(solc.compile(JSON.stringify(input))).contracts["Hostile.sol"].Hostile;
    const hash = await walletOf(deployer).deployContract({ abi: compiled.abi as Abi, bytecode: `0x${compiled.evm.bytecode.object}`, args: [BigInt(mode), contracts.repoRewards, repoId, issue] });
    return (await publicClient().waitForTransactionReceipt({ hash })).contractAddress!;
  }

  async function payoutTo(to: Address, issue: bigint): Promise<{ error?: string; gasUsed?: bigint }> {
    const [repoId] = REPOS;
    await mined(await rewardsAs(operator).write.allocateBounty([repoId, issue, 0, 5n * UNIT[0]]));
    try {
      const receipt = await publicClient().waitForTransactionReceipt({
        hash: await rewardsAs(operator).write.payBounty([repoId, issue, to], { gas: 2_000_000n }),
      });
      return receipt.status === "success" ? { gasUsed: receipt.gasUsed } : { error: "reverted", gasUsed: receipt.gasUsed };
    } catch (err) {
      return { error: (err as BaseError).shortMessage };
    }
  }

  test("revert, burn gas, huge return data or re-entry: bounded gas, and nobody else is blocked", async () => {
    const [repoId] = REPOS;
    const plain = await payoutTo(contributor.address, 100n);
    expect(plain.error).toBeUndefined();

    const reverting = await hostile(0, repoId, 0n);
    const reverted = await payoutTo(reverting, 101n);
    expect(reverted.error).toBeDefined();
    expect((await rewardsAs(operator).read.getBounty([repoId, 101n]))[2]).toBe(OPEN);

    const burner = await hostile(1, repoId, 0n);
    const burnt = await payoutTo(burner, 102n);
    expect(burnt.error).toBeDefined();
    expect(burnt.gasUsed ?? 0n).toBeLessThan(300_000n);

    const talker = await hostile(2, repoId, 0n);
    const talked = await payoutTo(talker, 103n);
    expect(talked.error).toBeUndefined();
    // The 40 KB the recipient returns is never copied: the payout costs about what a plain one does.
    expect(talked.gasUsed! - plain.gasUsed!).toBeLessThan(60_000n);

    const reenterer = await hostile(3, repoId, 105n);
    await mined(await rewardsAs(operator).write.allocateBounty([repoId, 105n, 0, 5n * UNIT[0]]));
    const reentry = await payoutTo(reenterer, 104n);
    expect(reentry.error).toBeUndefined();
    expect(await publicClient().readContract({ address: reenterer, abi: [{ type: "function", name: "reentered", stateMutability: "view", inputs: [], outputs: [{ type: "bool", name: "" }] }], functionName: "reentered" })).toBe(false);
    expect((await rewardsAs(operator).read.getBounty([repoId, 105n]))[2]).toBe(OPEN);

    // Nobody is blocked: the refused bounties are paid to real contributors afterwards, and others as usual.
    for (const issue of [101n, 102n]) await mined(await rewardsAs(operator).write.payBounty([repoId, issue, contributor.address]));
    expect((await rewardsAs(operator).read.getBounty([repoId, 101n]))[2]).toBe(PAID);
    console.log(`payout gas: plain ${plain.gasUsed}, to a 40 KB talker ${talked.gasUsed}, to a gas burner ${burnt.gasUsed ?? "n/a (refused at estimation)"}`);
  });

  test("a queued payout to a recipient that refuses is cancelled by the guardian and paid to someone else", async () => {
    const [repoId] = REPOS;
    const reverting = await hostile(0, repoId, 0n);
    await mined(await rewardsAs(operator).write.allocateBounty([repoId, 200n, 0, 150n * UNIT[0]]));
    const receipt = await mined(await rewardsAs(operator).write.payBounty([repoId, 200n, reverting]));
    const [queued] = events([receipt], "OutflowQueued");
    expect((await rewardsAs(operator).read.getBounty([repoId, 200n]))[2]).toBe(QUEUED);
    await passTime(2 * DAY + 1);
    expect(await revertName(rewardsAs(bystander).write.executeOutflow([queued!.id as bigint]))).toBe("TransferFailed");
    await mined(await rewardsAs(guardian).write.cancelOutflow([queued!.id as bigint]));
    expect((await rewardsAs(operator).read.getBounty([repoId, 200n]))[2]).toBe(OPEN);
    const second = await mined(await rewardsAs(operator).write.payBounty([repoId, 200n, contributor.address]));
    const [again] = events([second], "OutflowQueued");
    await passTime(2 * DAY + 1);
    const before = await balanceOf(0, contributor.address);
    await mined(await rewardsAs(bystander).write.executeOutflow([again!.id as bigint]));
    expect((await balanceOf(0, contributor.address)) - before).toBe(150n * UNIT[0]);
    expect((await rewardsAs(operator).read.getBounty([repoId, 200n]))[2]).toBe(PAID);
  });
});
