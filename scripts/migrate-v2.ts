/**
 * Moves a RepoRewards v2 escrow's pools and open bounties into a new v3 deployment (issue 29; the runbook is in
 * docs/contracts.md, "Migrating from v2"). Only v2's own paths move the money: the operator cancels the open
 * bounties back to their pools (a claimed one through its visible 3-day request), the admin becomes each
 * repository's pool manager through v2's timelock and withdraws every pool to itself; then it imports each pool
 * (with its managers) and each bounty (with its claimants) into v3 with `importPool` / `importBounty`, and closes
 * the import. Nothing is ever paid to anyone but the admin and the v3 escrow; the totals are checked.
 *
 *   bun scripts/migrate-v2.ts prepare   # reads v2, cancels unclaimed bounties, requests the claimed ones'
 *                                       # refunds, schedules the admin's appointments and caps; writes the plan
 *   bun scripts/migrate-v2.ts finish    # 3 days later: completes the refunds, withdraws, imports, closes
 *
 * Environment: CHAIN_RPC_URL, V2_ADDRESS, V3_ADDRESS, V2_DEPLOYED_BLOCK, OPERATOR_PRIVATE_KEY,
 * ADMIN_PRIVATE_KEY (the admin of both escrows), MIGRATION_PLAN (default data/migration-v2.json).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  maxUint256,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { RepoRewardsAbi, RepoRewardsV2Abi, TestUsdcAbi } from "../contracts/artifacts/index.ts";
import { unitOf } from "../lib/money.ts";

const OPEN = 1;
const CURRENCIES = [0, 1, 2] as const;

export interface MigrationBounty {
  repoId: bigint;
  issueNumber: bigint;
  currency: number;
  amount: bigint;
  claimants: Address[];
}

/** What v2 held when the migration started: per repository its pool (without its bounties) and managers. */
export interface MigrationPlan {
  pools: { repoId: bigint; balances: [bigint, bigint, bigint]; managers: Address[] }[];
  bounties: MigrationBounty[];
}

export interface MigrationOptions {
  rpcUrl: string;
  chain: Chain;
  v2: Address;
  v3: Address;
  /** The admin of both escrows (a multisig in production: see docs/contracts.md for signing its calls). */
  admin: Account;
  operator: Account;
  /** Where v2's events start. */
  fromBlock: bigint;
  log?: (message: string) => void;
}

function clientsFor(options: MigrationOptions) {
  const transport = http(options.rpcUrl);
  const publicClient = createPublicClient({ chain: options.chain, transport, pollingInterval: 50 }) as PublicClient;
  const walletOf = (account: Account) => createWalletClient({ account, chain: options.chain, transport });
  const send = async (account: Account, to: Address, data: Hex, value = 0n) => {
    const hash = await walletOf(account).sendTransaction({ to, data, value, account, chain: options.chain });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`Migration transaction ${hash} reverted`);
  };
  const v2Call = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: RepoRewardsV2Abi, functionName, args } as Parameters<typeof encodeFunctionData>[0]);
  const v3Call = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: RepoRewardsAbi, functionName, args } as Parameters<typeof encodeFunctionData>[0]);
  return { publicClient, send, v2Call, v3Call };
}

