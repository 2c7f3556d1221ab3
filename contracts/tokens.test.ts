import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getContract,
  http,
  keccak256,
  parseEventLogs,
  toHex,
  zeroAddress,
  type Account,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from "viem";
import { anvil as anvilChain } from "viem/chains";
import { RoxnAbi, TestUsdcAbi } from "./artifacts/index.ts";
import { deployContracts } from "../scripts/deploy-contracts.ts";
import { anvilAccounts, startAnvil, type Anvil } from "../scripts/lib/anvil.ts";

const [deployer, operator, feeCollector, holder, outsider] = anvilAccounts(5) as [Account, Account, Account, Account, Account];
const MINTER_ROLE = keccak256(toHex("MINTER_ROLE"));
const DEFAULT_ADMIN_ROLE = `0x${"00".repeat(32)}` as const;
const CAP = 1_000_000_000n * 10n ** 18n;

let chain: Anvil;
let dataDir: string;
let addresses: { roxn: Address; usdc: Address };
let publicClient: PublicClient;

function roxnAs(account: Account) {
  const wallet = createWalletClient({ account, chain: anvilChain, transport: http(chain.rpcUrl) });
  return getContract({ address: addresses.roxn, abi: RoxnAbi, client: { public: publicClient, wallet } });
}

function usdcAs(account: Account) {
  const wallet = createWalletClient({ account, chain: anvilChain, transport: http(chain.rpcUrl) });
  return getContract({ address: addresses.usdc, abi: TestUsdcAbi, client: { public: publicClient, wallet } });
}

async function mined(hash: Hash) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

async function expectRevert(action: Promise<unknown>, errorName: string, args?: readonly unknown[]) {
  const error = await action.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(BaseError);
  const reverted = (error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  expect(reverted?.data?.errorName).toBe(errorName);
  if (args) expect(reverted?.data?.args).toEqual(args);
}

beforeAll(async () => {
  chain = await startAnvil();
  publicClient = createPublicClient({ chain: anvilChain, transport: http(chain.rpcUrl), pollingInterval: 50 }) as PublicClient;
  dataDir = mkdtempSync(join(tmpdir(), "issuepool-tokens-"));
  addresses = await deployContracts({
    rpcUrl: chain.rpcUrl,
    chain: anvilChain,
    deployer,
    admin: holder.address,
    guardian: outsider.address,
    operator: operator.address,
    feeCollector: feeCollector.address,
    deploymentsFile: join(dataDir, "deployments.json"),
  });
}, 120_000);

// Each test starts from the fresh deployment: what one test mints or grants is gone for the next.
let snapshot: Hex;
const testClient = () => createTestClient({ mode: "anvil", chain: anvilChain, transport: http(chain.rpcUrl) });
beforeEach(async () => {
  snapshot = await testClient().snapshot();
});
afterEach(async () => {
  await testClient().revert({ id: snapshot });
});

afterAll(async () => {
  await chain?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("Roxn", () => {
  test("is the capped 18-decimal Roxonn Token", async () => {
    const roxn = roxnAs(holder);
    expect(await roxn.read.name()).toBe("Roxonn Token");
    expect(await roxn.read.symbol()).toBe("ROXN");
    expect(await roxn.read.decimals()).toBe(18);
    expect(await roxn.read.cap()).toBe(CAP);
    expect(await roxn.read.MAX_SUPPLY()).toBe(CAP);
    expect(await roxn.read.totalSupply()).toBe(0n);
  });

  test("the constructor makes the admin both admin and minter", async () => {
    const roxn = roxnAs(holder);
    expect(await roxn.read.hasRole([DEFAULT_ADMIN_ROLE, deployer.address])).toBe(true);
    expect(await roxn.read.hasRole([MINTER_ROLE, deployer.address])).toBe(true);
    expect(await roxn.read.hasRole([MINTER_ROLE, outsider.address])).toBe(false);
  });

  test("a minter mints; anyone else is refused", async () => {
    const receipt = await mined(await roxnAs(deployer).write.mint([holder.address, 5n * 10n ** 18n]));
    const [transfer] = parseEventLogs({ abi: RoxnAbi, logs: receipt.logs, eventName: "Transfer" });
    expect(transfer?.args).toEqual({ from: zeroAddress, to: holder.address, value: 5n * 10n ** 18n });
    expect(await roxnAs(holder).read.balanceOf([holder.address])).toBe(5n * 10n ** 18n);

    await expectRevert(roxnAs(outsider).write.mint([outsider.address, 1n]), "AccessControlUnauthorizedAccount", [
      outsider.address,
      MINTER_ROLE,
    ]);
  });

  test("the admin can grant and revoke MINTER_ROLE", async () => {
    await mined(await roxnAs(deployer).write.grantRole([MINTER_ROLE, outsider.address]));
    await mined(await roxnAs(outsider).write.mint([outsider.address, 7n]));
    await mined(await roxnAs(deployer).write.revokeRole([MINTER_ROLE, outsider.address]));
    await expectRevert(roxnAs(outsider).write.mint([outsider.address, 7n]), "AccessControlUnauthorizedAccount");
    await expectRevert(roxnAs(outsider).write.grantRole([MINTER_ROLE, outsider.address]), "AccessControlUnauthorizedAccount", [
      outsider.address,
      DEFAULT_ADMIN_ROLE,
    ]);
  });

  test("the supply can reach the cap and never pass it", async () => {
    const roxn = roxnAs(deployer);
    const supply = await roxn.read.totalSupply();
    await expectRevert(roxn.write.mint([holder.address, CAP - supply + 1n]), "ERC20ExceededCap", [CAP + 1n, CAP]);
    await mined(await roxn.write.mint([holder.address, CAP - supply]));
    expect(await roxn.read.totalSupply()).toBe(CAP);
    await expectRevert(roxn.write.mint([holder.address, 1n]), "ERC20ExceededCap", [CAP + 1n, CAP]);
  });
});

describe("TestUsdc", () => {
  test("has 6 decimals like USDC", async () => {
    const usdc = usdcAs(holder);
    expect(await usdc.read.name()).toBe("USD Coin (test)");
    expect(await usdc.read.symbol()).toBe("USDC");
    expect(await usdc.read.decimals()).toBe(6);
  });

  test("a minter mints; anyone else is refused; tokens transfer", async () => {
    await mined(await usdcAs(deployer).write.mint([holder.address, 2_500_000n]));
    await expectRevert(usdcAs(outsider).write.mint([outsider.address, 1n]), "AccessControlUnauthorizedAccount", [
      outsider.address,
      MINTER_ROLE,
    ]);
    await mined(await usdcAs(holder).write.transfer([outsider.address, 1_000_000n]));
    expect(await usdcAs(holder).read.balanceOf([holder.address])).toBe(1_500_000n);
    expect(await usdcAs(holder).read.balanceOf([outsider.address])).toBe(1_000_000n);
  });
});
