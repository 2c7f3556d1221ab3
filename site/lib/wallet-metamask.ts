/**
 * 'Configure MetaMask' (spec sections 4 and 8): switch MetaMask to the
 * platform's network, adding it first when MetaMask does not know it
 * (error 4902). The network description comes from the export response
 * (EIP-3085). Every failure becomes one of the spec's sentences.
 */
export interface NetworkConfig {
  chainId: string;
  chainName: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  rpcUrls: string[];
  blockExplorerUrls?: string[];
}

interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export class MetaMaskError extends Error {}

/** Error codes of EIP-1193 and MetaMask; some wallets nest the original error. */
function codeOf(err: unknown): number | undefined {
  const e = err as { code?: unknown; data?: { originalError?: { code?: unknown } } } | null;
  const code = e?.data?.originalError?.code ?? e?.code;
  return typeof code === "number" ? code : undefined;
}

const REJECTED = 4001;
const UNKNOWN_CHAIN = 4902;

export async function configureMetaMask(config: NetworkConfig | null | undefined, ethereum = (globalThis as { ethereum?: Eip1193Provider }).ethereum): Promise<"switched" | "added"> {
  if (!ethereum || typeof ethereum.request !== "function") throw new MetaMaskError("MetaMask is not installed.");
  if (!config?.chainId) throw new MetaMaskError("Network configuration missing.");
  try {
    await ethereum.request({ method: "wallet_switchEthereumChain", params: [{ chainId: config.chainId }] });
    return "switched";
  } catch (err) {
    if (codeOf(err) === REJECTED) throw new MetaMaskError("You rejected the request.");
    if (codeOf(err) !== UNKNOWN_CHAIN) throw new MetaMaskError("Failed to switch network");
  }
  try {
    await ethereum.request({ method: "wallet_addEthereumChain", params: [config] });
    return "added";
  } catch (err) {
    if (codeOf(err) === REJECTED) throw new MetaMaskError("You rejected the request.");
    throw new MetaMaskError("Failed to switch network");
  }
}
