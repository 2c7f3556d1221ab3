/**
 * The networks the platform runs on, chosen by the CHAIN setting. Texts
 * follow the network so nobody mistakes test money for real money or the
 * reverse (ARCHITECTURE.md, "Names and the spec's open points").
 */
export type NetworkKind = "mainnet" | "testnet" | "local";

export interface NetworkInfo {
  kind: NetworkKind;
  chainId: number;
  name: string;
  /** Shown on the wallet box tooltip and wherever the spec names the network. */
  label: string;
  /** Block explorer base URL; empty for the local chain. */
  explorerUrl: string;
}

export const NETWORKS: Record<string, NetworkInfo> = {
  "xdc-mainnet": {
    kind: "mainnet",
    chainId: 50,
    name: "XDC Mainnet",
    label: "Live Environment: XDC Mainnet",
    explorerUrl: "https://xdcscan.com",
  },
  "xdc-apothem": {
    kind: "testnet",
    chainId: 51,
    name: "XDC Apothem Testnet",
    label: "Test Environment: XDC Apothem Testnet",
    explorerUrl: "https://testnet.xdcscan.com",
  },
  local: {
    kind: "local",
    chainId: 31337,
    name: "Local development chain",
    label: "Local Environment: development chain",
    explorerUrl: "",
  },
};
