import { customType, integer } from "drizzle-orm/sqlite-core";

/**
 * Money in the token's smallest unit (wei for XDC/ROXN, 10^-6 for USDC):
 * a bigint in TypeScript, a decimal TEXT in the database. Never a JS number.
 */
export const amount = customType<{ data: bigint; driverData: string }>({
  dataType: () => "text",
  toDriver: (value) => {
    if (typeof value !== "bigint") throw new TypeError("amount columns take a bigint");
    return value.toString();
  },
  fromDriver: (value) => BigInt(value),
});

/** Milliseconds since the epoch, read as a Date. */
export const timestamp = (name: string) => integer(name, { mode: "timestamp_ms" });

/** The currency columns' enum: the platform's currencies (lib/money.ts), not a list of its own. */
export { CURRENCIES, type Currency } from "../../lib/money.ts";
