import { createPublicClient, http, type PublicClient } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { Env } from "../env.ts";
import { chainConfig, type ChainConfig } from "./config.ts";

/** Everything that talks to the chain: one public client and the operator's signer. */
export interface ChainAccess {
  config: ChainConfig;
  client: PublicClient;
  operator: PrivateKeyAccount;
}

export function createChainAccess(env: Env): ChainAccess {
  const config = chainConfig(env);
  const client = createPublicClient({
    chain: config.chain,
    transport: http(config.rpcUrl, { timeout: env.CHAIN_RPC_TIMEOUT_MS, retryCount: 1, batch: false }),
    pollingInterval: config.pollingIntervalMs,
  }) as PublicClient;
  return { config, client, operator: privateKeyToAccount(env.OPERATOR_PRIVATE_KEY as `0x${string}`) };
}

/**
 * The health check's chain probe: its own client, one try, its own short
 * timeout, so that a node that accepts connections and never answers makes
 * /api/health say "chain down" at once instead of hanging with it.
 */
export function chainProbe(chain: ChainAccess, timeoutMs: number): () => Promise<bigint> {
  const client = createPublicClient({ chain: chain.config.chain, transport: http(chain.config.rpcUrl, { timeout: timeoutMs, retryCount: 0, batch: false }) });
  return () => client.getBlockNumber({ cacheTime: 0 });
}
