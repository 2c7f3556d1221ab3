/**
 * The one API client of the site (spec section 7): same-origin cookies, JSON
 * in and out; POST, PUT and PATCH carry the anti-forgery token in
 * X-CSRF-Token and as `_csrf` in the JSON body, DELETE in the header only,
 * GET none. Errors become ApiRequestError with the server's message (or the
 * spec's fallbacks) and the axios-style code the spec lists.
 */
import type { ResponseAt } from "../../api/openapi/types.ts";
export type { ApiRequestBody, ApiResponse } from "../../api/openapi/types.ts";

export type ApiErrorCode =
  | "ERR_BAD_REQUEST"
  | "ERR_BAD_RESPONSE"
  | "ERR_NETWORK"
  | "ECONNABORTED"
  | "ERR_CANCELED";

export class ApiRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: ApiErrorCode,
    /** The server's error code (e.g. RATE_LIMITED) and full body, when it sent one. */
    readonly serverCode?: string,
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiRequestError";
  }
  /** The short title the server sent (`error`), e.g. 'Registration Error'. */
  get title(): string | undefined {
    return typeof this.body?.error === "string" ? this.body.error : undefined;
  }
}

let csrfToken: string | null = null;
let refreshCsrf: (() => Promise<string | null>) | null = null;
let pendingToken: Promise<string | null> | null = null;

/** The session store keeps the token here, and how to get a fresh one. */
export function useCsrfToken(token: string | null, refresh?: () => Promise<string | null>): void {
  csrfToken = token;
  if (refresh) refreshCsrf = refresh;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
/** T when the caller names it; else the answer of the route at P (no method given: GET). */
type Answer<T, P extends string, M extends Method> = [T] extends [never] ? ResponseAt<P, Method extends M ? "GET" : M> : T;

export interface RequestOptions {
  method?: Method;
  body?: Record<string, unknown> | FormData;
  signal?: AbortSignal;
  /** Gives up after this long with code ECONNABORTED. */
  timeoutMs?: number;
  /**
   * Money-moving requests: one key per user action (newIdempotencyKey()),
   * sent again on retry, so a retried request returns the first result.
   */
  idempotencyKey?: string;
  /** Sends the anti-forgery token on a GET too (spec: the on-ramp transaction list). */
  csrfHeader?: boolean;
}

/** A fresh key for one user action (e.g. one click of "Add XDC"). */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

/**
 * A call to the API, typed from the API document's schemas (api/openapi/types.ts, type-only: nothing of the API is
 * bundled): `api(\`/api/blockchain/pool-info/${repoId}\`)` answers the pool-info body, `api(path, { method: "POST" })`
 * the POST's. A path built as a plain `string` answers `unknown`: name the operation, `api<ApiResponse<"getPoolInfo">>`.
 */
export async function api<T = never, const P extends string = string, M extends Method = Method>(
  path: P,
  options: RequestOptions & { method?: M } = {},
): Promise<Answer<T, P, M>> {
  type A = Answer<T, P, M>;
  // A write before the session's token has arrived (an island acting on load, e.g. finalize-installation on the
  // page GitHub returns to) waits for it instead of going out without one, being refused and retried (issue 27).
  if (options.method && options.method !== "GET" && !csrfToken && refreshCsrf) csrfToken = await (pendingToken ??= refreshCsrf().finally(() => (pendingToken = null)));
  const response = await send(path, options);
  if (response.status === 403 && refreshCsrf && options.method && options.method !== "GET") {
    const body = await response.clone().json().catch(() => null);
    // A token from an earlier session: fetch this session's token and try once more.
    if (body?.code === "csrf_failed") {
      csrfToken = await refreshCsrf();
      return parse<A>(await send(path, options));
    }
  }
  return parse<A>(response);
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { Accept: "application/json" };
  let body: BodyInit | undefined;
  if ((method !== "GET" || options.csrfHeader) && csrfToken) headers["X-CSRF-Token"] = csrfToken;
  if (options.idempotencyKey) headers["Idempotency-Key"] = options.idempotencyKey;
  if (options.body instanceof FormData) {
    body = options.body;
  } else if (method === "POST" || method === "PUT" || method === "PATCH") {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify({ ...(options.body ?? {}), ...(csrfToken ? { _csrf: csrfToken } : {}) });
  }
  const signals = [options.signal, options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined].filter(Boolean) as AbortSignal[];
  try {
    return await fetch(path, {
      method,
      headers,
      body,
      credentials: "same-origin",
      signal: signals.length ? AbortSignal.any(signals) : undefined,
    });
  } catch (err) {
    const name = (err as Error).name;
    if (name === "TimeoutError") throw new ApiRequestError(`timeout of ${options.timeoutMs}ms exceeded`, 0, "ECONNABORTED");
    if (name === "AbortError") throw new ApiRequestError("canceled", 0, "ERR_CANCELED");
    throw new ApiRequestError("Network Error", 0, "ERR_NETWORK");
  }
}

async function parse<T>(response: Response): Promise<T> {
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (response.ok) return data as T;
  const body = (data && typeof data === "object" ? data : undefined) as Record<string, unknown> | undefined;
  const message =
    (typeof body?.message === "string" && body.message) ||
    (typeof body?.error === "string" && body.error) ||
    `API error: ${response.status}`;
  throw new ApiRequestError(
    message,
    response.status,
    response.status >= 500 ? "ERR_BAD_RESPONSE" : "ERR_BAD_REQUEST",
    typeof body?.code === "string" ? body.code : undefined,
    body,
  );
}

/** The message to show for any failure, with the spec's fallback. */
export function errorMessage(err: unknown, fallback = "An error occurred"): string {
  if (err instanceof ApiRequestError) return err.message || fallback;
  return fallback;
}
