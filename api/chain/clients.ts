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
    transport: http(config.rpcUrl, { timeout: 10_000, retryCount: 1, batch: false }),
    pollingInterval: config.pollingIntervalMs,
  }) as PublicClient;
  return { config, client, operator: privateKeyToAccount(env.OPERATOR_PRIVATE_KEY as `0x${string}`) };
}
