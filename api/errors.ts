import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The one error type of the API. Every failure leaves the server as
 *   { error, message, code, requestId, details? }
 * where `error` is a short title and `message` the sentence a person reads
 * (the spec's texts), `code` is machine-readable and `requestId` ties the
 * response to its log line. 5xx bodies say nothing about internals.
 */
export const ErrorCode = {
  BAD_REQUEST: "BAD_REQUEST",
  VALIDATION_FAILED: "VALIDATION_FAILED",
  MALFORMED_JSON: "MALFORMED_JSON",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  CSRF_FAILED: "CSRF_FAILED",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  CONFLICT: "CONFLICT",
  GONE: "GONE",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  UNPROCESSABLE: "UNPROCESSABLE",
  RATE_LIMITED: "RATE_LIMITED",
  INTERNAL: "INTERNAL",
  BAD_GATEWAY: "BAD_GATEWAY",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  GATEWAY_TIMEOUT: "GATEWAY_TIMEOUT",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const codeToStatus: Record<ErrorCode, ContentfulStatusCode> = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  CSRF_FAILED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
  GATEWAY_TIMEOUT: 504,
};

export interface ErrorBody {
  error: string;
  message: string;
  code: ErrorCode;
  requestId: string;
  details?: Record<string, unknown>;
}

export interface ApiErrorOptions {
  code: ErrorCode;
  /** Short title, e.g. 'Exceeds daily funding limit'. Defaults to the message. */
  error?: string;
  /** The sentence shown to a person. */
  message: string;
  details?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly title: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(options: ApiErrorOptions) {
    super(options.message, { cause: options.cause });
    this.name = "ApiError";
    this.code = options.code;
    this.title = options.error ?? options.message;
    this.details = options.details;
    this.headers = options.headers;
  }

  get status(): ContentfulStatusCode {
    return codeToStatus[this.code];
  }

  toBody(requestId: string): ErrorBody {
    const body: ErrorBody = { error: this.title, message: this.message, code: this.code, requestId };
    if (this.details) body.details = this.details;
    return body;
  }
}

/** Shorthands for the errors every area raises. */
export const noApiEndpoint = (method: string, path: string) =>
  new ApiError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: `No API endpoint at ${method} ${path}` });
export const notFound = (message = "Not found") => new ApiError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message });
export const unauthorized = (message = "You must be signed in to do this.") =>
  new ApiError({ code: ErrorCode.UNAUTHORIZED, error: "Unauthorized", message });
export const forbidden = (message = "You are not allowed to do this.") =>
  new ApiError({ code: ErrorCode.FORBIDDEN, error: "Forbidden", message });
export const badRequest = (message: string, details?: Record<string, unknown>, error = "Bad Request") =>
  new ApiError({ code: ErrorCode.BAD_REQUEST, error, message, details });
export const conflict = (message: string, error = "Conflict") => new ApiError({ code: ErrorCode.CONFLICT, error, message });

/** What a client sees for any failure we did not anticipate. */
export const internalError = () =>
  new ApiError({ code: ErrorCode.INTERNAL, error: "Internal Server Error", message: "An error occurred" });
