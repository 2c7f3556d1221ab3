import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../context.ts";
import { PAGE_CACHE_HEADER, type PageCache } from "../site/page-cache.ts";
import { respondWithFile } from "../site/static-files.ts";

/**
 * Public API reads kept in memory, the same way as public pages: a handler
 * opts in by setting `X-Page-Cache: max-age=<spec age>; tags=<data>` and the
 * response is kept (gzipped, with an ETag) until its age passes or the data
 * changes (ChangeFeed -> invalidate). Only for answers that do not depend on
 * who asks.
 */
export function cachePublicResponses(cache: PageCache): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    if (c.req.method !== "GET") return next();
    // Path and query from the raw URL without parsing it (this runs on every cached read).
    const raw = c.req.url;
    const result = await cache.getOrRender(raw.slice(raw.indexOf("/", raw.indexOf("//") + 2)), async () => {
      await next();
      return c.res;
    });
    if (result instanceof Response) {
      if (result !== c.res) c.res = result;
      c.res.headers.delete(PAGE_CACHE_HEADER);
      return;
    }
    c.res = respondWithFile(c.req.raw, result);
  };
}
