import { getAddress, isAddress, type Address } from "viem";

/**
 * XDC addresses are Ethereum addresses written with an `xdc` prefix instead
 * of `0x`. The platform stores and signs with the checksummed 0x form and
 * accepts and shows both at the edges.
 */
export function toXdcAddress(address: string): string {
  return `xdc${getAddress(address).slice(2)}`;
}

/** Parses `0x…` or `xdc…` (checksummed if mixed case); undefined when invalid. */
export function parseAddress(input: string): Address | undefined {
  const trimmed = input.trim();
  const hex = /^xdc/i.test(trimmed) ? `0x${trimmed.slice(3)}` : trimmed;
  if (!/^0x[0-9a-fA-F]{40}$/.test(hex)) return undefined;
  return isAddress(hex, { strict: true }) ? getAddress(hex) : undefined;
}
