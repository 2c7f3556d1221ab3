import { join } from "node:path";
import type { Address, Hex } from "viem";
import { anvilAccounts, anvilPrivateKey, startAnvil, type Anvil, type AnvilOptions } from "../scripts/lib/anvil.ts";
import { deployLocalContracts, type DeployOptions, type DeployResult } from "../scripts/deploy-contracts.ts";
import { anvilRpc, localFunder } from "../scripts/lib/local-funds.ts";
import { makeTempDir } from "./context.ts";
import { localChain } from "../api/chain/config.ts";

/**
 * A real local chain for tests: anvil on a free port with the contracts
 * deployed (deployer = account 0, operator = account 1, fee collector =
 * account 2, RepoRewards' admin = account 3, guardian = account 4), and helpers to fund wallets the way the dev stack does.
 */
export interface TestChain {
  anvil: Anvil;
  deployment: DeployResult;
  /** Environment values that point the platform at this chain. */
  env: Record<string, string>;
  feeCollector: Address;
  /** RepoRewards' guardian and admin keys (not in `env`: a test that wants the watcher passes GUARDIAN_PRIVATE_KEY itself). */
  guardianKey: Hex;
  adminKey: Hex;
  fund(address: Address, amounts: { xdc?: string; roxn?: string; usdc?: string }): Promise<void>;
  /** Raw JSON-RPC, for anvil's own methods (evm_mine, snapshots). */
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  stop(): Promise<void>;
}

export async function startTestChain(
  options: Pick<AnvilOptions, "accounts"> & Pick<DeployOptions, "caps" | "payoutDelaySeconds" | "newRecipientThresholds"> = {},
): Promise<TestChain> {
  const anvil = await startAnvil(options);
  const chain = localChain(anvil.chainId, anvil.rpcUrl, "anvil");
  const [deployer, , feeCollector] = anvilAccounts(5);
  const dir = await makeTempDir("issuepool-chain-");
  const deployment = await deployLocalContracts({
    rpcUrl: anvil.rpcUrl,
    chain,
    caps: options.caps,
    payoutDelaySeconds: options.payoutDelaySeconds,
    newRecipientThresholds: options.newRecipientThresholds,
    deploymentsFile: join(dir, "deployments.json"),
  });
  const rpc = (method: string, params: unknown[] = []) => anvilRpc(anvil.rpcUrl, method, params);
  return {
    anvil,
    deployment,
    feeCollector: feeCollector!.address,
    env: {
      CHAIN: "local",
      CHAIN_RPC_URL: anvil.rpcUrl,
      REWARDS_CONTRACT_ADDRESS: deployment.repoRewards,
      ROXN_TOKEN_ADDRESS: deployment.roxn,
      USDC_TOKEN_ADDRESS: deployment.usdc,
      CONTRACTS_DEPLOYED_BLOCK: String(deployment.deployedBlock),
      OPERATOR_PRIVATE_KEY: anvilPrivateKey(1),
    },
    guardianKey: anvilPrivateKey(4),
    adminKey: anvilPrivateKey(3),
    fund: localFunder(anvil.rpcUrl, chain, deployment),
    rpc,
    stop: () => anvil.stop(),
  };
}

