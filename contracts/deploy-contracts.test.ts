import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  getContract,
  http,
  keccak256,
  toHex,
  type Account,
  type Address,
} from "viem";
import { anvil as anvilChain, xdcTestnet } from "viem/chains";
import { RepoRewardsAbi, TestUsdcAbi, TestUsdcBytecode } from "./artifacts/index.ts";
import { deployContracts, readDeployments, type DeployOptions } from "../scripts/deploy-contracts.ts";
import { anvilAccounts, startAnvil, type Anvil } from "../scripts/lib/anvil.ts";

const [deployer, operator, feeCollector, admin, guardian] = anvilAccounts(5) as [Account, Account, Account, Account, Account];

let local: Anvil;
let apothem: Anvil;
let dataDir: string;

beforeAll(async () => {
  [local, apothem] = await Promise.all([startAnvil(), startAnvil({ chainId: xdcTestnet.id })]);
  dataDir = mkdtempSync(join(tmpdir(), "issuepool-deploy-"));
}, 120_000);

afterAll(async () => {
  await Promise.all([local?.stop(), apothem?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
});

const roles = { deployer, admin: admin.address, guardian: guardian.address, operator: operator.address, feeCollector: feeCollector.address };

function localOptions(deploymentsFile: string): DeployOptions {
  return { ...roles, rpcUrl: local.rpcUrl, chain: anvilChain, deploymentsFile };
}

function apothemOptions(deploymentsFile: string, usdcAddress?: Address): DeployOptions {
  return { ...roles, rpcUrl: apothem.rpcUrl, chain: xdcTestnet, usdcAddress, deploymentsFile };
}

async function nonceOf(rpcUrl: string): Promise<number> {
  return createPublicClient({ transport: http(rpcUrl) }).getTransactionCount({ address: deployer.address });
}

describe("deployContracts on a local chain", () => {
  test("deploys once, then reuses the deployments file without sending anything", async () => {
    const file = join(dataDir, "local", "deployments.json");
    const first = await deployContracts(localOptions(file));
    expect(first.created).toBe(true);
    expect(first.chainId).toBe(31337);

    const nonce = await nonceOf(local.rpcUrl);
    const second = await deployContracts(localOptions(file));
    expect(second).toEqual({ ...first, created: false });
    expect(await nonceOf(local.rpcUrl)).toBe(nonce);

    const recorded = readDeployments(file)!;
    expect(recorded).toMatchObject({
      chainId: 31337,
      deployer: deployer.address,
      admin: admin.address,
      guardian: guardian.address,
      operator: operator.address,
      feeCollector: feeCollector.address,
      roxn: { address: first.roxn },
      usdc: { address: first.usdc, testToken: true },
      repoRewards: { address: first.repoRewards },
      deployedBlock: Number(first.deployedBlock),
    });
    expect(recorded.usdc.block).toBeGreaterThan(0);
    expect(Date.parse(recorded.deployedAt)).not.toBeNaN();
  });

  test("the constructor grants the roles it is given; the deployer holds none", async () => {
    const { repoRewards } = await deployContracts(localOptions(join(dataDir, "roles.json")));
    const client = createPublicClient({ transport: http(local.rpcUrl) });
    const rewards = getContract({ address: repoRewards, abi: RepoRewardsAbi, client });
    const [adminRole, operatorRole, guardianRole] = [`0x${"00".repeat(32)}` as const, keccak256(toHex("OPERATOR_ROLE")), keccak256(toHex("GUARDIAN_ROLE"))];
    expect(await rewards.read.defaultAdmin()).toBe(admin.address);
    expect(await rewards.read.hasRole([operatorRole, operator.address])).toBe(true);
    expect(await rewards.read.hasRole([guardianRole, guardian.address])).toBe(true);
    for (const role of [adminRole, operatorRole, guardianRole]) expect(await rewards.read.hasRole([role, deployer.address])).toBe(false);
    expect(await rewards.read.feeCollector()).toBe(feeCollector.address);
    expect(await rewards.read.managerDelay()).toBe(0n); // the local chain only
    expect(await rewards.read.caps([0, 1n])).toEqual([10_000n * 10n ** 18n, 50_000n * 10n ** 18n, 0n, 0n]);
  });

  test("the deployed escrow and its extension each stay under the 24 KB contract size limit (EIP-170)", async () => {
    const { repoRewards, repoRewardsExtension } = await deployContracts(localOptions(join(dataDir, "size.json")));
    for (const address of [repoRewards, repoRewardsExtension]) {
      const code = await createPublicClient({ transport: http(local.rpcUrl) }).getCode({ address });
      const size = (code!.length - 2) / 2;
      expect(size).toBeGreaterThan(10_000);
      expect(size).toBeLessThanOrEqual(24_576);
    }
  });

  test("a v2 deployments file (no extension) is deployed anew beside, as v3", async () => {
    const file = join(dataDir, "v2.json");
    const first = await deployContracts(localOptions(file));
    const recorded = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    delete recorded.repoRewardsExtension;
    writeFileSync(file, JSON.stringify(recorded));
    const second = await deployContracts(localOptions(file));
    expect(second.created).toBe(true);
    expect(second.repoRewards).not.toBe(first.repoRewards);
    expect(await createPublicClient({ transport: http(local.rpcUrl) }).readContract({ address: second.repoRewards, abi: RepoRewardsAbi, functionName: "extension" })).toBe(second.repoRewardsExtension);
  });

  test("redeploys when a recorded address has no code (e.g. the chain was reset)", async () => {
    const file = join(dataDir, "reset.json");
    const first = await deployContracts(localOptions(file));
    await createTestClient({ mode: "anvil", transport: http(local.rpcUrl) }).setCode({ address: first.repoRewards, bytecode: "0x" });

    const second = await deployContracts(localOptions(file));
    expect(second.created).toBe(true);
    expect(second.repoRewards).not.toBe(first.repoRewards);
    expect(readDeployments(file)!.repoRewards.address).toBe(second.repoRewards);
  });

  test("refuses an RPC that serves another chain than the one named", async () => {
    await expect(deployContracts({ ...localOptions(join(dataDir, "wrong.json")), chain: xdcTestnet })).rejects.toThrow(/serves chain 31337/);
  });
});

describe("deployContracts on XDC (Apothem, chain 51)", () => {
  test("refuses to make the deployer the escrow's admin", async () => {
    const usdc = await deployStandInUsdc();
    const options = { ...apothemOptions(join(dataDir, "apothem-admin.json"), usdc), admin: deployer.address };
    await expect(deployContracts(options)).rejects.toThrow(/Refusing to make the deployer RepoRewards' admin/);
  });

  test("the contract refuses an instant manager appointment anywhere but the local chain", async () => {
    const usdc = await deployStandInUsdc();
    const options = { ...apothemOptions(join(dataDir, "apothem-delay.json"), usdc), managerDelaySeconds: 0 };
    await expect(deployContracts(options)).rejects.toThrow();
    const deployed = await deployContracts(apothemOptions(join(dataDir, "apothem-delay-ok.json"), usdc));
    const rewards = getContract({ address: deployed.repoRewards, abi: RepoRewardsAbi, client: createPublicClient({ transport: http(apothem.rpcUrl) }) });
    expect(await rewards.read.managerDelay()).toBe(24n * 3600n);
  });

  test("refuses to deploy the test USDC", async () => {
    const before = await nonceOf(apothem.rpcUrl);
    await expect(deployContracts(apothemOptions(join(dataDir, "apothem-no-usdc.json")))).rejects.toThrow(/Refusing to deploy the test USDC/);
    expect(await nonceOf(apothem.rpcUrl)).toBe(before); // refused before sending anything
  });

  test("refuses a USDC address without a contract", async () => {
    const nowhere = "0x000000000000000000000000000000000000dEaD";
    await expect(deployContracts(apothemOptions(join(dataDir, "apothem-typo.json"), nowhere))).rejects.toThrow(/No contract at USDC_ADDRESS/);
  });

  test("uses the configured USDC, and will not silently switch to another", async () => {
    const usdc = await deployStandInUsdc();
    const file = join(dataDir, "apothem.json");
    const result = await deployContracts(apothemOptions(file, usdc));
    expect(result).toMatchObject({ created: true, chainId: 51, usdc });
    expect(readDeployments(file)!.usdc).toEqual({ address: usdc, block: null, testToken: false });
    expect(JSON.parse(readFileSync(file, "utf8")).chainId).toBe(51);

    expect((await deployContracts(apothemOptions(file, usdc))).created).toBe(false);
    const otherUsdc = await deployStandInUsdc();
    await expect(deployContracts(apothemOptions(file, otherUsdc))).rejects.toThrow(/move the file away/);
  });
});

/** Plays the part of the real USDC on the Apothem stand-in chain. */
async function deployStandInUsdc(): Promise<Address> {
  const transport = http(apothem.rpcUrl);
  const wallet = createWalletClient({ account: deployer, chain: xdcTestnet, transport });
  const hash = await wallet.deployContract({ abi: TestUsdcAbi, bytecode: TestUsdcBytecode, args: [deployer.address] });
  const receipt = await createPublicClient({ chain: xdcTestnet, transport, pollingInterval: 50 }).waitForTransactionReceipt({ hash });
  return getAddress(receipt.contractAddress!);
}
