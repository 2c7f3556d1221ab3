import { defineChain, type Address, type Chain } from "viem";
import { xdc, xdcTestnet } from "viem/chains";
import type { Env } from "../env.ts";
import { NETWORKS, type NetworkInfo } from "./networks.ts";

/** The chain the platform runs on, resolved from configuration. */
export interface ChainConfig {
  network: NetworkInfo;
  chain: Chain;
  rpcUrl: string;
  /** How often viem polls for receipts and blocks: short on the local chain. */
  pollingIntervalMs: number;
  confirmations: number;
  /** Blocks back within which confirmed transactions and indexed blocks are re-checked (CHAIN_REORG_WINDOW_BLOCKS). */
  reorgWindowBlocks: number;
  contracts: { rewards: Address; roxn: Address; usdc: Address; deployedBlock: bigint };
}

/** A local chain (anvil) that uses XDC as its currency, for viem. */
export function localChain(id: number, rpcUrl: string, name = "local"): Chain {
  return defineChain({ id, name, nativeCurrency: { name: "XDC", symbol: "XDC", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
}

export function chainConfig(env: Env): ChainConfig {
  const network = NETWORKS[env.CHAIN]!;
  const chain =
    env.CHAIN === "xdc-mainnet"
      ? xdc
      : env.CHAIN === "xdc-apothem"
        ? xdcTestnet
        : localChain(network.chainId, env.CHAIN_RPC_URL, network.name);
  return {
    network,
    chain,
    rpcUrl: env.CHAIN_RPC_URL,
    pollingIntervalMs: network.kind === "local" ? 50 : 1000,
    confirmations: env.CHAIN_CONFIRMATIONS ?? (network.kind === "local" ? 1 : 2),
    reorgWindowBlocks: env.CHAIN_REORG_WINDOW_BLOCKS,
    contracts: {
      rewards: env.REWARDS_CONTRACT_ADDRESS as Address,
      roxn: env.ROXN_TOKEN_ADDRESS as Address,
      usdc: env.USDC_TOKEN_ADDRESS as Address,
      deployedBlock: BigInt(env.CONTRACTS_DEPLOYED_BLOCK),
    },
  };
}

/** An explorer link for a transaction; local chains have none. */
export function explorerTxUrl(network: NetworkInfo, hash: string): string | null {
  return network.explorerUrl ? `${network.explorerUrl}/tx/${hash}` : null;
}
