/**
 * Deploys ROXN, the test USDC (local chains only) and RepoRewards, and
 * records the addresses in a deployments file. Idempotent: when the file
 * already describes a live deployment on the same chain, nothing is sent.
 *
 *   CHAIN=xdc-apothem DEPLOYER_PRIVATE_KEY=0x... ADMIN_ADDRESS=0x(multisig) \
 *   GUARDIAN_ADDRESS=0x... OPERATOR_ADDRESS=0x... FEE_COLLECTOR_ADDRESS=0x... \
 *   USDC_ADDRESS=0x... bun scripts/deploy-contracts.ts
 *
 * The deployer only pays for the deployment: RepoRewards' admin (a multisig
 * in production), guardian and operator are given to its constructor.
 * On CHAIN=local every variable has a default (anvil's development accounts:
 * 0 deploys, 1 operates, 2 collects fees, 3 administers, 4 guards; and
 * http://127.0.0.1:8545). See docs/contracts.md.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  isAddress,
  type Abi,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvil, xdc, xdcTestnet } from "viem/chains";
import {
  RepoRewardsAbi,
  RepoRewardsBytecode,
  RepoRewardsExtensionAbi,
  RepoRewardsExtensionBytecode,
  RoxnAbi,
  RoxnBytecode,
  TestUsdcAbi,
  TestUsdcBytecode,
} from "../contracts/artifacts/index.ts";
import { anvilAccounts, anvilPrivateKey } from "./lib/anvil.ts";
import { unitOf, type Currency } from "../lib/money.ts";

/** Chains with real USDC, where deploying the test token would be a mistake. */
const XDC_CHAIN_IDS = new Set<number>([xdc.id, xdcTestnet.id]);

export interface DeployedContract {
  address: Address;
  /** Block of the deployment transaction; null for a USDC we did not deploy. */
  block: number | null;
}

/** The JSON written to the deployments file. */
export interface Deployments {
  chainId: number;
  deployer: Address;
  admin: Address;
  guardian: Address;
  operator: Address;
  feeCollector: Address;
  roxn: DeployedContract;
  usdc: DeployedContract & { testToken: boolean };
  repoRewards: DeployedContract;
  /** v3: the code RepoRewards delegates boosts, tips and its v3 views to. Absent: a v2 deployment (deployed anew beside). */
  repoRewardsExtension?: DeployedContract;
  /** First block holding any of our contracts: where an indexer starts. */
  deployedBlock: number;
  deployedAt: string;
}

export interface DeployOptions {
  rpcUrl: string;
  chain: Chain;
  deployer: Account;
  /** RepoRewards' admin (a multisig in production); never the deployer on XDC. */
  admin: Address;
  /** Pauses and cancels queued outflows; the watcher holds its key. */
  guardian: Address;
  operator: Address;
  feeCollector: Address;
  /** How long the operator's appointment of a pool manager waits: 0 only on the local chain. Default: 0 locally, 1 day elsewhere. */
  managerDelaySeconds?: number;
  /** Outflow caps per rolling day. Default: DEFAULT_CAPS. */
  caps?: OutflowCaps;
  /**
   * The minimum age of money before it is paid at once, and the wait of a payout above the new-recipient
   * threshold to an address never paid before (issue 29, item 6). Default: 1 hour on XDC, 0 (off) on the local
   * chain, where the platform's tests pay what they just allocated; PAYOUT_DELAY_SECONDS=3600 turns it on there.
   */
  payoutDelaySeconds?: number;
  /** Per currency: payouts above it to a never-paid address wait payoutDelay. Default: DEFAULT_NEW_RECIPIENT_THRESHOLDS. */
  newRecipientThresholds?: Record<Currency, bigint>;
  /** The real USDC; required on XDC. Unset: deploy TestUsdc. */
  usdcAddress?: Address;
  deploymentsFile: string;
  log?: (msg: string) => void;
}

