/**
 * Statements, receipts and invoices (issue 40, items 3 and 4), through the API: payouts, fundings and tips with the
 * value at the time from the configured price source (recorded once, at the moment), the PDF receipt opened and
 * read, the yearly CSVs in Koinly's universal format, invoice details, and who may read what.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Address } from "viem";
import { extractText, getDocumentProxy } from "unpdf";
import { parse } from "csv-parse/sync";
import { priceRecords } from "../../../db/schema/index.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { eventually } from "../../../testing/stack.ts";
import { CASHOUT_REPO, CASHOUT_REPO_NAME, startCashoutWorld, type CashoutWorld } from "../../../testing/cashout-world.ts";
import { recordEventPrices } from "../../services/statements/record-prices.ts";
import { KOINLY_COLUMNS } from "../../services/statements/documents.ts";
import { fiatValue, hundredths } from "../../services/statements/prices.ts";

let world: CashoutWorld;
let bob: TestSession & { wallet: Address };
let carol: TestSession & { wallet: Address };
let payoutTx: string;
const year = new Date().getUTCFullYear();

beforeAll(async () => {
  world = await startCashoutWorld();
  bob = await world.stack.signUp("bob", "contributor");
  carol = await world.stack.signUp("carol", "contributor");
  payoutTx = await world.payReward(bob.wallet, "8", 42);
  await world.passes.runOnce();
}, 120_000);
afterAll(async () => {
  await world?.stop();
});

const t = () => world.stack.t;
type Item = { id: string; kind: string; direction: string; transactionHash: string; amount: string; fee: string; net: string; valueInr: string | null; valueUsd: string | null; price: { source: string; pricedAt: string; inr: string | null; usd: string | null } | null; [key: string]: unknown };
const statement = async (as: TestSession) => (await (await call(t(), `/api/statements?year=${year}`, { as })).json()) as { priceSource: string | null; items: Item[] };
const pdfText = async (res: Response) => {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/pdf");
  const pdf = await getDocumentProxy(new Uint8Array(await res.arrayBuffer()));
  return (await extractText(pdf, { mergePages: true })).text as string;
};

describe("statements", () => {
  test("the price of exact arithmetic: value = amount x price, rounded to the hundredth, no float", () => {
    expect(hundredths(fiatValue(8n * 10n ** 18n, 18, "2.5"))).toBe("20.00");
    expect(hundredths(fiatValue(1n, 18, "0.029762"))).toBe("0.00");
    expect(hundredths(fiatValue(123_456_789n, 6, "84"))).toBe("10370.37");
    expect(hundredths(fiatValue(5n * 10n ** 17n, 18, "0.03"))).toBe("0.02"); // 0.015 rounds half up
  });

  test("a payout received: parties, repository, issue and pull request, fee, transaction, and its value at the time from the named source", async () => {
    const mine = await statement(bob);
    expect(mine.priceSource).toBe("Simulated prices");
    const item = mine.items.find((i) => i.transactionHash === payoutTx)!;
    expect(item).toMatchObject({
      kind: "payout",
      direction: "in",
      currency: "XDC",
      amount: "8",
      fee: "0",
      repository: CASHOUT_REPO_NAME,
      pullNumber: 42,
      valueInr: "20.00",
      from: { label: `Pool of ${CASHOUT_REPO_NAME}` },
      to: { login: "bob" },
    });
    expect(item.price).toMatchObject({ source: "Simulated prices", inr: "2.5" });
    expect(item.valueUsd).toBe(hundredths(fiatValue(8n * 10n ** 18n, 18, item.price!.usd!)));
    // Recorded once, at the moment: a later pass changes nothing.
    const [recorded] = await t().ctx.database.db.select().from(priceRecords).where(eq(priceRecords.eventKey, `${t().ctx.chain.config.chain.id}:${payoutTx.toLowerCase()}:${item.id.split("-")[1]}`));
    await world.passes.runOnce();
    const [again] = await t().ctx.database.db.select().from(priceRecords).where(eq(priceRecords.id, recorded!.id));
    expect(again).toEqual(recorded!);
  });

  test("the receipt as PDF: opened, its text holds what the statement says", async () => {
    const item = (await statement(bob)).items.find((i) => i.transactionHash === payoutTx)!;
    const text = await pdfText(await call(t(), `/api/statements/items/${item.id}/pdf`, { as: bob }));
    expect(text).toContain("Issuepool receipt");
    expect(text).toContain("8 XDC");
    expect(text).toContain(payoutTx);
    expect(text).toContain(`${CASHOUT_REPO_NAME}, issue #`);
    expect(text).toContain("pull request #42");
    expect(text).toContain("INR 20.00");
    expect(text).toContain("Price source: Simulated prices");
    expect(text).toContain("@bob");
  });

  test("a sponsor's funding: an invoice with their name, address and tax id, and the platform fee", async () => {
    const profile = await call(t(), "/api/statements/invoice-profile", { as: world.alice, method: "PUT", body: { name: "Alice Tools Pvt Ltd", address: "12 MG Road\nBengaluru 560001", taxId: "29ABCDE1234F1Z5" } });
    expect(profile.status).toBe(200);
    expect(await (await call(t(), "/api/statements/invoice-profile", { as: world.alice })).json()).toEqual({ name: "Alice Tools Pvt Ltd", address: "12 MG Road\nBengaluru 560001", taxId: "29ABCDE1234F1Z5" });
    const funding = await eventually(async () => (await statement(world.alice)).items.find((i) => i.kind === "funding"), 10_000, "the funding");
    expect(funding).toMatchObject({ direction: "out", amount: "300", fee: "1.5", net: "298.5" });
    const text = await pdfText(await call(t(), `/api/statements/items/${funding.id}/pdf`, { as: world.alice }));
    expect(text).toContain("Issuepool invoice");
    expect(text).toContain("Alice Tools Pvt Ltd");
    expect(text).toContain("Tax id: 29ABCDE1234F1Z5");
    expect(text).toContain("1.5 XDC");
  });

  test("the yearly CSV in Koinly's universal format, for the user and for the repository", async () => {
    const res = await call(t(), `/api/statements/csv?year=${year}`, { as: bob });
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("content-disposition")).toContain(`issuepool-bob-${year}.csv`);
    const rows = parse(await res.text()) as string[][];
    expect(rows[0]).toEqual([...KOINLY_COLUMNS]);
    const payout = rows.find((r) => r[11] === payoutTx)!;
    expect(payout[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(payout.slice(1, 10)).toEqual(["", "", "8", "XDC", "", "", "20.00", "INR", "income"]);
    expect(payout[10]).toContain("Simulated prices");

    const usd = parse(await (await call(t(), `/api/statements/csv?year=${year}&fiat=USD`, { as: bob })).text()) as string[][];
    expect(usd.find((r) => r[11] === payoutTx)![8]).toBe("USD");

    const repo = parse(await (await call(t(), `/api/statements/repositories/${CASHOUT_REPO.id}/csv?year=${year}`, { as: world.alice })).text()) as string[][];
    const fundingRow = repo.find((r) => r[10]!.startsWith("Pool funding"))!;
    expect(fundingRow.slice(3, 5)).toEqual(["298.5", "XDC"]);
    const paidRow = repo.find((r) => r[11] === payoutTx)!;
    expect(paidRow.slice(1, 3)).toEqual(["8", "XDC"]);
    expect(paidRow[9]).toBe("cost");
  });

  test("who may read what: a party or the repository's registrant; anyone else is told nothing exists", async () => {
    const payout = (await statement(bob)).items.find((i) => i.transactionHash === payoutTx)!;
    const funding = (await statement(world.alice)).items.find((i) => i.kind === "funding")!;
    expect((await call(t(), `/api/statements/items/${payout.id}/pdf`, { as: carol })).status).toBe(404);
    expect((await call(t(), `/api/statements/items/${funding.id}/pdf`, { as: bob })).status).toBe(404);
    expect((await call(t(), `/api/statements/items/${payout.id}/pdf`, { as: world.alice })).status).toBe(200);
    expect((await call(t(), `/api/statements/repositories/${CASHOUT_REPO.id}/csv`, { as: bob })).status).toBe(404);
    expect((await call(t(), `/api/statements`)).status).toBe(401);
    expect((await call(t(), `/api/statements/items/${payout.id.replace(/-\d+$/, "-999")}/pdf`, { as: bob })).status).toBe(404);
  });

  test("without a price source configured at the time: no value, and the receipt says so", async () => {
    await world.passes.stop();
    const tx = await world.payReward(bob.wallet, "2", 43);
    // The moment passes with no source configured: nothing is recorded, and nothing is made up later.
    const unconfigured = { ...t().ctx, env: { ...t().env, PRICE_SOURCE_URL: undefined, XDC_USD_PRICE: undefined } };
    expect(await recordEventPrices(unconfigured)).toBe(0);
    expect(await recordEventPrices(t().ctx)).toBe(0);
    const item = (await statement(bob)).items.find((i) => i.transactionHash === tx)!;
    expect(item).toMatchObject({ price: null, valueInr: null, valueUsd: null });
    const text = await pdfText(await call(t(), `/api/statements/items/${item.id}/pdf`, { as: bob }));
    expect(text).toContain("No price source was configured at the time");
  });
});
