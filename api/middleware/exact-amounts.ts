import type { MiddlewareHandler } from "hono";

/** The money fields of request bodies (spec section 7 and ours beyond it). */
export const MONEY_FIELDS = new Set(["amount", "amountXdc", "roxnAmount", "usdcAmount", "bountyAmount"]);

/**
 * Parses JSON keeping the exact source text of every number in a money
 * field: `{"amount": 1.9999999999999999999}` gives the string
 * "1.9999999999999999999" (which the amount parser then refuses for its 19
 * decimals), where JSON.parse alone would give 2 and withdraw two XDC.
 * Other numbers (ids, issue numbers) stay numbers.
 */
export function parseJsonKeepingAmounts(text: string): unknown {
  return JSON.parse(text, function (key, value, context?: { source?: string }) {
    return typeof value === "number" && MONEY_FIELDS.has(key) && context?.source !== undefined ? context.source : value;
  });
}

/**
 * For JSON request bodies: the body the validators read (`c.req.json()`) is
 * parsed by parseJsonKeepingAmounts, so a client that sends amounts as JSON
 * numbers keeps every digit it sent (issue 25). Webhook routes read their raw
 * bodies themselves and are left alone; a body that is not JSON is left for
 * the validator to refuse as before.
 */
export function exactAmounts(skip: string[]): MiddlewareHandler {
  return async (c, next) => {
    const method = c.req.method;
    if ((method === "POST" || method === "PUT" || method === "PATCH") && /json/i.test(c.req.header("content-type") ?? "") && !skip.some((p) => c.req.path.startsWith(p))) {
      const text = await c.req.text();
      // Hono's json() parses the cached text on each call: this request's parses keep the amounts' text. A body
      // that is not JSON throws here as it did there, and the validator answers as it always has.
      (c.req as { json: () => Promise<unknown> }).json = async () => parseJsonKeepingAmounts(text);
    }
    await next();
  };
}
