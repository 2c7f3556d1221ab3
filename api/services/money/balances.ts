import { erc20Abi, type Address } from "viem";
import type { ChainAccess } from "../../chain/clients.ts";

export interface WalletBalances {
  xdc: bigint;
  roxn: bigint;
  usdc: bigint;
}

const CACHE_MS = 3000;
const cache = new Map<string, { at: number; value: Promise<WalletBalances> }>();

/**
 * A wallet's XDC, ROXN and USDC, read from the chain. Reads are shared for a
 * few seconds (the page polls every 30 s; several widgets ask at once), and
 * `fresh` skips the cache where a decision depends on the figure.
 */
export function walletBalances(chain: ChainAccess, address: Address, options: { fresh?: boolean } = {}): Promise<WalletBalances> {
  const key = `${chain.config.chain.id}:${address}`;
  const hit = cache.get(key);
  if (!options.fresh && hit && Date.now() - hit.at < CACHE_MS) return hit.value;
  const { roxn, usdc } = chain.config.contracts;
  const value = Promise.all([
    chain.client.getBalance({ address }),
    chain.client.readContract({ address: roxn, abi: erc20Abi, functionName: "balanceOf", args: [address] }),
    chain.client.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] }),
  ]).then(([xdc, roxnBalance, usdcBalance]) => ({ xdc, roxn: roxnBalance, usdc: usdcBalance }));
  cache.set(key, { at: Date.now(), value });
  value.catch(() => cache.delete(key));
  if (cache.size > 10_000) cache.delete(cache.keys().next().value!);
  return value;
}

/** Forget cached balances after the wallet sent or received something. */
export function forgetBalances(chain: ChainAccess, address: Address): void {
  cache.delete(`${chain.config.chain.id}:${address}`);
}

/** How much of a token (ROXN or USDC) the rewards contract may take from `owner` (approve, then fund). */
export function tokenAllowance(chain: ChainAccess, token: "ROXN" | "USDC", owner: Address): Promise<bigint> {
  return chain.client.readContract({
    address: token === "ROXN" ? chain.config.contracts.roxn : chain.config.contracts.usdc,
    abi: erc20Abi,
    functionName: "allowance",
    args: [owner, chain.config.contracts.rewards],
  });
}

export function roxnAllowance(chain: ChainAccess, owner: Address): Promise<bigint> {
  return tokenAllowance(chain, "ROXN", owner);
}
