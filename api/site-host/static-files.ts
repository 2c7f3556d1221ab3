import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { applyRuntimeMarkers, type RuntimeConfig } from "../../lib/runtime-config.ts";

/**
 * The built site's client files, read into memory once at start: small, and
 * served from memory far faster than from disk. Compressible files are
 * gzipped once here, not per request. Prerendered HTML gets the runtime
 * values (support e-mail, network label, ...) substituted on load.
 */
export interface StaticFile {
  body: Uint8Array;
  gzip?: Uint8Array;
  contentType: string;
  etag: string;
  cacheControl: string;
  /** The page's Content-Security-Policy (Astro sets it as a header on pages rendered on demand). */
  contentSecurityPolicy?: string;
  /** A page's `Link` header: its stylesheets to preload (see `stylesheetPreloads`). */
  link?: string;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".woff2": "font/woff2",
  ".webmanifest": "application/manifest+json",
};
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".svg", ".txt", ".xml", ".webmanifest"]);

export function loadStaticFiles(clientDir: string, runtime: RuntimeConfig): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const path of walk(clientDir)) {
    const url = "/" + relative(clientDir, path).split("\\").join("/");
    const ext = extname(path).toLowerCase();
    let body: Uint8Array = readFileSync(path);
    if (ext === ".html") body = new TextEncoder().encode(applyRuntimeMarkers(new TextDecoder().decode(body), runtime));
    files.set(url, makeStaticFile(body, TYPES[ext] ?? "application/octet-stream", {
      compress: COMPRESSIBLE.has(ext),
      cacheControl: url.startsWith("/_astro/")
        ? "public, max-age=31536000, immutable"
        : "public, max-age=0, must-revalidate",
    }));
  }
  return files;
}

export function makeStaticFile(
  body: Uint8Array,
  contentType: string,
  options: { compress: boolean; cacheControl: string; contentSecurityPolicy?: string | null },
): StaticFile {
  const gzip = options.compress && body.byteLength > 512 ? Bun.gzipSync(body as Uint8Array<ArrayBuffer>, { level: 9 }) : undefined;
  const file: StaticFile = { body, gzip, contentType, etag: `"${Bun.hash(body).toString(36)}"`, cacheControl: options.cacheControl };
  if (options.contentSecurityPolicy) file.contentSecurityPolicy = options.contentSecurityPolicy;
  if (contentType.startsWith("text/html")) {
    const link = stylesheetPreloads(body);
    if (link) file.link = link;
  }
  return file;
}

/**
 * The `Link` header that has a browser fetch a page's own stylesheets while the page itself still arrives and is
 * parsed: `</_astro/Base.x.css>; rel=preload; as=style` for each `<link rel="stylesheet">` of the page's head that
 * points into this site. A first visit on a slow phone otherwise finds the stylesheet only once its main thread
 * has committed the page and parsed the head (200-500 ms later on a 4x slower CPU, scripts/bench/phone-paint.ts),
 * and paints nothing until it has arrived. Undefined when the head has none.
 */
export function stylesheetPreloads(html: Uint8Array): string | undefined {
  const text = new TextDecoder().decode(html.subarray(0, 16_384));
  const headEnd = text.search(/<\/head>|<body[\s>]/i);
  const head = headEnd < 0 ? text : text.slice(0, headEnd);
  const links: string[] = [];
  for (const [tag] of head.matchAll(/<link\b[^>]*>/gi)) {
    if (!/\brel=["']?stylesheet\b/i.test(tag)) continue;
    const value = /\bhref=(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(tag);
    const href = value?.[1] ?? value?.[2] ?? value?.[3];
    // Only the site's own paths (not `//host/...`): nothing a page could smuggle into a header (no commas,
    // semicolons, brackets).
    if (href && /^\/(?!\/)[A-Za-z0-9._~\/-]+$/.test(href)) links.push(`<${href}>; rel=preload; as=style`);
  }
  return links.length ? links.join(", ") : undefined;
}

/** Finds the file for a URL path: exact, then `path/index.html`, then `path.html`. */
export function lookupStaticFile(files: Map<string, StaticFile>, pathname: string): StaticFile | undefined {
  let path: string;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (path.includes("\0")) return undefined;
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  return files.get(trimmed) ?? files.get(`${trimmed === "/" ? "" : trimmed}/index.html`) ?? files.get(`${trimmed}.html`);
}

/** Answers with the file, honouring If-None-Match and Accept-Encoding. */
export function respondWithFile(request: Request, file: StaticFile, status = 200): Response {
  const headers = new Headers({
    "Content-Type": file.contentType,
    "Cache-Control": file.cacheControl,
    ETag: file.etag,
    Vary: "Accept-Encoding",
  });
  if (file.contentSecurityPolicy) headers.set("Content-Security-Policy", file.contentSecurityPolicy);
  if (file.link) headers.set("Link", file.link);
  if (status === 200 && request.headers.get("if-none-match") === file.etag) {
    return new Response(null, { status: 304, headers });
  }
  const useGzip = file.gzip && /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  if (useGzip) headers.set("Content-Encoding", "gzip");
  const body = request.method === "HEAD" ? null : useGzip ? file.gzip! : file.body;
  return new Response(body as BodyInit | null, { status, headers });
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