export interface DeployResult {
  roxn: Address;
  usdc: Address;
  repoRewards: Address;
  repoRewardsExtension: Address;
  deployedBlock: bigint;
  chainId: number;
  /** False when the deployments file was reused and nothing was sent. */
  created: boolean;
}

/** Per currency, in its smallest unit: per repository and in total, per rolling day. */
export type OutflowCaps = Record<Currency, { perRepo: bigint; total: bigint }>;

/**
 * The caps a deployment starts with (the admin changes them, within the
 * contract's hard bounds, after its 2-day timelock). Demo and test amounts
 * stay far below them.
 */
export const DEFAULT_CAPS: OutflowCaps = {
  XDC: { perRepo: 10_000n * unitOf("XDC"), total: 50_000n * unitOf("XDC") },
  ROXN: { perRepo: 100_000n * unitOf("ROXN"), total: 500_000n * unitOf("ROXN") },
  USDC: { perRepo: 10_000n * unitOf("USDC"), total: 50_000n * unitOf("USDC") },
};

/** Payouts above these to an address RepoRewards never paid wait the payout delay. */
export const DEFAULT_NEW_RECIPIENT_THRESHOLDS: Record<Currency, bigint> = {
  XDC: 100n * unitOf("XDC"),
  ROXN: 1_000n * unitOf("ROXN"),
  USDC: 100n * unitOf("USDC"),
};

/** RepoRewards' payout delay (seconds) on XDC unless configured. */
export const DEFAULT_PAYOUT_DELAY_SECONDS = 3600;

/** AccessControlDefaultAdminRules: how long handing the admin role to a new address waits. */
export const ADMIN_TRANSFER_DELAY_SECONDS = 2 * 24 * 3600;

export function readDeployments(file: string): Deployments | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Deployments;
  } catch (err) {
    throw new Error(`Cannot read deployments file ${file}: ${err instanceof Error ? err.message : err}`);
  }
}

async function hasCode(client: PublicClient, address: Address): Promise<boolean> {
  const code = await client.getCode({ address });
  return code !== undefined && code !== "0x";
}

async function isLive(client: PublicClient, deployments: Deployments): Promise<boolean> {
  const addresses = [deployments.roxn.address, deployments.usdc.address, deployments.repoRewards.address];
  const present = await Promise.all(addresses.map((address) => hasCode(client, address)));
  return present.every(Boolean);
}

