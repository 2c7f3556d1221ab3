import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { BaseError as ViemError, HttpRequestError, TimeoutError, WebSocketRequestError } from "viem";
import { DomainError, ErrorCode, httpStatusOf, internalError, type ErrorBody } from "../errors.ts";
import { GitHubApiError } from "../github/client.ts";
import { githubUnavailable } from "../github/repositories.ts";
import type { AppBindings } from "../context.ts";
import { describeChainError } from "../chain/errors.ts";
import { isStorageFull } from "../../db/client.ts";

const statusToCode: Record<number, ErrorCode> = {
  400: ErrorCode.BAD_REQUEST,
  401: ErrorCode.UNAUTHORIZED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  422: ErrorCode.UNPROCESSABLE,
  429: ErrorCode.RATE_LIMITED,
  503: ErrorCode.SERVICE_UNAVAILABLE,
};

/** Maps anything thrown by a handler to the one error shape. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 400 && /Malformed JSON/i.test(err.message)) {
      return new DomainError({
        code: ErrorCode.MALFORMED_JSON,
        error: "Malformed JSON",
        message: "The request body is not valid JSON.",
      });
    }
    const code = statusToCode[err.status];
    if (code) return new DomainError({ code, message: err.message || defaultMessage(err.status) });
  }
  // SQLite rolled the write back whole: nothing changed, and the same request will work once there is space.
  if (isStorageFull(err)) return storageFull(err);
  // An upstream that is down is not our bug: say which one, with a status that invites a retry.
  if (chainUnreachable(err)) {
    return new DomainError({ code: ErrorCode.CHAIN_UNAVAILABLE, error: "Network unavailable", message: "Could not reach the XDC network. Please try again in a moment.", cause: err });
  }
  if (err instanceof GitHubApiError && (err.status === 0 || err.status >= 500 || err.rateLimited)) return githubUnavailable(err);
  return internalError();
}

/** The chain's RPC endpoint could not be reached or did not answer in time (not a revert, not bad input). */
function chainUnreachable(err: unknown): boolean {
  if (!(err instanceof ViemError)) return false;
  return Boolean(err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError));
}

/** The answer to a write refused for lack of space (issue 24). */
export const STORAGE_FULL_MESSAGE = "The platform's storage is full. Nothing was changed; please try again later.";
const storageFull = (cause: unknown) =>
  new DomainError({ code: ErrorCode.STORAGE_FULL, error: "Storage Full", message: STORAGE_FULL_MESSAGE, headers: { "Retry-After": "60" }, cause });

function defaultMessage(status: number): string {
  if (status === 413) return "The request body is too large.";
  return "The request could not be processed.";
}

export function errorResponse(c: Context<AppBindings>, err: DomainError): Response {
  const body: ErrorBody = err.toBody(c.get("requestId") ?? "unknown");
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
  c.header("Cache-Control", "no-store");
  return c.json(body, httpStatusOf(err));
}

/**
 * A 500 is a bug and is logged as an error with its stack. A 502/503/504 is
 * an answer we meant to give (the chain, GitHub or the storage unavailable):
 * a warning that names the cause, so the log of an outage says what was down
 * rather than "unhandled error".
 */
export const onError: ErrorHandler<AppBindings> = (err, c) => {
  const apiError = toDomainError(err);
  const log = c.get("log") ?? console;
  if (apiError.code === ErrorCode.INTERNAL) log.error("unhandled error", { err, path: c.req.path });
  // A full storage is logged once per episode by the database layer (api/server.ts), not once per refused request.
  else if (httpStatusOf(apiError) >= 500 && apiError.message !== STORAGE_FULL_MESSAGE) {
    log.warn("dependency unavailable", { path: c.req.path, status: httpStatusOf(apiError), error: apiError.title, cause: causeOf(apiError.cause ?? err) });
  }
  return errorResponse(c, apiError);
};

/** One line saying what failed underneath (viem's short message, GitHub's status), never a stack. */
function causeOf(err: unknown): string {
  if (err instanceof DomainError) return err.cause === undefined ? "none given" : causeOf(err.cause);
  if (err instanceof ViemError) return describeChainError(err);
  if (err instanceof GitHubApiError) return `GitHub ${err.status || "unreachable"}: ${err.message}`;
  return err instanceof Error ? err.message.split("\n")[0]! : String(err);
}
