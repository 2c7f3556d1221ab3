import { stringify } from "csv-stringify/sync";
import { eq } from "drizzle-orm";
import type { DatabaseDeps } from "../../context.ts";
import { invoiceProfiles } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import type { Party, StatementItem } from "./items.ts";

/**
 * The documents of statements (issue 40, item 3): a PDF receipt per item (pdfkit, its standard Helvetica, so
 * amounts of rupees read "INR", the font has no ₹), a yearly CSV in the universal format of Koinly (a common
 * crypto-tax tool: `Date, Sent Amount, Sent Currency, Received Amount, Received Currency, Fee Amount, Fee Currency,
 * Net Worth Amount, Net Worth Currency, Label, Description, TxHash`), and the invoice details a sponsor sets.
 */
const KIND_TITLE: Record<StatementItem["kind"], string> = { payout: "Payout", funding: "Pool funding", boost: "Bounty boost", tip: "Tip" };

/** A payer's document is an invoice (fundings, boosts, tips given); a recipient's, a receipt. */
export const documentTitle = (item: StatementItem) => (item.direction === "out" || (item.kind !== "payout" && item.kind !== "tip") ? "Invoice" : "Receipt");

function partyLines(party: Party): string[] {
  return [
    party.label,
    ...(party.address ? [`Wallet ${party.address}`] : []),
    ...(party.invoice?.name ? [party.invoice.name] : []),
    ...(party.invoice?.address ? party.invoice.address.split(/\r?\n/) : []),
    ...(party.invoice?.taxId ? [`Tax id: ${party.invoice.taxId}`] : []),
  ];
}

const utc = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

/** The item's PDF: what, who, where, how much, the transaction and the value at the time. */
export async function receiptPdf(item: StatementItem, options: { platform: string; network: string }): Promise<Uint8Array> {
  // Loaded on the first receipt, not at start: pdfkit and its fonts cost every process ~0.3 s of CPU to import.
  const { default: PDFDocument } = await import("pdfkit");
  const doc = new PDFDocument({ size: "A4", margin: 56, info: { Title: `${documentTitle(item)} ${item.id}`, Author: options.platform, CreationDate: new Date(item.date) } });
  const chunks: Buffer[] = [];
  doc.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on("error", reject);
  });
  doc.font("Helvetica-Bold").fontSize(20).text(`${options.platform} ${documentTitle(item).toLowerCase()}`);
  doc.font("Helvetica").fontSize(10).fillColor("#555").text(`${KIND_TITLE[item.kind]} · ${utc(item.date)} · ${options.network}`).moveDown();
  doc.fillColor("#000");
  const row = (label: string, value: string) => {
    doc.font("Helvetica-Bold").fontSize(10).text(label, { continued: false });
    doc.font("Helvetica").text(value).moveDown(0.4);
  };
  row("From", partyLines(item.from).join("\n"));
  row("To", partyLines(item.to).join("\n"));
  if (item.repository) {
    row(
      "For",
      [item.repository, item.issueNumber !== null ? `issue #${item.issueNumber}` : null, item.pullNumber !== null ? `pull request #${item.pullNumber}` : null].filter(Boolean).join(", "),
    );
  }
  row("Amount", `${item.amount} ${item.currency}`);
  row("Fee", `${item.fee} ${item.currency}${item.fee !== "0" ? ` (platform fee; ${item.net} ${item.currency} reached ${item.kind === "funding" ? "the pool" : item.kind === "boost" ? "the bounty" : "the recipient"})` : ""}`);
  row("Transaction", item.transactionHash);
  if (item.explorerUrl) row("Explorer", item.explorerUrl);
  if (item.price) {
    row(
      "Value at the time",
      [item.valueInr !== null ? `INR ${item.valueInr}` : null, item.valueUsd !== null ? `USD ${item.valueUsd}` : null].filter(Boolean).join(" · ") +
        `\nPrice source: ${item.price.source}, ${utc(item.price.pricedAt)} (1 ${item.currency} = ${[item.price.inr ? `INR ${item.price.inr}` : null, item.price.usd ? `USD ${item.price.usd}` : null].filter(Boolean).join(", ")})`,
    );
  } else {
    row("Value at the time", "No price source was configured at the time: no INR or USD value is stated.");
  }
  doc.moveDown().fontSize(8).fillColor("#555").text(`Reference ${item.id}. Amounts are exact, in the token's units; values are computed from the price recorded when the transaction happened.`);
  doc.end();
  return done;
}