export async function deployContracts(options: DeployOptions): Promise<DeployResult> {
  const { chain, deployer, admin, guardian, operator, feeCollector, usdcAddress, deploymentsFile } = options;
  const log = options.log ?? (() => {});
  const transport = http(options.rpcUrl);
  // viem polls every 4 s by default: seconds per receipt on an auto-mining local chain.
  const pollingInterval = XDC_CHAIN_IDS.has(chain.id) ? 1_000 : 50;
  const client = createPublicClient({ chain, transport, pollingInterval }) as PublicClient;
  const wallet = createWalletClient({ account: deployer, chain, transport, pollingInterval });

  const chainId = await client.getChainId();
  if (chainId !== chain.id) throw new Error(`RPC ${options.rpcUrl} serves chain ${chainId}, expected ${chain.id} (${chain.name})`);
  if (!usdcAddress && XDC_CHAIN_IDS.has(chainId)) {
    throw new Error(`Refusing to deploy the test USDC on ${chain.name}: set USDC_ADDRESS to the real USDC`);
  }

  const managerDelay = options.managerDelaySeconds ?? (chain.id === 31337 ? 0 : 24 * 3600);
  if (XDC_CHAIN_IDS.has(chainId) && getAddress(admin) === getAddress(deployer.address)) {
    throw new Error("Refusing to make the deployer RepoRewards' admin on XDC: set ADMIN_ADDRESS to the multisig");
  }
  const caps = options.caps ?? DEFAULT_CAPS;
  const payoutDelay = options.payoutDelaySeconds ?? (chain.id === 31337 ? 0 : DEFAULT_PAYOUT_DELAY_SECONDS);
  const thresholds = options.newRecipientThresholds ?? DEFAULT_NEW_RECIPIENT_THRESHOLDS;

  // RepoRewards keeps its USDC address forever: a typo here would be permanent.
  if (usdcAddress && !(await hasCode(client, usdcAddress))) throw new Error(`No contract at USDC_ADDRESS ${usdcAddress} on ${chain.name}`);

  const existing = readDeployments(deploymentsFile);
  // A file without a guardian describes the v1 escrow, one without an extension v2: deploy v3 beside it
  // (moving a v2 escrow's money over: scripts/migrate-v2.ts, docs/contracts.md).
  if (existing?.chainId === chainId && existing.guardian && existing.repoRewardsExtension && (await isLive(client, existing))) {
    if (usdcAddress && existing.usdc.address.toLowerCase() !== usdcAddress.toLowerCase()) {
      throw new Error(
        `${deploymentsFile} uses USDC ${existing.usdc.address}, but ${usdcAddress} is configured; move the file away to deploy anew`,
      );
    }
    log(`Contracts already deployed on chain ${chainId} (${deploymentsFile}): RepoRewards at ${existing.repoRewards.address}`);
    return {
      roxn: existing.roxn.address,
      usdc: existing.usdc.address,
      repoRewards: existing.repoRewards.address,
      repoRewardsExtension: existing.repoRewardsExtension.address,
      deployedBlock: BigInt(existing.deployedBlock),
      chainId,
      created: false,
    };
  }

  async function deploy(name: string, abi: Abi, bytecode: Hex, args: readonly unknown[]): Promise<{ address: Address; block: number }> {
    const hash = await wallet.deployContract({ abi, bytecode, args, account: deployer, chain });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`Deploying ${name} failed (tx ${hash})`);
    const address = getAddress(receipt.contractAddress);
    log(`${name} deployed at ${address} (block ${receipt.blockNumber})`);
    return { address, block: Number(receipt.blockNumber) };
  }

  // Each constructor grants its roles: the deployer administers and mints the
  // tokens; RepoRewards' admin, guardian and operator are given here, so the
  // deployer holds no role on the escrow.
  const roxn = await deploy("Roxn", RoxnAbi, RoxnBytecode, [deployer.address]);
  const usdc = usdcAddress
    ? { address: getAddress(usdcAddress), block: null, testToken: false }
    : { ...(await deploy("TestUsdc", TestUsdcAbi, TestUsdcBytecode, [deployer.address])), testToken: true };
  const repoRewardsExtension = await deploy("RepoRewardsExtension", RepoRewardsExtensionAbi, RepoRewardsExtensionBytecode, [
    roxn.address,
    usdc.address,
  ]);
  const repoRewards = await deploy("RepoRewards", RepoRewardsAbi, RepoRewardsBytecode, [
    admin,
    ADMIN_TRANSFER_DELAY_SECONDS,
    guardian,
    operator,
    feeCollector,
    roxn.address,
    usdc.address,
    BigInt(managerDelay),
    [
      [caps.XDC.perRepo, caps.XDC.total],
      [caps.ROXN.perRepo, caps.ROXN.total],
      [caps.USDC.perRepo, caps.USDC.total],
    ],
    BigInt(payoutDelay),
    [thresholds.XDC, thresholds.ROXN, thresholds.USDC],
    repoRewardsExtension.address,
  ]);

  const deployments: Deployments = {
    chainId,
    deployer: deployer.address,
    admin,
    guardian,
    operator,
    feeCollector,
    roxn,
    usdc,
    repoRewards,
    repoRewardsExtension,
    deployedBlock: roxn.block,
    deployedAt: new Date().toISOString(),
  };
  // Write then rename, so a crash never leaves half a file that points nowhere.
  mkdirSync(dirname(deploymentsFile), { recursive: true });
  writeFileSync(`${deploymentsFile}.tmp`, `${JSON.stringify(deployments, null, 2)}\n`);
  renameSync(`${deploymentsFile}.tmp`, deploymentsFile);
  log(`Wrote ${deploymentsFile}`);

  return {
    roxn: roxn.address,
    usdc: usdc.address,
    repoRewards: repoRewards.address,
    repoRewardsExtension: repoRewardsExtension.address,
    deployedBlock: BigInt(roxn.block),
    chainId,
    created: true,
  };
}

