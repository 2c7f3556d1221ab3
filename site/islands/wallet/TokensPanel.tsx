import { useEffect } from "react";
import { useResourceState } from "../ui/use-store.ts";
import { CURRENCIES, CURRENCY_NAMES, DECIMALS, type Currency } from "../../lib/format.ts";
import { formatBalance, tokenCatalogue, usdcBalance, walletInfo } from "../../lib/wallet-data.ts";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";

function balanceText(symbol: Currency, value: string | undefined, error: string | null) {
  if (value === undefined) return error ? "—" : <Spinner className="h-4 w-4" label={`Loading ${symbol} balance`} />;
  return `${formatBalance(value, symbol)} ${symbol}`;
}

/** The Tokens tab (spec section 2): XDC, ROXN and USDC with explorer links and the 30-second note. */
export function TokensPanel({ userId }: { userId: number }) {
  const info = useResourceState(walletInfo);
  const usdc = useResourceState(usdcBalance(userId));
  const catalogue = useResourceState(tokenCatalogue);
  useEffect(() => void tokenCatalogue.load(), []);

  const balanceOf: Record<Currency, string | undefined> = { XDC: info.data?.xdcBalance, ROXN: info.data?.roxnBalance, USDC: usdc.data?.balance };
  const tokens = catalogue.data?.tokens ?? CURRENCIES.map((symbol) => ({ symbol, name: CURRENCY_NAMES[symbol], contractAddress: null, explorerUrl: null, decimals: DECIMALS[symbol] }));

  return (
    <div className="grid gap-4">
      <ul className="divide-y divide-border rounded-xl border border-border">
        {tokens.map((token) => {
          const error = token.symbol === "USDC" ? usdc.error : info.error;
          const value = balanceOf[token.symbol];
          return (
            <li key={token.symbol} className="grid grid-cols-[auto_1fr] items-center gap-x-3 gap-y-1 px-4 py-3 sm:grid-cols-[auto_1fr_auto] sm:gap-x-4" data-token={token.symbol}>
              <span className="row-span-2 flex h-10 w-10 shrink-0 items-center justify-center rounded-full bg-primary/10 text-[0.65rem] font-bold text-primary sm:row-span-1">
                {token.symbol}
              </span>
              <div className="min-w-0">
                <p className="flex flex-wrap items-baseline justify-between gap-x-3">
                  <span className="font-semibold">{token.symbol}</span>
                  <span className="font-semibold tabular-nums sm:hidden">{balanceText(token.symbol, value, error)}</span>
                </p>
                <p className="text-sm text-muted-foreground">{token.name}</p>
                {token.contractAddress ? (
                  <p className="truncate font-mono text-xs text-muted-foreground" title={token.contractAddress} data-token-contract>
                    {token.contractAddress}
                  </p>
                ) : (
                  // Words, not an address: the body font (issue 16: it was set in the monospace address font).
                  <p className="text-xs text-muted-foreground" data-token-contract>
                    Native coin of the XDC Network
                  </p>
                )}
              </div>
              <div className="col-start-2 sm:col-start-auto sm:text-right">
                <p className="hidden font-semibold tabular-nums sm:block">{balanceText(token.symbol, value, error)}</p>
                {token.explorerUrl ? (
                  <a href={token.explorerUrl} target="_blank" rel="noopener noreferrer" className="inline-flex items-center gap-1 text-xs font-medium text-primary hover:underline">
                    View on explorer <Icon name="external" className="h-3 w-3" />
                  </a>
                ) : (
                  <span className="text-xs text-muted-foreground">No explorer on this network</span>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      <p className="flex items-center gap-2 text-sm text-muted-foreground">
        <Icon name="clock" className="h-4 w-4" /> Balances update every 30 seconds, and when you come back to this tab.
      </p>
      {catalogue.error && <p className="text-sm text-destructive">{catalogue.error}</p>}
    </div>
  );
}
