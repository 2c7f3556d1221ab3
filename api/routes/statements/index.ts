import { declareRoute, json, noJson, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { Amount, Timestamp, TxHash } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { parseYear, repositoryStatement, statementItem, userStatement } from "../../services/statements/items.ts";
import { invoiceProfileOf, receiptPdf, saveInvoiceProfile, statementCsv } from "../../services/statements/documents.ts";
import { NETWORKS } from "../../chain/networks.ts";
import { CURRENCIES } from "../../../lib/money.ts";

/**
 * Statements and invoices (issue 40, item 3; docs/wallet.md, "Statements"):
 * GET /api/statements?year                              -> { year, priceSource, items: [...] }   the user's payouts, fundings, boosts, tips
 * GET /api/statements/csv?year&fiat                     -> text/csv (Koinly's universal format)
 * GET /api/statements/items/{id}/pdf                    -> application/pdf, the item's receipt or invoice (a party's only)
 * GET /api/statements/repositories/{repoId}?year          -> { year, repository, priceSource, items }, the repository's pool (its registrant's or sponsors')
 * GET /api/statements/repositories/{repoId}/csv?year&fiat -> the same as text/csv
 * GET /api/statements/invoice-profile                   -> { name, address, taxId }
 * PUT /api/statements/invoice-profile { name, address, taxId } -> the same
 */
const YearQuery = z.object({ year: z.string().regex(/^\d{4}$/).optional() });
const CsvQuery = YearQuery.extend({ fiat: z.enum(["INR", "USD"]).default("INR") });
const ItemParam = z.object({ id: z.string().regex(/^0x[0-9a-fA-F]{64}-\d{1,6}$/) });
const RepoParam = z.object({ repoId: z.coerce.number().int().positive() });
const ProfileBody = z.object({ name: z.string().max(400).optional(), address: z.string().max(1000).optional(), taxId: z.string().max(200).optional() });

const noStore = { "Cache-Control": "private, no-store" };

export function statementRoutes(ctx: AppContext) {
  const network = NETWORKS[ctx.env.CHAIN]!.label;
  return new Hono<AppBindings>()
    .get("/", validate("query", YearQuery), async (c) => {
      const user = requireUser(c);
      c.header("Cache-Control", noStore["Cache-Control"]);
      return c.json(await userStatement(ctx, user, parseYear(c.req.valid("query").year)));
    })
    .get("/csv", validate("query", CsvQuery), async (c) => {
      const user = requireUser(c);
      const { year, fiat } = c.req.valid("query");
      const statement = await userStatement(ctx, user, parseYear(year));
      return c.body(statementCsv(statement.items, { perspective: "user", fiat }), 200, {
        ...noStore,
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="issuepool-${user.username}-${statement.year}.csv"`,
      });
    })
    .get("/items/:id/pdf", validate("param", ItemParam), async (c) => {
      const user = requireUser(c);
      const item = await statementItem(ctx, user, c.req.valid("param").id);
      const pdf = await receiptPdf(item, { platform: "Issuepool", network });
      return c.body(pdf.buffer as ArrayBuffer, 200, {
        ...noStore,
        "Content-Type": "application/pdf",
        "Content-Disposition": `attachment; filename="issuepool-${item.kind}-${item.transactionHash.slice(2, 12)}-${item.id.split("-")[1]}.pdf"`,
      });
    })
    .get("/repositories/:repoId", validate("param", RepoParam), validate("query", YearQuery), async (c) => {
      const user = requireUser(c);
      c.header("Cache-Control", noStore["Cache-Control"]);
      return c.json(await repositoryStatement(ctx, user, c.req.valid("param").repoId, parseYear(c.req.valid("query").year)));
    })
    .get("/repositories/:repoId/csv", validate("param", RepoParam), validate("query", CsvQuery), async (c) => {
      const user = requireUser(c);
      const { year, fiat } = c.req.valid("query");
      const statement = await repositoryStatement(ctx, user, c.req.valid("param").repoId, parseYear(year));
      return c.body(statementCsv(statement.items, { perspective: "repository", fiat }), 200, {
        ...noStore,
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="issuepool-${statement.repository.replace("/", "-")}-${statement.year}.csv"`,
      });
    })
    .get("/invoice-profile", async (c) => {
      const user = requireUser(c);
      c.header("Cache-Control", noStore["Cache-Control"]);
      return c.json(await invoiceProfileOf(ctx, user.id));
    })
    .put("/invoice-profile", validate("json", ProfileBody), async (c) => {
      const { user } = requireSession(c);
      return c.json(await saveInvoiceProfile(ctx, user.id, c.req.valid("json")));
    });
}

const PartyShape = z.object({
  login: z.string().nullable(),
  address: z.string().nullable(),
  label: z.string(),
  invoice: z.union([z.object({ name: z.string(), address: z.string(), taxId: z.string() }), z.null()]),
});
const Fiat = z.string().regex(/^\d+\.\d{2}$/);
export const StatementItemShape = z.object({
  id: z.string(),
  kind: z.enum(["payout", "funding", "boost", "tip"]),
  direction: z.enum(["in", "out"]),
  date: Timestamp,
  from: PartyShape,
  to: PartyShape,
  repoId: z.number().int().nullable(),
  repository: z.string().nullable(),
  issueNumber: z.number().int().nullable(),
  pullNumber: z.number().int().nullable(),
  currency: z.enum(CURRENCIES),
  amount: Amount,
  fee: Amount,
  net: Amount,
  transactionHash: TxHash,
  explorerUrl: z.string().nullable(),
  price: z.union([z.object({ source: z.string(), pricedAt: Timestamp, usd: z.string().nullable(), inr: z.string().nullable() }), z.null()]),
  valueUsd: z.union([Fiat, z.null()]),
  valueInr: z.union([Fiat, z.null()]),
});
const InvoiceProfile = z.object({ name: z.string(), address: z.string(), taxId: z.string() });

export const statementsApi = [
  declareRoute({
    method: "get", path: "/api/statements", operationId: "getStatement", tags: ["statements"], security: USER,
    errors: ["validation_failed"],
    summary: "The user's payouts received, fundings, boosts and tips of a year, with the value at the time and its price source",
    request: { query: YearQuery },
    responses: { 200: json("The statement", z.object({ year: z.number().int(), priceSource: z.string().nullable(), items: z.array(StatementItemShape) })) },
  }),
  declareRoute({
    method: "get", path: "/api/statements/csv", operationId: "getStatementCsv", tags: ["statements"], security: USER,
    errors: ["validation_failed"],
    summary: "The user's year as CSV in Koinly's universal format (net worth in INR or USD at the recorded price)",
    request: { query: CsvQuery },
    responses: { 200: noJson("The CSV", "text/csv") },
  }),
  declareRoute({
    method: "get", path: "/api/statements/items/{id}/pdf", operationId: "getStatementItemPdf", tags: ["statements"], security: USER,
    errors: ["not_found", "validation_failed"],
    summary: "One item's receipt (or invoice, for its payer) as PDF; only for a party to it or a reader of its repository's statement",
    request: { params: ItemParam },
    responses: { 200: noJson("The PDF", "application/pdf") },
  }),
  declareRoute({
    method: "get", path: "/api/statements/repositories/{repoId}", operationId: "getRepositoryStatement", tags: ["statements"], security: USER,
    errors: ["not_found", "validation_failed"],
    summary: "A repository's pool for a year: fundings and boosts into it, payouts out of it (its registrant's or a sponsor's)",
    request: { params: RepoParam, query: YearQuery },
    responses: { 200: json("The statement", z.object({ year: z.number().int(), repository: z.string(), priceSource: z.string().nullable(), items: z.array(StatementItemShape) })) },
  }),
  declareRoute({
    method: "get", path: "/api/statements/repositories/{repoId}/csv", operationId: "getRepositoryStatementCsv", tags: ["statements"], security: USER,
    errors: ["not_found", "validation_failed"],
    summary: "A repository's pool for a year as CSV (its registrant's or a sponsor's expense report)",
    request: { params: RepoParam, query: CsvQuery },
    responses: { 200: noJson("The CSV", "text/csv") },
  }),
  declareRoute({
    method: "get", path: "/api/statements/invoice-profile", operationId: "getInvoiceProfile", tags: ["statements"], security: USER,
    summary: "The name, address and tax id the user's invoices show",
    responses: { 200: json("The invoice details", InvoiceProfile) },
  }),
  declareRoute({
    method: "put", path: "/api/statements/invoice-profile", operationId: "saveInvoiceProfile", tags: ["statements"], security: SESSION_WRITE,
    errors: ["validation_failed"],
    summary: "Sets the name, address and tax id the user's invoices show",
    request: { body: { content: { "application/json": { schema: ProfileBody } }, required: true } },
    responses: { 200: json("The invoice details", InvoiceProfile) },
  }),
];
