/**
 * The one definition of money (issue 37, item 1): which currencies the platform moves, how many decimals each
 * has, and how each is shown. The API, the database's enum (db/schema/columns.ts), the site, the scripts and the
 * VS Code extension all read these; nothing else declares a currency list, a currency type or a decimals table.
 * Amounts themselves are bigints in the smallest unit; lib/money-format.ts turns them into text.
 */

/** The currencies, in the escrow contract's order: a currency's index is its on-chain id (0 XDC, 1 ROXN, 2 USDC). */
export const CURRENCIES = ["XDC", "ROXN", "USDC"] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Decimals of each currency's smallest unit: XDC and ROXN in wei (18), USDC in millionths (6). */
export const DECIMALS: { readonly [C in Currency]: number } = { XDC: 18, ROXN: 18, USDC: 6 };

/** How many decimals an amount is shown with by default (spec section 9): XDC 4, ROXN 2, USDC 2. Truncated, never rounded up. */
export const SHOWN_DECIMALS: { readonly [C in Currency]: number } = { XDC: 4, ROXN: 2, USDC: 2 };

/** What a person reads beside the symbol (the wallet's Tokens tab, the token catalogue). */
export const CURRENCY_NAMES: { readonly [C in Currency]: string } = { XDC: "XDC Network coin", ROXN: "ROXN platform token", USDC: "USD Coin" };

/** One whole unit in the smallest unit: 10^18 for XDC and ROXN, 10^6 for USDC. */
export const unitOf = (currency: Currency): bigint => 10n ** BigInt(DECIMALS[currency]);

export const isCurrency = (value: unknown): value is Currency => typeof value === "string" && (CURRENCIES as readonly string[]).includes(value);

/** The escrow contract's id of a currency (its index in CURRENCIES). */
export const currencyId = (currency: Currency): number => CURRENCIES.indexOf(currency);
