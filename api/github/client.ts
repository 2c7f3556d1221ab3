/**
 * The one GitHub REST client. Base URL from configuration (github.com's API
 * in production, the emulator in development and tests); a user's OAuth
 * token, an installation token or an app JWT as the credential.
 */
export interface GitHubClientOptions {
  apiUrl: string;
  token?: string;
  timeoutMs?: number;
  userAgent?: string;
}

export class GitHubApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
    readonly rateLimited: boolean,
  ) {
    super(message);
    this.name = "GitHubApiError";
  }
}

/**
 * GitHub did not answer (refused, reset, timed out) or answered as a server in trouble (5xx), here or in what
 * `err` was caused by: worth trying again once it answers, unlike a refusal (4xx) or a spent rate limit.
 */
export function isGitHubUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof GitHubApiError && (e.status === 0 || e.status >= 500)) return true;
  }
  return false;
}

/** Whether GitHub's API answers at all: `GET /rate_limit`, which GitHub does not count against any budget. */
export async function gitHubAnswers(apiUrl: string, timeoutMs = 3_000): Promise<boolean> {
  try {
    await createGitHubClient({ apiUrl, timeoutMs }).get("/rate_limit");
    return true;
  } catch (err) {
    return !isGitHubUnavailable(err);
  }
}

export interface GitHubResponse<T> {
  status: number;
  data: T;
  headers: Headers;
}

type Query = Record<string, string | number | boolean | undefined>;

export interface GitHubClient {
  request<T>(method: string, path: string, options?: { query?: Query; body?: unknown }): Promise<GitHubResponse<T>>;
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  /** Every page of a list endpoint, following `Link: <…>; rel="next"`, up to `maxPages`. */
  paginate<T>(path: string, query?: Query, maxPages?: number): Promise<T[]>;
  /** The same for endpoints that wrap their list in an object (`{ total_count, repositories: [...] }`). */
  paginateField<T>(path: string, field: string, query?: Query, maxPages?: number): Promise<T[]>;
}

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const base = options.apiUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 10_000;

  const send = async <T>(method: string, url: string, body?: unknown): Promise<GitHubResponse<T>> => {
    const headers: Record<string, string> = {
      Accept: "application/vnd.github+json",
      "X-GitHub-Api-Version": "2022-11-28",
      "User-Agent": options.userAgent ?? "Issuepool",
    };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new GitHubApiError(0, `GitHub could not be reached (${(err as Error).name})`, null, false);
    }
    const text = await response.text();
    let data: unknown = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = text;
    }
    if (!response.ok) {
      const message = typeof data === "object" && data && "message" in data ? String((data as { message: unknown }).message) : response.statusText;
      const rateLimited = (response.status === 403 || response.status === 429) && response.headers.get("x-ratelimit-remaining") === "0";
      throw new GitHubApiError(response.status, message, data, rateLimited);
    }
    return { status: response.status, data: data as T, headers: response.headers };
  };

  const url = (path: string, query?: Query) => {
    const u = new URL(path.startsWith("http") ? path : `${base}${path.startsWith("/") ? "" : "/"}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  };

  const pages = async <T>(path: string, query: Query, maxPages: number, items: (data: unknown) => T[]): Promise<T[]> => {
    const out: T[] = [];
    let next: string | undefined = url(path, { per_page: 100, ...query });
    for (let page = 0; next && page < maxPages; page++) {
      const response: GitHubResponse<unknown> = await send<unknown>("GET", next);
      out.push(...items(response.data));
      next = nextLink(response.headers.get("link"));
    }
    return out;
  };

  return {
    request: (method, path, opts) => send(method, url(path, opts?.query), opts?.body),
    get: async (path, query) => (await send("GET", url(path, query))).data as never,
    post: async (path, body) => (await send("POST", url(path), body)).data as never,
    patch: async (path, body) => (await send("PATCH", url(path), body)).data as never,
    paginate<T>(path: string, query: Query = {}, maxPages = 10): Promise<T[]> {
      return pages<T>(path, query, maxPages, (data) => data as T[]);
    },
    paginateField<T>(path: string, field: string, query: Query = {}, maxPages = 10): Promise<T[]> {
      return pages<T>(path, query, maxPages, (data) => ((data as Record<string, unknown>)[field] ?? []) as T[]);
    },
  };
}


export function nextLink(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(",")) {
    const match = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (match) return match[1];
  }
  return undefined;
}

/** The GitHub user and e-mail shapes the platform reads. */
export interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
  avatar_url: string;
  bio: string | null;
  location: string | null;
  blog: string | null;
  type?: string;
}

export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}
