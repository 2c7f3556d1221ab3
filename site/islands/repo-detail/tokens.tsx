import type { Currency } from "../../lib/funding-rules.ts";

/** The token catalogue (spec sections 2 and 3, "Currency option"): all on the XDC network, fees about $0.001. */
export interface CurrencyOption {
  symbol: Currency;
  network: string;
  icon: string;
  description: string;
  fees: string;
  /** Classes of the token's mark. */
  networkColor: string;
}

export const CURRENCY_OPTIONS: CurrencyOption[] = [
  {
    symbol: "XDC",
    network: "XDC Network",
    icon: "X",
    description: "The XDC Network's native coin",
    fees: "Fees: ~$0.001",
    networkColor: "bg-[#2a6ae9] text-white",
  },
  {
    symbol: "ROXN",
    network: "XDC Network",
    icon: "R",
    description: "Issuepool's platform token (XRC-20)",
    fees: "Fees: ~$0.001",
    networkColor: "bg-[#7c3aed] text-white",
  },
  {
    symbol: "USDC",
    network: "XDC Network",
    icon: "$",
    description: "USD Coin stablecoin on the XDC Network",
    fees: "Fees: ~$0.001",
    networkColor: "bg-[#2775ca] text-white",
  },
];

export function TokenMark({ symbol, className = "h-8 w-8 text-sm" }: { symbol: Currency; className?: string }) {
  const option = CURRENCY_OPTIONS.find((o) => o.symbol === symbol)!;
  return (
    <span aria-hidden="true" className={`inline-flex shrink-0 items-center justify-center rounded-full font-bold ${option.networkColor} ${className}`}>
      {option.icon}
    </span>
  );
}
