import { Hono } from "hono";
import { ANONYMOUS, declareRoute, json, noJson, SESSION, SESSION_WRITE, z } from "../../openapi/declare.ts";
import { Timestamp } from "../../openapi/shapes.ts";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import {
  deleteSavedSearch,
  listSavedSearches,
  savedSearchView,
  saveSearch,
  unsubscribeDigests,
  updateSavedSearch,
  verifyUnsubscribeToken,
} from "../../services/alerts/saved-searches.ts";

/**
 * Saved explore searches and their daily digest (issue 30). A browser session; writes need the anti-forgery
 * token; another user's search is 404. The unsubscribe link of the digest (RFC 8058) needs neither: its signed
 * token authenticates it, a GET only shows a confirm page, the POST (a mail client's one-click, or that page's
 * button) unsubscribes.
 *
 * GET    /api/alerts/searches
 * POST   /api/alerts/searches             { name?, query, digest? }   201
 * PATCH  /api/alerts/searches/:id         { name?, digest? }
 * DELETE /api/alerts/searches/:id
 * GET    /api/alerts/unsubscribe?token=   confirm page (HTML)
 * POST   /api/alerts/unsubscribe?token=   one-click unsubscribe (HTML)
 */
const SavedSearch = z
  .object({
    id: z.string(),
    name: z.string(),
    query: z.string().meta({ description: "The explore page's URL query, canonical (explore's order, defaults left out)" }),
    digest: z.boolean(),
    createdAt: Timestamp,
  })
  .openapi("SavedSearch");
const CreateBody = z.object({
  name: z.string().max(100).optional(),
  query: z.string().max(1000).meta({ description: "The explore page's URL query (q, currency, min, max, label, language, repo, unclaimed, sort; cursor and limit are dropped)" }),
  digest: z.boolean().optional(),
  _csrf: z.string().optional(),
});
const UpdateBody = z.object({ name: z.string().min(1).max(100).optional(), digest: z.boolean().optional(), _csrf: z.string().optional() });
const IdParam = z.object({ id: z.string().min(1).max(64) });
const TokenQuery = z.object({ token: z.string().min(1).max(200) });

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${title} · Issuepool</title></head><body style="font:16px/1.5 system-ui,sans-serif;color:#1f2328;max-width:520px;margin:48px auto;padding:0 16px"><h1 style="font-size:22px">${title}</h1>${body}<p><a href="/">Issuepool</a></p></body></html>`;

export function alertSearchRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/searches", async (c) => {
      const { user } = requireSession(c);
      c.header("Cache-Control", "private, no-store");
      return c.json({ searches: (await listSavedSearches(ctx, user)).map(savedSearchView) });
    })
    .post("/searches", validate("json", CreateBody), async (c) => {
      const { user } = requireSession(c);
      return c.json({ search: savedSearchView(await saveSearch(ctx, user, c.req.valid("json"))) }, 201);
    })
    .patch("/searches/:id", validate("param", IdParam), validate("json", UpdateBody), async (c) => {
      const { user } = requireSession(c);
      return c.json({ search: savedSearchView(await updateSavedSearch(ctx, user, c.req.valid("param").id, c.req.valid("json"))) });
    })
    .delete("/searches/:id", validate("param", IdParam), async (c) => {
      const { user } = requireSession(c);
      await deleteSavedSearch(ctx, user, c.req.valid("param").id);
      return c.json({ success: true });
    })
    .get("/unsubscribe", validate("query", TokenQuery), async (c) => {
      c.header("Cache-Control", "no-store");
      c.header("Referrer-Policy", "no-referrer");
      const { token } = c.req.valid("query");
      if ((await verifyUnsubscribeToken(ctx.appSecret, token)) === undefined) {
        return c.html(page("Link not valid", "<p>This unsubscribe link is not valid. Change your alerts in your settings.</p>"), 404);
      }
      // A GET never unsubscribes (link scanners fetch every link of a mail): the button POSTs the same URL.
      const action = `/api/alerts/unsubscribe?token=${encodeURIComponent(token)}`;
      return c.html(
        page(
          "Stop the daily digest?",
          `<p>You will no longer receive the daily e-mail of new bounties matching your saved searches, nor its list of pull requests waiting for your review. Your searches stay saved.</p><form method="post" action="${action.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit" style="font:inherit;padding:8px 16px">Unsubscribe</button></form>`,
        ),
      );
    })
    .post("/unsubscribe", validate("query", TokenQuery), async (c) => {
      c.header("Cache-Control", "no-store");
      const userId = await verifyUnsubscribeToken(ctx.appSecret, c.req.valid("query").token);
      if (userId === undefined) return c.html(page("Link not valid", "<p>This unsubscribe link is not valid.</p>"), 404);
      await unsubscribeDigests(ctx, userId);
      return c.html(page("Unsubscribed", "<p>You will no longer receive the daily digest. Turn it back on for any saved search in your settings.</p>"));
    });
}

const tags = ["alerts"];
export const alertSearchesApi = [
  declareRoute({
    method: "get", path: "/api/alerts/searches", operationId: "listSavedSearches", tags, security: SESSION,
    summary: "The caller's saved searches",
    responses: { 200: json("The searches", z.object({ searches: z.array(SavedSearch) })) },
  }),
  declareRoute({
    method: "post", path: "/api/alerts/searches", operationId: "saveSearch", tags, security: SESSION_WRITE,
    errors: ["already_saved", "invalid_search", "invalid_search_text", "quota_exceeded", "validation_failed"],
    summary: "Saves an explore search (its URL query); its digest lists bounties allocated from now on",
    request: { body: { content: { "application/json": { schema: CreateBody } } } },
    responses: { 201: json("Saved", z.object({ search: SavedSearch })) },
  }),
  declareRoute({
    method: "patch", path: "/api/alerts/searches/{id}", operationId: "updateSavedSearch", tags, security: SESSION_WRITE,
    errors: ["invalid_search_text", "not_found", "validation_failed"],
    summary: "Renames a saved search or turns its digest on or off",
    request: { params: IdParam, body: { content: { "application/json": { schema: UpdateBody } } } },
    responses: { 200: json("Changed", z.object({ search: SavedSearch })) },
  }),
  declareRoute({
    method: "delete", path: "/api/alerts/searches/{id}", operationId: "deleteSavedSearch", tags, security: SESSION_WRITE,
    errors: ["not_found", "validation_failed"],
    summary: "Deletes a saved search",
    request: { params: IdParam },
    responses: { 200: json("Deleted", z.object({ success: z.literal(true) })) },
  }),
  declareRoute({
    method: "get", path: "/api/alerts/unsubscribe", operationId: "confirmDigestUnsubscribe", tags, security: ANONYMOUS,
    errors: ["validation_failed"],
    summary: "The digest's unsubscribe link: a confirm page (never unsubscribes by itself)",
    request: { query: TokenQuery },
    responses: { 200: noJson("The confirm page", "text/html"), 404: noJson("Not a valid link", "text/html") },
  }),
  declareRoute({
    method: "post", path: "/api/alerts/unsubscribe", operationId: "unsubscribeDigest", tags, security: ANONYMOUS,
    errors: ["validation_failed"],
    summary: "One-click unsubscribe (RFC 8058): the signed token authenticates it, no session or anti-forgery token",
    request: { query: TokenQuery },
    responses: { 200: noJson("Unsubscribed", "text/html"), 404: noJson("Not a valid link", "text/html") },
  }),
];
