import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import { ErrorCode } from "../errors.ts";
import { MONEY_PATHS } from "../middleware/startup-gate.ts";

/**
 * How a route is described in the API document (GET /api/openapi.json).
 *
 * Each route module declares its routes next to its handlers:
 *
 *   export const walletApi = [
 *     declareRoute({ method: "get", path: "/api/wallet/info", operationId: "getWalletInfo", tags: ["wallet"],
 *       security: USER, responses: { 200: json("The wallet", WalletInfo) } }),
 *   ];
 *
 * and api/openapi/document.ts lists the module's array once. The handler keeps
 * validating its input with the same zod schemas (`validate(...)`); in tests
 * every JSON response is checked against the declared schema for its status
 * (api/openapi/conformance.ts), so a declaration cannot drift from its handler.
 * A route that is routed but not declared (or the reverse) fails
 * api/openapi/document.test.ts, which names it.
 */

/** The one error shape of the API (api/errors.ts). */
export const ErrorBody = z
  .object({
    error: z.string().meta({ description: "Short title, e.g. the toast title the site shows." }),
    message: z.string().meta({ description: "The sentence a person reads." }),
    code: z.enum(Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]]),
    requestId: z.string().meta({ description: "Also the X-Request-Id response header and the request's log line." }),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("Error");

/** Security requirements (the schemes are defined in document.ts). */
export const ANONYMOUS: RouteConfig["security"] = [];
/** Anyone; a session or an editor token, when sent, is used. */
export const OPTIONAL_USER: RouteConfig["security"] = [{}, { session: [] }, { vscode: [] }];
/** Signed in: the browser's session, or the VS Code token on a GET. */
export const USER: RouteConfig["security"] = [{ session: [] }, { vscode: [] }];
/** A browser session only, reading. */
export const SESSION: RouteConfig["security"] = [{ session: [] }];
/** A browser session writing: the anti-forgery token too. */
export const SESSION_WRITE: RouteConfig["security"] = [{ session: [], csrf: [] }];
export const VSCODE: RouteConfig["security"] = [{ vscode: [] }];
export const NODE: RouteConfig["security"] = [{ nodeToken: [] }];

/** The money routes' replay key (docs/api.md, "Idempotency-Key"). */
export const IdempotencyHeaders = z.object({
  "Idempotency-Key": z
    .string()
    .regex(/^[A-Za-z0-9\-_.:]{8,128}$/)
    .optional()
    .meta({ description: "Replays within the key's scope return the first result; without one, the server derives a key valid for 60 s." }),
});

/**
 * `schema` or null. For a named component use this, not `.nullable()`: the generator writes a nullable reference as
 * allOf [ref, {type: [object, null]}], which refuses null.
 */
export function orNull<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}

/** A JSON response. */
export function json<T extends z.ZodType>(description: string, schema: T) {
  return { description, content: { "application/json": { schema } } } as const;
}

/** A response without a JSON body (a redirect, an SVG, 204). */
export function noJson(description: string, contentType?: string) {
  return contentType ? { description, content: { [contentType]: { schema: z.string() } } } : { description };
}

const errorResponse = json("Any failure: the error shape, whatever the status (4xx, 5xx). `x-error-codes` lists the codes this operation answers with.", ErrorBody);

const WRITES = new Set(["post", "put", "patch", "delete"]);

/**
 * The codes every operation can answer with because of what runs before or around its handler, so a declaration
 * lists only its own: any failure we did not foresee (`internal`) and a full disk (`storage_full`, even a read
 * records its session's use); under the session loader (everything but /api/health) an editor token that is not
 * valid or used to write (`unauthorized`); on a write, the body limit (`payload_too_large`), a body that is not
 * JSON (`malformed_json`) and, with a session, the anti-forgery check (`csrf_failed`; not on the webhooks and the
 * one-click unsubscribe, which no session signs); on a write that moves money, the start-up check not done in time
 * (`not_ready`, api/middleware/startup-gate.ts).
 */
export function edgeErrorCodes(route: Pick<RouteConfig, "method" | "path">): ErrorCode[] {
  const codes: ErrorCode[] = [ErrorCode.INTERNAL, ErrorCode.STORAGE_FULL];
  if (route.path !== "/api/health") codes.push(ErrorCode.UNAUTHORIZED);
  if (WRITES.has(route.method)) {
    codes.push(ErrorCode.PAYLOAD_TOO_LARGE, ErrorCode.MALFORMED_JSON);
    if (!route.path.startsWith("/api/webhooks/") && route.path !== "/api/alerts/unsubscribe") codes.push(ErrorCode.CSRF_FAILED);
    if (MONEY_PATHS.some((p) => route.path.startsWith(p))) codes.push(ErrorCode.NOT_READY);
  }
  return codes;
}

/** Stable public reads (CORS-open, versioned): see docs/api.md, "Public reads". */
export const STABLE = { "x-stability": "stable", "x-since-version": "1" } as const;

/**
 * A route's declaration: `createRoute` with the shared error response as the default, and the error codes the
 * operation answers with as `x-error-codes`: `errors` (what its handler, its middleware and the services they call
 * raise: api/openapi/error-codes.test.ts finds them in the source and fails on one missing) and the edge's
 * (`edgeErrorCodes`). The tests' answers are checked against the list (api/openapi/conformance.ts).
 */
export function declareRoute<const R extends RouteConfig>(config: R & { errors?: readonly ErrorCode[] }) {
  const { errors = [], ...route } = config;
  const codes = [...new Set([...errors, ...edgeErrorCodes(route)])].sort();
  return createRoute({ ...route, responses: { ...route.responses, default: errorResponse }, "x-error-codes": codes } as unknown as R);
}

export type RouteDeclaration = ReturnType<typeof declareRoute>;

export { z };
