import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../context.ts";
import type { Env } from "../env.ts";
import type { Logger } from "../logger.ts";
import { outsideTheApp, type RequestObserver } from "./edge.ts";
import { allowCredentialedOrigin, allowPublicRead } from "./cors.ts";
import { PAGE_CACHE_HEADER, pathAndQuery, pathOfKey, type PageCache } from "../site-host/page-cache.ts";
import { respondWithFile, type StaticFile } from "../site-host/static-files.ts";
import { EXPLORE_PARAMS } from "../services/explore/search.ts";

/**
 * The query parameters a cached public read looks at, by path. Any other
 * parameter cannot change an answer (query schemas ignore unknown keys), so
 * it is left out of the cache key: a flood of `?x=<random>` is served from
 * the cache instead of costing a render each. A cached route that reads a
 * query parameter must be listed here.
 */
export const CACHE_KEY_PARAMS: Record<string, readonly string[]> = {
  "/api/public/github/issues": ["owner", "repo"],
  "/api/repos/details": ["owner", "repo"],
  "/api/explore": EXPLORE_PARAMS,
  "/api/repositories/public": ["limit", "cursor"],
  "/api/leaderboard/contributors": ["period"],
  "/api/leaderboard/projects": ["period"],
};

/** The public reads that may be cached (api/app.ts mounts the middleware on these). */
export const PUBLIC_CACHED_PATHS = ["/api/repositories/public", "/api/public/*", "/api/repos/*", "/api/badges/*", "/api/explore", "/api/leaderboard/*", "/api/contributors/*"] as const;

function isPublicCachedPath(path: string): boolean {
  return (
    path === "/api/repositories/public" ||
    path === "/api/explore" ||
    path.startsWith("/api/public/") ||
    path.startsWith("/api/repos/") ||
    path.startsWith("/api/badges/") ||
    path.startsWith("/api/leaderboard/") ||
    path.startsWith("/api/contributors/")
  );
}

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
    const result = await cache.getOrRender(cacheKey(c.req.url), async () => {
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

/** The path, plus the parameters that matter for it, in a fixed order (this runs on every cached read: no URL parsing without a query). */
export function cacheKey(url: string): string {
  const raw = pathAndQuery(url);
  const path = pathOfKey(raw);
  if (path === raw) return raw;
  const names = CACHE_KEY_PARAMS[path];
  if (!names) return path;
  const params = new URLSearchParams(raw.slice(path.length + 1));
  const kept = new URLSearchParams();
  for (const name of names) for (const value of params.getAll(name)) kept.append(name, value);
  const query = kept.toString();
  return path + (query ? `?${query}` : "");
}

/**
 * A place an answer may already be waiting in: a file for this URL (and the
 * path to log, and whether it is a public read that any origin may read:
 * cors.ts), or nothing.
 */
export type EarlySource = (url: string, request: Request) => { file: StaticFile; path: string; publicRead?: boolean } | undefined;

/** The public API reads, as the middleware above keys them. */
export function publicReadsSource(cache: PageCache): EarlySource {
  return (url) => {
    const key = cacheKey(url);
    const path = pathOfKey(key);
    if (!isPublicCachedPath(path)) return undefined;
    const file = cache.get(key);
    // Every cached public read is one of cors.ts's public reads (cors.test.ts checks the two lists).
    return file && { file, path, publicRead: true };
  };
}

/**
 * Answers from memory before the app (api/server.ts): a fresh cached public
 * read or page, or a built file, leaves at once with what `edge` gives every
 * response (request id, headers, log line); anything else, a miss included,
 * goes to the app. Safe because these answers do not depend on who asks, and
 * a cache entry exists only if the app routed that very key to a cacheable
 * handler before.
 */
export function earlyAnswers(env: Env, log: Logger, sources: EarlySource[], observe?: RequestObserver): (request: Request) => Response | undefined {
  const finish = outsideTheApp(env, log, observe);
  return (request) => {
    if (request.method !== "GET") return undefined;
    for (const source of sources) {
      const found = source(request.url, request);
      if (!found) continue;
      const response = respondWithFile(request, found.file);
      if (found.publicRead) {
        const origin = request.headers.get("origin");
        if (origin && env.ALLOWED_ORIGINS.includes(origin)) allowCredentialedOrigin(response.headers, origin);
        else allowPublicRead(response.headers);
      }
      return finish(request, found.path, response, performance.now());
    }
    return undefined;
  };
}