/** Every repository and open bounty v2 knows of, from its events and its views. */
export async function readV2(options: MigrationOptions): Promise<MigrationPlan> {
  const { publicClient } = clientsFor(options);
  const events = await publicClient.getContractEvents({ address: options.v2, abi: RepoRewardsV2Abi, fromBlock: options.fromBlock });
  const repoIds = new Set<bigint>();
  const issues = new Map<string, { repoId: bigint; issueNumber: bigint }>();
  for (const event of events) {
    const args = event.args as { repoId?: bigint; issueNumber?: bigint };
    if (args.repoId === undefined) continue;
    repoIds.add(args.repoId);
    if (event.eventName === "BountyAllocated") issues.set(`${args.repoId}:${args.issueNumber}`, { repoId: args.repoId, issueNumber: args.issueNumber! });
  }
  const read = (functionName: string, args: readonly unknown[]) =>
    publicClient.readContract({ address: options.v2, abi: RepoRewardsV2Abi, functionName, args } as Parameters<typeof publicClient.readContract>[0]);
  const pools: MigrationPlan["pools"] = [];
  for (const repoId of [...repoIds].sort((a, b) => (a < b ? -1 : 1))) {
    const balances = (await read("getPool", [repoId])) as readonly [bigint, bigint, bigint];
    const managers = (await read("poolManagers", [repoId])) as Address[];
    pools.push({ repoId, balances: [...balances], managers: [...managers] });
  }
  const bounties: MigrationBounty[] = [];
  for (const { repoId, issueNumber } of issues.values()) {
    const [currency, amount, status] = (await read("getBounty", [repoId, issueNumber])) as readonly [number, bigint, number, Address];
    // A queued payout stays on v2: it runs (or the guardian cancels it, and a second run of prepare picks it up).
    if (status !== OPEN) continue;
    const claimants = (await read("claimants", [repoId, issueNumber])) as Address[];
    bounties.push({ repoId, issueNumber, currency, amount, claimants: [...claimants] });
  }
  return { pools, bounties };
}

/**
 * Step 1: cancels unclaimed open bounties at once and requests the claimed ones' refunds (v2's 3-day delay), and
 * schedules, on v2's 2-day timelock, the admin's appointment as manager of every repository and caps at v2's hard
 * bound (so the withdrawals are not queued). Returns the plan `finishMigration` carries out.
 */
export async function prepareMigration(options: MigrationOptions): Promise<MigrationPlan> {
  const log = options.log ?? (() => {});
  const { send, v2Call } = clientsFor(options);
  const plan = await readV2(options);
  for (const bounty of plan.bounties) {
    await send(options.operator, options.v2, v2Call("cancelBounty", [bounty.repoId, bounty.issueNumber]));
    log(`v2 bounty ${bounty.repoId}#${bounty.issueNumber}: ${bounty.claimants.length > 0 ? "refund requested (claimed)" : "cancelled to its pool"}`);
  }
  for (const pool of plan.pools) await send(options.admin, options.v2, v2Call("schedule", [v2Call("addPoolManager", [pool.repoId, options.admin.address])]));
  for (const call of maxCapsCalls(v2Call)) await send(options.admin, options.v2, v2Call("schedule", [call]));
  log(`Scheduled ${plan.pools.length} appointments and the caps; run finish after 3 days`);
  return plan;
}

function maxCapsCalls(v2Call: (name: string, args: readonly unknown[]) => Hex): Hex[] {
  const max = [10_000_000n * unitOf("XDC"), 10_000_000n * unitOf("ROXN"), 1_000_000n * unitOf("USDC")];
  return CURRENCIES.map((c) => v2Call("setCaps", [c, max[c]!, max[c]!]));
}

/**
 * Step 2, once v2's delays are over: completes the claimed bounties' refunds, appoints the admin, raises the caps,
 * withdraws every pool to the admin, imports pools and bounties into v3, closes the import and pauses v2.
 * Checks that v3 received exactly what v2 held for them.
 */
