import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Context, Hono } from "hono";
import type { AppBindings } from "../context.ts";
import type { RuntimeConfig } from "../../lib/runtime-config.ts";
import { PAGE_CACHE_HEADER, PageCache, pathAndQuery, pathOfKey } from "./page-cache.ts";
import { loadStaticFiles, lookupStaticFile, respondWithFile, type StaticFile } from "./static-files.ts";
import { clientAddress } from "../middleware/client-address.ts";
import type { EarlySource } from "../middleware/response-cache.ts";

/** What pages receive as `Astro.locals`. */
export interface SiteLocals {
  runtime: RuntimeConfig;
  [key: string]: unknown;
}

export interface SiteOptions {
  distDir: string;
  runtime: RuntimeConfig;
  /** Built per request: the services pages read data through. */
  locals: (c: Context<AppBindings>) => SiteLocals;
  trustProxy?: boolean;
  /** Whether a request carries a session (its cookie): pages cached as the anonymous visitor's are rendered afresh for it. */
  signedIn?: (request: Request) => boolean;
}

type AstroHandler = (request: Request, context: {
  locals: object;
  clientAddress?: string;
  prerenderedErrorPageFetch: (url: string) => Promise<Response>;
}) => Promise<Response>;

export interface Site {
  pageCache: PageCache;
  /** The built files and the cached pages, for answering before the app (api/server.ts). */
  early: EarlySource;
  mount(app: Hono<AppBindings>): void;
}

export class SiteNotBuiltError extends Error {}

/**
 * The Astro site inside the Hono app: after the API routes come the built
 * client files (from memory), then Astro rendering on demand through the
 * in-repo adapter, with cacheable public pages kept in `pageCache`.
 */
export async function createSite(options: SiteOptions): Promise<Site> {
  const distDir = resolve(options.distDir);
  const entry = join(distDir, "server", "entry.mjs");
  if (!existsSync(entry)) {
    throw new SiteNotBuiltError(`The site is not built (${entry} is missing). Run \`npm run build\` or \`npm start\`.`);
  }
  const { handler } = (await import(pathToFileURL(entry).href)) as { handler: AstroHandler };
  const files = loadStaticFiles(join(distDir, "client"), options.runtime);
  const pageCache = new PageCache();

  const errorPage = async (url: string) => {
    const path = new URL(url, "http://site").pathname;
    const file = lookupStaticFile(files, path);
    return file
      ? new Response(file.body as BodyInit, { headers: { "Content-Type": file.contentType } })
      : new Response("Not found", { status: 404 });
  };

  const render = (c: Context<AppBindings>, request: Request) =>
    handler(request, {
      locals: options.locals(c),
      clientAddress: clientAddress(c, options.trustProxy),
      prerenderedErrorPageFetch: errorPage,
    });

  return {
    pageCache,
    early: (url, request) => {
      const key = pathAndQuery(url);
      const path = pathOfKey(key);
      // "/" redirects, and /api/* and the routes mounted before the site (/dev/mail) are the app's.
      if (path === "/" || path.startsWith("/api/") || path.startsWith("/dev/")) return undefined;
      const signedIn = options.signedIn;
      const file = lookupStaticFile(files, path) ?? pageCache.get(key, signedIn ? () => signedIn(request) : false);
      return file && { file, path };
    },
    mount(app) {
      app.get("/", (c) => c.redirect("/repos", 302));

      app.on(["GET", "HEAD"], "*", async (c, next) => {
        const file = lookupStaticFile(files, c.req.path);
        if (!file) return next();
        return respondWithFile(c.req.raw, file);
      });

      app.all("*", async (c) => {
        const method = c.req.method;
        if (method !== "GET" && method !== "HEAD") return render(c, c.req.raw);
        // HEAD renders as GET; the body is dropped by respondWithFile or below.
        const request = method === "HEAD" ? new Request(c.req.raw, { method: "GET" }) : c.req.raw;
        const result = await pageCache.getOrRender(pathAndQuery(c.req.url), () => render(c, request), { signedIn: options.signedIn?.(c.req.raw) });
        if (isStaticFile(result)) return respondWithFile(c.req.raw, result);
        result.headers.delete(PAGE_CACHE_HEADER);
        return method === "HEAD" ? new Response(null, { status: result.status, headers: result.headers }) : result;
      });
    },
  };
}

function isStaticFile(value: StaticFile | Response): value is StaticFile {
  return !(value instanceof Response);
}
