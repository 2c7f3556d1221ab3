import { makeStaticFile, type StaticFile } from "./static-files.ts";

/**
 * Rendered HTML of the on-demand public pages, kept in memory. A page opts in
 * by setting the `X-Page-Cache` header, e.g. `max-age=120; tags=repositories`:
 * the age comes from the spec's cache ages, the tags name the data the page
 * shows. When that data changes, `invalidate(tag)` drops every page that
 * shows it, so a cached page is never older than its data in this process and
 * never older than its max-age anywhere.
 *
 * Cacheable pages must not depend on who is asking: their signed-in parts are
 * islands that load after the page. Or, with `; anonymous` in the header, the
 * cached copy is the anonymous visitor's page only: a request that carries a
 * session is rendered afresh (the page then sets no `X-Page-Cache`), so a
 * signed-in viewer can get parts an anonymous page must not ship (React).
 */
export const PAGE_CACHE_HEADER = "X-Page-Cache";

/** `/path?query` of a request URL, without parsing it (the site's page-cache key). */
export function pathAndQuery(url: string): string {
  return url.slice(url.indexOf("/", url.indexOf("//") + 2));
}

/** The path of a `/path?query` key. */
export function pathOfKey(key: string): string {
  const queryAt = key.indexOf("?");
  return queryAt === -1 ? key : key.slice(0, queryAt);
}

interface Entry {
  file: StaticFile;
  expiresAt: number;
  tags: string[];
  anonymousOnly: boolean;
}

export interface CachePolicy {
  maxAge: number;
  tags: string[];
  /** The page is the anonymous visitor's: never served from the cache to a request with a session. */
  anonymousOnly: boolean;
}

export function parseCachePolicy(value: string | null): CachePolicy | undefined {
  if (!value) return undefined;
  const maxAge = Number(/max-age=(\d+)/.exec(value)?.[1]);
  if (!Number.isFinite(maxAge) || maxAge <= 0) return undefined;
  const tags = (/tags=([^;]+)/.exec(value)?.[1] ?? "").split(",").map((t) => t.trim()).filter(Boolean);
  return { maxAge, tags, anonymousOnly: /(^|;)\s*anonymous\s*(;|$)/.test(value) };
}

export class PageCache {
  private entries = new Map<string, Entry>();
  private inflight = new Map<string, Promise<StaticFile | undefined>>();
  /** Bumped on every invalidation, so a render that started before it is not stored. */
  private generation = 0;

  constructor(
    private readonly maxEntries = 2000,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * A fresh copy for `key`; none for a request with a session (`signedIn`) when the copy is the anonymous page.
   * `signedIn` may be a function: it is asked only for such a copy (issue 38: every cached page's request paid for
   * reading its cookie, the cached /repos 7-9 % more CPU than four days before).
   */
  get(key: string, signedIn: boolean | (() => boolean) = false): StaticFile | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    if (entry.anonymousOnly && (typeof signedIn === "function" ? signedIn() : signedIn)) return undefined;
    return entry.file;
  }

  /**
   * Renders through `render` unless a fresh copy exists; concurrent misses for
   * one key share a single render. Returns the cached file, or the rendered
   * response when the page did not opt in (or failed).
   */
  async getOrRender(key: string, render: () => Promise<Response>, options: { signedIn?: boolean } = {}): Promise<StaticFile | Response> {
    const hit = this.get(key, options.signedIn);
    if (hit) return hit;
    // A request with a session renders on its own when the page is the anonymous one's (a render in flight may be
    // an anonymous visitor's, which it must not be given).
    if (options.signedIn && this.entries.get(key)?.anonymousOnly) return render();
    const pending = options.signedIn ? undefined : this.inflight.get(key);
    if (pending) return (await pending) ?? render();

    let share!: (file: StaticFile | undefined) => void;
    this.inflight.set(key, new Promise((resolve) => (share = resolve)));
    const generation = this.generation;
    try {
      const response = await render();
      const policy = parseCachePolicy(response.headers.get(PAGE_CACHE_HEADER));
      if (!policy || response.status !== 200) {
        share(undefined);
        return response;
      }
      const body = new Uint8Array(await response.arrayBuffer());
      const file = makeStaticFile(body, response.headers.get("content-type") ?? "text/html; charset=utf-8", {
        compress: true,
        // The anonymous visitor's copy: a browser that signs in afterwards must ask again (its ETag makes that cheap),
        // and no shared cache may hand it to someone with a session.
        cacheControl: policy.anonymousOnly ? "private, no-cache" : `public, max-age=${policy.maxAge}`,
        contentSecurityPolicy: response.headers.get("content-security-policy"),
      });
      // A render that began before an invalidation may show the old data: serve it to
      // the requests that waited for it, but do not keep it.
      if (generation === this.generation) {
        this.store(key, { file, expiresAt: this.now() + policy.maxAge * 1000, tags: policy.tags, anonymousOnly: policy.anonymousOnly });
      }
      share(file);
      return file;
    } catch (err) {
      share(undefined);
      throw err;
    } finally {
      this.inflight.delete(key);
    }
  }

  invalidate(tag: string): void {
    this.generation++;
    for (const [key, entry] of this.entries) {
      if (entry.tags.includes(tag)) this.entries.delete(key);
    }
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  private store(key: string, entry: Entry): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, entry);
  }
}