export async function finishMigration(options: MigrationOptions, plan: MigrationPlan): Promise<void> {
  const log = options.log ?? (() => {});
  const { publicClient, send, v2Call, v3Call } = clientsFor(options);
  for (const bounty of plan.bounties) {
    if (bounty.claimants.length > 0) await send(options.operator, options.v2, v2Call("cancelBounty", [bounty.repoId, bounty.issueNumber]));
  }
  for (const call of maxCapsCalls(v2Call)) await send(options.admin, options.v2, call);
  const v2Reads = (functionName: string, args: readonly unknown[]) =>
    publicClient.readContract({ address: options.v2, abi: RepoRewardsV2Abi, functionName, args } as Parameters<typeof publicClient.readContract>[0]);
  for (const pool of plan.pools) {
    await send(options.admin, options.v2, v2Call("addPoolManager", [pool.repoId, options.admin.address]));
    const balances = (await v2Reads("getPool", [pool.repoId])) as readonly [bigint, bigint, bigint];
    for (const c of CURRENCIES) {
      if (balances[c]! > 0n) await send(options.admin, options.v2, v2Call("withdrawPool", [pool.repoId, c, balances[c]!, options.admin.address]));
    }
    await send(options.admin, options.v2, v2Call("removePoolManager", [pool.repoId, options.admin.address]));
  }
  // Allowances for the tokens' imports.
  const tokens = [
    (await v2Reads("roxn", [])) as Address,
    (await v2Reads("usdc", [])) as Address,
  ];
  for (const token of tokens) {
    const approve = encodeFunctionData({ abi: TestUsdcAbi, functionName: "approve", args: [options.v3, maxUint256] });
    await send(options.admin, token, approve);
  }
  for (const pool of plan.pools) {
    // The XDC import (even of 0) brings the managers; XDC rides along as value, tokens are pulled from the admin.
    for (const c of CURRENCIES) {
      const amount = pool.balances[c]!;
      if (c !== 0 && amount === 0n) continue;
      await send(options.admin, options.v3, v3Call("importPool", [pool.repoId, c, amount, c === 0 ? pool.managers : []]), c === 0 ? amount : 0n);
    }
  }
  for (const bounty of plan.bounties) {
    const data = v3Call("importBounty", [bounty.repoId, bounty.issueNumber, bounty.currency, bounty.amount, bounty.claimants]);
    await send(options.admin, options.v3, data, bounty.currency === 0 ? bounty.amount : 0n);
  }
  await send(options.admin, options.v3, v3Call("finishImport", []));
  await send(options.admin, options.v2, v2Call("pause", []));
  for (const c of CURRENCIES) {
    const left = (await v2Reads("owed", [c])) as bigint;
    if (left !== 0n) throw new Error(`v2 still owes ${left} of currency ${c}: a payout or withdrawal is queued there; run its queue, then import the rest`);
  }
  log(`Imported ${plan.pools.length} pools and ${plan.bounties.length} bounties into ${options.v3}; v2 paused and empty`);
}

const bigintJson = (_key: string, value: unknown) => (typeof value === "bigint" ? `${value}n` : value);
const bigintRevive = (_key: string, value: unknown) => (typeof value === "string" && /^\d+n$/.test(value) ? BigInt(value.slice(0, -1)) : value);

if (import.meta.main) {
  try {
    const env = process.env;
    const step = process.argv[2];
    if (step !== "prepare" && step !== "finish") throw new Error("usage: bun scripts/migrate-v2.ts prepare|finish");
    const need = (name: string) => {
      const value = env[name];
      if (!value) throw new Error(`${name} is required`);
      return value;
    };
    const rpcUrl = need("CHAIN_RPC_URL");
    const chainId = await createPublicClient({ transport: http(rpcUrl) }).getChainId();
    const chain = { id: chainId, name: `chain ${chainId}`, nativeCurrency: { name: "XDC", symbol: "XDC", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } } as Chain;
    const options: MigrationOptions = {
      rpcUrl,
      chain,
      v2: need("V2_ADDRESS") as Address,
      v3: need("V3_ADDRESS") as Address,
      admin: privateKeyToAccount(need("ADMIN_PRIVATE_KEY") as Hex),
      operator: privateKeyToAccount(need("OPERATOR_PRIVATE_KEY") as Hex),
      fromBlock: BigInt(env.V2_DEPLOYED_BLOCK ?? "0"),
      log: console.log,
    };
    const planFile = env.MIGRATION_PLAN || "data/migration-v2.json";
    if (step === "prepare") {
      const plan = await prepareMigration(options);
      writeFileSync(planFile, `${JSON.stringify(plan, bigintJson, 2)}\n`);
      console.log(`Wrote ${planFile}`);
    } else {
      if (!existsSync(planFile)) throw new Error(`${planFile} not found: run prepare first`);
      await finishMigration(options, JSON.parse(readFileSync(planFile, "utf8"), bigintRevive) as MigrationPlan);
    }
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
