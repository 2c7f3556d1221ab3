/**
 * REST plumbing shared by every endpoint: GitHub's error bodies, `Link`
 * pagination and JSON body parsing.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Caller } from "./access.ts";
import type { Json } from "./shapes-accounts.ts";
import type { RepoRecord } from "./state.ts";

export type ApiEnv = { Variables: { caller: Caller; repo: RepoRecord } };
export type ApiContext = Context<ApiEnv>;

export const DOCS_URL = "https://docs.github.com/rest";

/** `{ message, documentation_url, status }`, GitHub's error body. */
export function apiError(c: Context, status: number, message: string, extra: Json = {}): Response {
  return c.json({ message, documentation_url: DOCS_URL, status: String(status), ...extra }, status as ContentfulStatusCode);
}

export const notFound = (c: Context) => apiError(c, 404, "Not Found");

/** 422 with GitHub's `errors` list, e.g. a missing field. */
export function validationFailed(c: Context, resource: string, field: string, code = "missing_field"): Response {
  return apiError(c, 422, "Validation Failed", { errors: [{ resource, code, field }] });
}

/** `per_page` (default 30, at most 100) and `page` (from 1); nonsense falls back to the defaults, as on GitHub. */
function pageParams(c: Context): { perPage: number; page: number } {
  const perPage = Number.parseInt(c.req.query("per_page") ?? "", 10);
  const page = Number.parseInt(c.req.query("page") ?? "", 10);
  return { perPage: perPage > 0 ? Math.min(perPage, 100) : 30, page: page > 0 ? page : 1 };
}

/** Returns the requested page of `items` and sets the `Link` header (prev, next, last, first) when there is more than one page. */
export function paginate<T>(c: Context, items: T[]): T[] {
  const { perPage, page } = pageParams(c);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number, rel: string) => {
    const url = new URL(c.req.url);
    url.searchParams.set("per_page", String(perPage));
    url.searchParams.set("page", String(n));
    return `<${url}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(Math.min(page - 1, last), "prev"));
  if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
  if (page > 1) links.push(link(1, "first"));
  if (links.length > 0) c.header("Link", links.join(", "));
  return items.slice((page - 1) * perPage, page * perPage);
}

/** The JSON object body, or undefined when it is missing or not an object ("Problems parsing JSON"). */
export async function jsonBody(c: Context): Promise<Record<string, unknown> | undefined> {
  try {
    const body: unknown = await c.req.json();
    return body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** "A1B2:3C4D:..." like GitHub's x-github-request-id. */
export function requestId(): string {
  const hex = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("").toUpperCase();
  return `${hex(2)}:${hex(2)}:${hex(3)}:${hex(3)}:${hex(4)}`;
}

export type UserCaller = Extract<Caller, { kind: "user" }>;

/** The user behind the token, or GitHub's answer for anonymous callers (401) and integrations (403). */
export function asUser(c: ApiContext): UserCaller | Response {
  const caller = c.get("caller");
  if (caller.kind === "user") return caller;
  if (caller.kind === "anonymous") return apiError(c, 401, "Requires authentication");
  return apiError(c, 403, "Resource not accessible by integration");
}
