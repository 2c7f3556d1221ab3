/**
 * The path from a v2 deployment to v3 (scripts/migrate-v2.ts), on anvil: v2 deployed as it runs today, pools
 * funded in all three currencies on two repositories, open bounties (one claimed) and a paid one; then v3 deployed
 * beside it, prepare, 3 days, finish. Every pool, bounty, claimant and manager arrives in v3, v3 holds exactly what
 * it owes, v2 holds nothing and is paused, and the admin keeps nothing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, createTestClient, createWalletClient, getContract, http, maxUint256, parseEther, type Account, type Address, type Hash } from "viem";
import { anvil as anvilChain } from "viem/chains";
import { RepoRewardsAbi, RepoRewardsV2Abi, RepoRewardsV2Bytecode, TestUsdcAbi } from "./artifacts/index.ts";
import { ADMIN_TRANSFER_DELAY_SECONDS, DEFAULT_CAPS, deployContracts } from "../scripts/deploy-contracts.ts";
import { finishMigration, prepareMigration } from "../scripts/migrate-v2.ts";
import { anvilAccounts, startAnvil, type Anvil } from "../scripts/lib/anvil.ts";

const [deployer, operator, feeCollector, admin, guardian, manager, contributor, funder] = anvilAccounts(8) as [
  Account, Account, Account, Account, Account, Account, Account, Account,
];
const REPO_A = 1_001n;
const REPO_B = 2_002n;
const DAY = 24 * 3600;

let chain: Anvil;
let dataDir: string;

beforeAll(async () => {
  chain = await startAnvil();
  dataDir = mkdtempSync(join(tmpdir(), "issuepool-migrate-"));
}, 120_000);

afterAll(async () => {
  await chain?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a v2 escrow's pools, open bounties, claimants and managers move to v3 exactly; v2 ends empty and paused", async () => {
  const transport = http(chain.rpcUrl);
  const publicClient = createPublicClient({ chain: anvilChain, transport, pollingInterval: 50 });
  const testClient = createTestClient({ chain: anvilChain, mode: "anvil", transport });
  const walletOf = (account: Account) => createWalletClient({ account, chain: anvilChain, transport });
  const mined = async (hash: Hash | Promise<Hash>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    expect(receipt.status).toBe("success");
    return receipt;
  };

  // v3 (and the tokens) as deploy-contracts makes them; v2 beside it on the same tokens, as it was deployed.
  const v3 = await deployContracts({
    rpcUrl: chain.rpcUrl,
    chain: anvilChain,
    deployer,
    admin: admin.address,
    guardian: guardian.address,
    operator: operator.address,
    feeCollector: feeCollector.address,
    deploymentsFile: join(dataDir, "deployments.json"),
  });
  const caps = [DEFAULT_CAPS.XDC, DEFAULT_CAPS.ROXN, DEFAULT_CAPS.USDC].map((c) => [c.perRepo, c.total] as const);
  const deployV2 = await mined(
    walletOf(deployer).deployContract({
      abi: RepoRewardsV2Abi,
      bytecode: RepoRewardsV2Bytecode,
      args: [admin.address, ADMIN_TRANSFER_DELAY_SECONDS, guardian.address, operator.address, feeCollector.address, v3.roxn, v3.usdc, 0n, [caps[0]!, caps[1]!, caps[2]!]],
    }),
  );
  const v2Address = deployV2.contractAddress! as Address;
  const v2As = (account: Account) => getContract({ address: v2Address, abi: RepoRewardsV2Abi, client: { public: publicClient, wallet: walletOf(account) } });
  const v3As = (account: Account) => getContract({ address: v3.repoRewards, abi: RepoRewardsAbi, client: { public: publicClient, wallet: walletOf(account) } });
  const tokenAs = (address: Address, account: Account) => getContract({ address, abi: TestUsdcAbi, client: { public: publicClient, wallet: walletOf(account) } });
  const balances = async (address: Address): Promise<bigint[]> =>
    Promise.all([publicClient.getBalance({ address }), tokenAs(v3.roxn, deployer).read.balanceOf([address]), tokenAs(v3.usdc, deployer).read.balanceOf([address])]);

  // Life on v2: two repositories funded in every currency, a manager, open bounties (one claimed), one paid.
  for (const token of [v3.roxn, v3.usdc]) {
    await mined(tokenAs(token, deployer).write.mint([funder.address, 10n ** 24n]));
    await mined(tokenAs(token, funder).write.approve([v2Address, maxUint256]));
  }
  await mined(v2As(operator).write.addPoolManager([REPO_A, manager.address]));
  for (const repoId of [REPO_A, REPO_B]) {
    await mined(v2As(funder).write.fundPoolXdc([repoId, 50], { value: parseEther("100") }));
    await mined(v2As(funder).write.fundPoolToken([repoId, 1, 5n * 10n ** 18n, 50]));
    await mined(v2As(funder).write.fundPoolToken([repoId, 2, 50_000_000n, 50]));
  }
  await mined(v2As(manager).write.allocateBounty([REPO_A, 1n, 0, parseEther("10")]));
  await mined(v2As(manager).write.allocateBounty([REPO_A, 2n, 1, 10n ** 18n]));
  await mined(v2As(operator).write.claimBounty([REPO_A, 2n, contributor.address]));
  await mined(v2As(operator).write.allocateBounty([REPO_B, 1n, 2, 20_000_000n]));
  await mined(v2As(operator).write.allocateBounty([REPO_B, 3n, 0, parseEther("5")]));
  await mined(v2As(operator).write.payBounty([REPO_B, 3n, contributor.address]));

  const before = {
    pools: await Promise.all([REPO_A, REPO_B].map((r) => v2As(admin).read.getPool([r]))),
    owed: await Promise.all([0, 1, 2].map((c) => v2As(admin).read.owed([c]))),
    held: await balances(v2Address),
    admin: await balances(admin.address),
  };
  expect(before.held).toEqual(before.owed);

  const options = {
    rpcUrl: chain.rpcUrl,
    chain: anvilChain,
    v2: v2Address,
    v3: v3.repoRewards,
    admin,
    operator,
    fromBlock: deployV2.blockNumber,
  };
  const plan = await prepareMigration(options);
  expect(plan.bounties.map((b) => [b.repoId, b.issueNumber, b.currency, b.amount, b.claimants])).toEqual([
    [REPO_A, 1n, 0, parseEther("10"), []],
    [REPO_A, 2n, 1, 10n ** 18n, [contributor.address]],
    [REPO_B, 1n, 2, 20_000_000n, []],
  ]);
  // v2's timelock (2 days) and the claimed bounty's visible refund delay (3 days).
  await testClient.increaseTime({ seconds: 3 * DAY });
  await testClient.mine({ blocks: 1 });
  await finishMigration(options, plan);

  // v2: empty and paused.
  expect(await balances(v2Address)).toEqual([0n, 0n, 0n]);
  expect(await Promise.all([0, 1, 2].map((c) => v2As(admin).read.owed([c])))).toEqual([0n, 0n, 0n]);
  expect(await v2As(admin).read.paused()).toBe(true);
  // v3: every pool, bounty, claimant and manager; it holds exactly what it owes, which is what v2 owed.
  expect(await Promise.all([REPO_A, REPO_B].map((r) => v3As(admin).read.getPool([r])))).toEqual(before.pools);
  expect(await v3As(admin).read.getBounty([REPO_A, 1n])).toEqual([0, parseEther("10"), 1, "0x0000000000000000000000000000000000000000"]);
  expect(await v3As(admin).read.getBounty([REPO_A, 2n])).toEqual([1, 10n ** 18n, 1, "0x0000000000000000000000000000000000000000"]);
  expect(await v3As(admin).read.getBounty([REPO_B, 1n])).toEqual([2, 20_000_000n, 1, "0x0000000000000000000000000000000000000000"]);
  expect(await v3As(admin).read.getBounty([REPO_B, 3n])).toEqual([0, 0n, 0, "0x0000000000000000000000000000000000000000"]);
  expect(await v3As(admin).read.claimants([REPO_A, 2n])).toEqual([contributor.address]);
  expect(await v3As(admin).read.poolManagers([REPO_A])).toEqual([manager.address]);
  expect(await v3As(admin).read.poolManagers([REPO_B])).toEqual([]);
  expect(await v3As(admin).read.importOpen()).toBe(false);
  const owedV3 = await Promise.all([0, 1, 2].map((c) => v3As(admin).read.owed([c])));
  expect(owedV3).toEqual(before.owed);
  expect(await balances(v3.repoRewards)).toEqual(owedV3);
  // The admin passed the money through and kept nothing (it paid only gas in XDC).
  const adminAfter = await balances(admin.address);
  expect(adminAfter.slice(1)).toEqual(before.admin.slice(1));
  expect(adminAfter[0]! <= before.admin[0]!).toBe(true);
  expect(before.admin[0]! - adminAfter[0]! < parseEther("1")).toBe(true);
  // The imported bounties are old money: the claimed one pays its claimant at once on v3.
  const paid = await mined(v3As(manager).write.payBounty([REPO_A, 2n, contributor.address]));
  expect(paid.logs.length).toBeGreaterThan(0);
}, 120_000);