/**
 * The local chain's deployment as `npm start` (scripts/dev.ts) and the tests (testing/chain.ts) make it: anvil's
 * accounts 0 deploys, 1 operates, 2 collects fees, 3 administers, 4 guards. One place, so both deploy the same.
 */
export function deployLocalContracts(
  options: Pick<DeployOptions, "rpcUrl" | "chain" | "deploymentsFile" | "caps" | "payoutDelaySeconds" | "newRecipientThresholds" | "log">,
): Promise<DeployResult> {
  const [deployer, operator, feeCollector, admin, guardian] = anvilAccounts(5);
  const fromEnv = process.env.PAYOUT_DELAY_SECONDS;
  return deployContracts({
    ...options,
    payoutDelaySeconds: options.payoutDelaySeconds ?? (fromEnv ? Number(fromEnv) : undefined),
    deployer: deployer!,
    admin: admin!.address,
    guardian: guardian!.address,
    operator: operator!.address,
    feeCollector: feeCollector!.address,
  });
}

const CHAINS: Record<string, Chain> = { local: anvil, "xdc-apothem": xdcTestnet, "xdc-mainnet": xdc };

function addressFrom(name: string, value: string | undefined, localDefault: Address | undefined): Address {
  const address = value || localDefault;
  if (!address) throw new Error(`${name} is required`);
  if (!isAddress(address)) throw new Error(`${name} is not an address: ${address}`);
  return address;
}

if (import.meta.main) {
  try {
    const env = process.env;
    const chainName = env.CHAIN || "local";
    const chain = CHAINS[chainName];
    if (!chain) throw new Error(`CHAIN must be one of ${Object.keys(CHAINS).join(", ")} (got ${chainName})`);
    const isLocal = chainName === "local";
    const devAccounts = isLocal ? anvilAccounts(5) : [];

    const privateKey = env.DEPLOYER_PRIVATE_KEY || (isLocal ? anvilPrivateKey(0) : undefined);
    if (!privateKey || !/^0x[0-9a-fA-F]{64}$/.test(privateKey)) throw new Error("DEPLOYER_PRIVATE_KEY must be a 0x-prefixed 32-byte hex key");

    const result = await deployContracts({
      rpcUrl: env.CHAIN_RPC_URL || chain.rpcUrls.default.http[0]!,
      chain,
      deployer: privateKeyToAccount(privateKey as Hex),
      admin: addressFrom("ADMIN_ADDRESS", env.ADMIN_ADDRESS, devAccounts[3]?.address),
      guardian: addressFrom("GUARDIAN_ADDRESS", env.GUARDIAN_ADDRESS, devAccounts[4]?.address),
      operator: addressFrom("OPERATOR_ADDRESS", env.OPERATOR_ADDRESS, devAccounts[1]?.address),
      managerDelaySeconds: env.MANAGER_DELAY_SECONDS ? Number(env.MANAGER_DELAY_SECONDS) : undefined,
      payoutDelaySeconds: env.PAYOUT_DELAY_SECONDS ? Number(env.PAYOUT_DELAY_SECONDS) : undefined,
      feeCollector: addressFrom("FEE_COLLECTOR_ADDRESS", env.FEE_COLLECTOR_ADDRESS, devAccounts[2]?.address),
      usdcAddress: env.USDC_ADDRESS ? addressFrom("USDC_ADDRESS", env.USDC_ADDRESS, undefined) : undefined,
      deploymentsFile: env.DEPLOYMENTS_FILE || `data/deployments/${chainName}.json`,
      log: console.log,
    });
    console.log(JSON.stringify({ ...result, deployedBlock: result.deployedBlock.toString() }, null, 2));
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
