/**
 * Where an escrowed tip's payTip left it is read for every escrowed tip a wallet history or a tips list shows
 * (tipDelivery): its events must come by index, never by a scan of chain_events per tip (migration
 * 0019_tip_delivery_indexes). Checked on the migrated schema with SQLite's own plan.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { migrateDatabase, openDatabase, type DatabaseHandle } from "../../../db/client.ts";
import { testEnv } from "../../../testing/context.ts";
import { tipDeliveryEvents } from "./tips.ts";

let database: DatabaseHandle;
beforeAll(async () => {
  database = await openDatabase((await testEnv()).DATABASE_URL);
  await migrateDatabase(database);
});
afterAll(() => database?.close());

test("a tip's delivery is read by index, not by a scan of chain_events", async () => {
  const plan = await database.db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${tipDeliveryEvents(database.db, { chainTipId: "7" }, "0xABC").getSQL()}`);
  const details = plan.map((r) => String(r.detail));
  expect(details.filter((d) => /^SCAN/.test(d))).toEqual([]);
  // Its three terms: TipPaid by the tip's id, the payTip's events by hash, the guardian's cancel of a tip's outflow.
  expect(details.join("\n")).toContain("chain_events_tip_paid_idx");
  expect(details.join("\n")).toContain("chain_events_tx_lower_idx");
  // (by the repository's index, or the one issue's index of migration 0022, which starts with the repository)
  expect(details.join("\n")).toMatch(/chain_events_(repo|issue)_idx/);
});