export const KOINLY_COLUMNS = ["Date", "Sent Amount", "Sent Currency", "Received Amount", "Received Currency", "Fee Amount", "Fee Currency", "Net Worth Amount", "Net Worth Currency", "Label", "Description", "TxHash"] as const;

/**
 * A year's items as Koinly's universal CSV. `perspective`: a user's (what their wallet sent and received) or a
 * repository's pool (fundings and boosts received, payouts sent). The net worth is in `fiat` (INR or USD) at the
 * recorded price, empty where none was recorded.
 */
export function statementCsv(items: StatementItem[], options: { perspective: "user" | "repository"; fiat: "INR" | "USD" }): string {
  const rows = [...items]
    .sort((a, b) => a.date.localeCompare(b.date))
    .map((item) => {
      const sent = options.perspective === "user" ? item.direction === "out" : item.kind === "payout";
      const worth = options.fiat === "INR" ? item.valueInr : item.valueUsd;
      const label = sent ? (item.kind === "tip" ? "gift" : "cost") : item.kind === "payout" ? "income" : item.kind === "tip" ? "gift" : "";
      const where = [item.repository, item.issueNumber !== null ? `issue #${item.issueNumber}` : null, item.pullNumber !== null ? `PR #${item.pullNumber}` : null].filter(Boolean).join(" ");
      const description = [
        `${KIND_TITLE[item.kind]}${where ? ` ${where}` : ""}`,
        `from ${item.from.label} to ${item.to.label}`,
        item.price ? `price: ${item.price.source} at ${utc(item.price.pricedAt)}` : "no price recorded",
      ].join("; ");
      // A payer's fee is on top of what arrived: sent = net, fee = fee. A recipient gets the net.
      return [
        utc(item.date),
        sent ? (options.perspective === "user" ? item.net : item.amount) : "",
        sent ? item.currency : "",
        sent ? "" : item.net,
        sent ? "" : item.currency,
        sent && options.perspective === "user" && item.fee !== "0" ? item.fee : "",
        sent && options.perspective === "user" && item.fee !== "0" ? item.currency : "",
        worth ?? "",
        worth ? options.fiat : "",
        label,
        description,
        item.transactionHash,
      ];
    });
  return stringify([[...KOINLY_COLUMNS], ...rows]);
}

export interface InvoiceProfile {
  name: string;
  address: string;
  taxId: string;
}

export async function invoiceProfileOf(ctx: DatabaseDeps, userId: number): Promise<InvoiceProfile> {
  const [row] = await ctx.database.db.select().from(invoiceProfiles).where(eq(invoiceProfiles.userId, userId));
  return { name: row?.name ?? "", address: row?.address ?? "", taxId: row?.taxId ?? "" };
}

const field = (value: unknown, max: number, what: string) => {
  const text = typeof value === "string" ? value.trim() : "";
  if (text.length > max) throw new DomainError({ code: ErrorCode.VALIDATION_FAILED, error: "Too long", message: `The ${what} has at most ${max} characters.` });
  // Control characters (but line breaks in an address) have no place on an invoice.
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, "");
};

/** PUT /api/statements/invoice-profile: what the user's invoices show. */
export async function saveInvoiceProfile(ctx: DatabaseDeps, userId: number, input: { name?: unknown; address?: unknown; taxId?: unknown }): Promise<InvoiceProfile> {
  const values = { name: field(input.name, 200, "name"), address: field(input.address, 500, "address"), taxId: field(input.taxId, 64, "tax id"), updatedAt: new Date() };
  await ctx.database.db.insert(invoiceProfiles).values({ userId, ...values }).onConflictDoUpdate({ target: invoiceProfiles.userId, set: values });
  return invoiceProfileOf(ctx, userId);
}
