import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import { CURRENCIES, CURRENCY_NAMES, DECIMALS, type Currency } from "../../../lib/money.ts";
import { toXdcAddress } from "../../chain/address.ts";

/**
 * What a custodial wallet holds and can send: XDC (the chain's own coin) and
 * the ROXN and USDC tokens, with explorer links when the network has an
 * explorer (the local chain does not).
 */
export const WALLET_TOKENS: readonly Currency[] = CURRENCIES;

export interface TokenInfo {
  symbol: Currency;
  name: string;
  decimals: number;
  /** The token's contract (xdc form); null for XDC itself. */
  contractAddress: string | null;
  /** The wallet's holdings of this token on the explorer; null without an explorer. */
  explorerUrl: string | null;
}

export function tokenContract(ctx: Pick<AppContext, "chain">, symbol: Currency): Address | null {
  const { contracts } = ctx.chain.config;
  return symbol === "ROXN" ? contracts.roxn : symbol === "USDC" ? contracts.usdc : null;
}

export function walletTokens(ctx: Pick<AppContext, "chain">, walletAddress: string | null): { tokens: TokenInfo[]; walletExplorerUrl: string | null } {
  const explorer = ctx.chain.config.network.explorerUrl;
  const holder = walletAddress ? toXdcAddress(walletAddress) : null;
  const tokens = WALLET_TOKENS.map((symbol): TokenInfo => {
    const contract = tokenContract(ctx, symbol);
    let explorerUrl: string | null = null;
    if (explorer && holder) explorerUrl = contract ? `${explorer}/token/${toXdcAddress(contract)}?a=${holder}` : `${explorer}/address/${holder}`;
    return {
      symbol,
      name: CURRENCY_NAMES[symbol],
      decimals: DECIMALS[symbol],
      contractAddress: contract ? toXdcAddress(contract) : null,
      explorerUrl,
    };
  });
  return { tokens, walletExplorerUrl: explorer && holder ? `${explorer}/address/${holder}` : null };
}
