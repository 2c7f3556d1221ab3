import { declareRoute, json, SESSION, USER } from "../../openapi/declare.ts";
import { Timestamp } from "../../openapi/shapes.ts";
import { Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { csrfRefused } from "../../middleware/csrf.ts";
import { listOnrampTransactions, RETURN_PAGES, startOnrampOrder } from "../../services/onramp/orders.ts";

export const ONRAMP_URL_RATE_LIMIT = { name: "wallet-onramp-url", perIp: 120, perUser: 30, windowMs: 3600 * 1000 };

const StartQuery = z.object({ returnTo: z.enum(RETURN_PAGES).optional() });
const ListQuery = z.object({ limit: z.coerce.number().int().min(1).max(50).default(10) });

/**
 * The spec makes these GETs, yet they record an order. The anti-forgery
 * check does not cover GET, so they answer only the site's own pages
 * (Sec-Fetch-Site, which browsers set and pages cannot forge); a link or
 * image on another site gets 403 and records nothing.
 */
const sameSiteOnly: MiddlewareHandler<AppBindings> = async (c, next) => {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin") throw csrfRefused("This request did not come from this site.");
  await next();
};

/**
 * GET /api/wallet/buy-xdc-url                 -> { url }   the provider's buy page (opened in a new tab)
 * GET /api/wallet/sell-xdc-url                -> { url }   the provider's sell page; needs XDC above 0
 * GET /api/wallet/onramp-transactions?limit=10 -> { transactions: [...] }
 */
export function onrampRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/buy-xdc-url", sameSiteOnly, rateLimit(ctx, ONRAMP_URL_RATE_LIMIT), validate("query", StartQuery), async (c) => {
      const { user } = requireSession(c);
      const { url } = await startOnrampOrder(ctx, { user, kind: "buy", returnTo: c.req.valid("query").returnTo });
      return c.json({ url });
    })
    .get("/sell-xdc-url", sameSiteOnly, rateLimit(ctx, ONRAMP_URL_RATE_LIMIT), validate("query", StartQuery), async (c) => {
      const { user } = requireSession(c);
      const { url } = await startOnrampOrder(ctx, { user, kind: "sell", returnTo: c.req.valid("query").returnTo });
      return c.json({ url });
    })
    .get("/onramp-transactions", validate("query", ListQuery), async (c) => {
      const user = requireUser(c);
      return c.json({ transactions: await listOnrampTransactions(ctx, user.id, c.req.valid("query").limit) });
    });
}

export const OnrampTransaction = z.object({
  id: z.string(), amount: z.string().nullable(), orderId: z.string().nullable(), status: z.string(), createdAt: Timestamp,
  type: z.enum(["onramp", "offramp"]), coin: z.string(), fiatAmount: z.string().nullable(), fiatCurrency: z.string(),
  transactionHash: z.string().nullable(), explorerUrl: z.string().nullable(),
  metadata: z.object({ transactionType: z.enum(["onramp", "offramp"]) }),
});
const ProviderUrl = json("The provider's hosted page", z.object({ url: z.string() }));

export const onrampApi = [
  declareRoute({
    method: "get", path: "/api/wallet/buy-xdc-url", operationId: "startXdcPurchase", tags: ["wallet"], security: SESSION,
    errors: ["chain_unavailable", "csrf_failed", "insufficient_balance", "rate_limited", "validation_failed", "wallet_required"],
    summary: "Records a buy order; the provider's buy page (same-site requests only)",
    request: { query: StartQuery },
    responses: { 200: ProviderUrl },
  }),
  declareRoute({
    method: "get", path: "/api/wallet/sell-xdc-url", operationId: "startXdcSale", tags: ["wallet"], security: SESSION,
    errors: ["chain_unavailable", "csrf_failed", "insufficient_balance", "rate_limited", "validation_failed", "wallet_required"],
    summary: "Records a sell order; the provider's sell page (same-site requests only)",
    request: { query: StartQuery },
    responses: { 200: ProviderUrl },
  }),
  declareRoute({
    method: "get", path: "/api/wallet/onramp-transactions", operationId: "listOnrampTransactions", tags: ["wallet"], security: USER,
    errors: ["validation_failed"],
    summary: "Buy and sell orders, newest first",
    request: { query: ListQuery },
    responses: { 200: json("The orders", z.object({ transactions: z.array(OnrampTransaction) })) },
  }),
];
