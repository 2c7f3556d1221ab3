import type { AppContext } from "../../context.ts";
import { priceRecords, type Currency } from "../../../db/schema/index.ts";
import { CURRENCY_BY_INDEX } from "../../chain/indexer.ts";
import { currentPrices, priceSourceConfigured } from "./prices.ts";
import { readEventFeed } from "./event-feed.ts";

/**
 * Records the price of every money event at its moment (issue 40, item 4): fundings, boosts, payouts and tips,
 * right after the indexer has recorded them, from the configured price source (prices.ts). Once per event (its
 * chain, hash and log index), never recomputed: a statement shows the value at the time and says where it came
 * from and when. Without a price source nothing is recorded and statements show no value. A source that does not
 * answer leaves the cursor where it is, so the next pass tries again while the moment is fresh.
 */
export const MONEY_EVENTS = ["PoolFunded", "BountyBoosted", "BountyPaid", "BountySharePaid", "Tipped", "TipEscrowed", "TipPaid"];
/** After this long an event's price is no longer "the price at the time". */
export const PRICE_FRESH_MS = 15 * 60_000;

export const eventKey = (event: { chainId: number; txHash: string; logIndex: number }) => `${event.chainId}:${event.txHash.toLowerCase()}:${event.logIndex}`;

export async function recordEventPrices(ctx: Pick<AppContext, "env" | "database" | "chain">, now = Date.now()): Promise<number> {
  const db = ctx.database.db;
  const chainId = ctx.chain.config.chain.id;
  const feed = await readEventFeed(db, { cursor: `event-prices:${chainId}`, chainId, names: MONEY_EVENTS, freshMs: PRICE_FRESH_MS, now });
  if (!feed.events.length) return 0;
  const last = feed.events[feed.events.length - 1]!.id;
  if (!priceSourceConfigured(ctx.env)) {
    await feed.advance(last);
    return 0;
  }
  const currencyOf = (args: string) => CURRENCY_BY_INDEX[Number((JSON.parse(args) as { currency: number | string }).currency)] ?? "XDC";
  const wanted = [...new Set(feed.events.map((e) => currencyOf(e.args)))] as Currency[];
  const prices = await currentPrices(ctx.env, wanted, now);
  let recorded = 0;
  for (const event of feed.events) {
    const price = prices.get(currencyOf(event.args));
    if (!price) continue;
    const rows = await db
      .insert(priceRecords)
      .values({ eventKey: eventKey(event), currency: price.currency, usd: price.usd, inr: price.inr, source: price.source, pricedAt: price.pricedAt, recordedAt: new Date(now) })
      .onConflictDoNothing()
      .returning({ id: priceRecords.id });
    recorded += rows.length;
  }
  await feed.advance(last);
  return recorded;
}
