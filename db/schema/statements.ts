import { sql } from "drizzle-orm";
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * The price of a money event at the moment it happened (issue 40, item 4): recorded once, shortly after the
 * indexer saw the event, from the configured price source, and never recomputed. One row per event
 * (`{chainId}:{txHash}:{logIndex}`); no row where no price source was configured then.
 * Prices are the source's decimal strings per whole token.
 */
export const priceRecords = sqliteTable(
  "price_records",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventKey: text("event_key").notNull(),
    currency: text("currency").notNull(),
    usd: text("usd"),
    inr: text("inr"),
    /** The source's name, as configured (PRICE_SOURCE_NAME or XDC_USD_PRICE_SOURCE). */
    source: text("source").notNull(),
    /** When the source says its price was current. */
    pricedAt: timestamp("priced_at").notNull(),
    recordedAt: timestamp("recorded_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [uniqueIndex("price_records_event_idx").on(t.eventKey)],
);

/** What a sponsor's invoices show (name, postal address, tax id such as a GSTIN or VAT number). */
export const invoiceProfiles = sqliteTable("invoice_profiles", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  name: text("name").notNull().default(""),
  address: text("address").notNull().default(""),
  taxId: text("tax_id").notNull().default(""),
  updatedAt: timestamp("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});

export type PriceRecord = typeof priceRecords.$inferSelect;
