import type { AppContext } from "../../context.ts";

/**
 * The platform's chain as a browser wallet adds it (EIP-3085,
 * `wallet_addEthereumChain`): chain id in 0x hex, the RPC URL browsers may
 * use (CHAIN_PUBLIC_RPC_URL, else CHAIN_RPC_URL), and the explorer when the
 * network has one (the local chain has none, and MetaMask refuses an empty
 * entry, so the field is left out).
 */
export interface NetworkConfig {
  chainId: `0x${string}`;
  chainName: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  rpcUrls: string[];
  blockExplorerUrls?: string[];
}

export function networkConfig(ctx: Pick<AppContext, "env" | "chain">): NetworkConfig {
  const { network, chain } = ctx.chain.config;
  return {
    chainId: `0x${chain.id.toString(16)}`,
    chainName: network.name,
    nativeCurrency: { name: "XDC", symbol: "XDC", decimals: 18 },
    rpcUrls: [ctx.env.CHAIN_PUBLIC_RPC_URL ?? ctx.env.CHAIN_RPC_URL],
    ...(network.explorerUrl ? { blockExplorerUrls: [network.explorerUrl] } : {}),
  };
}
