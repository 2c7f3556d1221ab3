import { useEffect, useState } from "react";
import { api, errorMessage } from "../../lib/api.ts";
import { formatUnits } from "../../lib/format.ts";
import { cardClass } from "../../lib/ui.ts";

/** GET /api/wallet/info; the decimal fields (balance and tokenBalance are wei, for the spec's clients). */
interface WalletInfo {
  address: string;
  xdcBalance: string;
  roxnBalance: string;
  usdcBalance?: string;
}

/** Decimal string -> display with the spec's decimals (XDC 4, ROXN 2, USDC 2), never through a float. */
export function shown(value: string | undefined, decimals: number, places: number): string {
  if (!value) return "—";
  const [whole = "0", fraction = ""] = value.split(".");
  return formatUnits(BigInt(whole + fraction.padEnd(decimals, "0").slice(0, decimals)), decimals, places);
}

/** The profile's three balance cards: XDC (4 decimals), ROXN (2), USDC (2). */
export default function Balances({ userId }: { userId: number }) {
  const [info, setInfo] = useState<WalletInfo | null>(null);
  const [usdc, setUsdc] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api("/api/wallet/info")
      .then(setInfo)
      .catch((err) => setError(errorMessage(err, "Failed to fetch wallet info")));
    api(`/api/wallet/usdc-balance/${userId}`)
      .then((r) => setUsdc(r.balance))
      .catch(() => setUsdc(undefined));
  }, [userId]);
  const cards = [
    { symbol: "XDC", value: shown(info?.xdcBalance, 18, 4) },
    { symbol: "ROXN", value: shown(info?.roxnBalance, 18, 2) },
    { symbol: "USDC", value: shown(usdc ?? info?.usdcBalance, 6, 2) },
  ];
  return (
    <div className="mt-4">
      {error && <p role="alert" className="mb-2 text-sm text-destructive">{error}</p>}
      <div className="grid gap-3 sm:grid-cols-3">
        {cards.map((c) => (
          <div key={c.symbol} className={`${cardClass} p-4`} data-balance={c.symbol}>
            <p className="text-xs font-medium text-muted-foreground">{c.symbol}</p>
            <p className="mt-1 text-xl font-semibold tabular-nums">{info ? c.value : <span className="inline-block h-6 w-24 animate-pulse rounded bg-muted" />}</p>
          </div>
        ))}
      </div>
    </div>
  );
}
