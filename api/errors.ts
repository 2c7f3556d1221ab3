import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The one error type of the platform (issue 37, item 3). Services and workers throw a `DomainError` that
 * carries a stable machine code (`insufficient_balance`, `already_paid`, …) and the texts a person reads
 * (the spec's `error` title and `message` sentence); they never know about HTTP. The edge maps the code to
 * an HTTP status once (`httpStatusOf`, `codeToStatus` below) and answers
 *   { error, message, code, requestId, details? }
 * where `requestId` ties the answer to its log line. 5xx bodies say nothing about internals.
 *
 * Code that must tell failures apart (a worker deciding "already paid", a bot reply) branches on `code`,
 * never on a status or on the text of an error: the texts are for people and may change, the codes are
 * documented (docs/api.md, "Error codes") and listed per operation in the API document.
 */
export const ErrorCode = {
  // Generic: the request itself.
  BAD_REQUEST: "bad_request",
  VALIDATION_FAILED: "validation_failed",
  MALFORMED_JSON: "malformed_json",
  /** A search parameter holding a control character (C0, DEL, C1): refused before it reaches the full-text index. */
  INVALID_SEARCH_TEXT: "invalid_search_text",
  UNAUTHORIZED: "unauthorized",
  FORBIDDEN: "forbidden",
  CSRF_FAILED: "csrf_failed",
  NOT_FOUND: "not_found",
  METHOD_NOT_ALLOWED: "method_not_allowed",
  CONFLICT: "conflict",
  GONE: "gone",
  PAYLOAD_TOO_LARGE: "payload_too_large",
  UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
  UNPROCESSABLE: "unprocessable",
  RATE_LIMITED: "rate_limited",
  // Who may do it.
  ROLE_REQUIRED: "role_required",
  ADMIN_REQUIRED: "admin_required",
  NOT_CLAIMANT: "not_claimant",
  NOT_OWNER: "not_owner",
  // Money: amounts, balances and limits.
  INVALID_AMOUNT: "invalid_amount",
  BELOW_MINIMUM: "below_minimum",
  INSUFFICIENT_BALANCE: "insufficient_balance",
  INSUFFICIENT_GAS: "insufficient_gas",
  INSUFFICIENT_ALLOWANCE: "insufficient_allowance",
  LIMIT_EXCEEDED: "limit_exceeded",
  WALLET_REQUIRED: "wallet_required",
  WRONG_CURRENCY: "wrong_currency",
  INVALID_ADDRESS: "invalid_address",
  // Money: a bounty's state.
  BOUNTY_EXISTS: "bounty_exists",
  NO_OPEN_BOUNTY: "no_open_bounty",
  ALREADY_PAID: "already_paid",
  BOUNTY_SETTLING: "bounty_settling",
  BOUNTY_COMMITTED: "bounty_committed",
  BOUNTY_HELD: "bounty_held",
  BOUNTY_SHARED: "bounty_shared",
  SOMEONE_WORKING: "someone_working",
  REFUND_REQUESTED: "refund_requested",
  NOT_DUE: "not_due",
  CLAIM_NOT_VERIFIED: "claim_not_verified",
  CLAIM_NOT_NEEDED: "claim_not_needed",
  POOL_BOUNTY: "pool_bounty",
  ISSUE_CLOSED: "issue_closed",
  NOT_AN_ISSUE: "not_an_issue",
  // Attempts (issue 39): who may work on a bounty, and how.
  HUMANS_ONLY: "humans_only",
  ATTEMPT_LIMIT: "attempt_limit",
  NEWCOMER_ATTEMPT_LIMIT: "newcomer_attempt_limit",
  NO_ATTEMPT: "no_attempt",
  APPLICATION_NOTE_REQUIRED: "application_note_required",
  BOUNTY_LOCKED: "bounty_locked",
  // Money: the request's machinery.
  IDEMPOTENCY_CONFLICT: "idempotency_conflict",
  POOL_BUSY: "pool_busy",
  TRANSACTION_FAILED: "transaction_failed",
  LINK_EXPIRED: "link_expired",
  LINK_USED: "link_used",
  // Upstreams and the platform.
  INTERNAL: "internal",
  BAD_GATEWAY: "bad_gateway",
  GITHUB_UNAVAILABLE: "github_unavailable",
  CHAIN_UNAVAILABLE: "chain_unavailable",
  CHAIN_TIMEOUT: "chain_timeout",
  STORAGE_FULL: "storage_full",
  SERVICE_UNAVAILABLE: "service_unavailable",
  NOT_READY: "not_ready",
  GATEWAY_TIMEOUT: "gateway_timeout",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The one mapping from a code to its HTTP status, used only at the edge (api/middleware/errors.ts). */
export const codeToStatus: Record<ErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  validation_failed: 400,
  malformed_json: 400,
  invalid_search_text: 400,
  unauthorized: 401,
  forbidden: 403,
  csrf_failed: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  role_required: 403,
  admin_required: 403,
  not_claimant: 403,
  not_owner: 403,
  invalid_amount: 400,
  below_minimum: 400,
  insufficient_balance: 400,
  insufficient_gas: 400,
  insufficient_allowance: 400,
  limit_exceeded: 429,
  wallet_required: 400,
  wrong_currency: 400,
  invalid_address: 400,
  bounty_exists: 409,
  no_open_bounty: 409,
  already_paid: 409,
  bounty_settling: 409,
  bounty_committed: 409,
  bounty_held: 409,
  bounty_shared: 409,
  someone_working: 409,
  refund_requested: 409,
  not_due: 409,
  claim_not_verified: 400,
  claim_not_needed: 409,
  pool_bounty: 409,
  issue_closed: 400,
  not_an_issue: 400,
  humans_only: 403,
  attempt_limit: 409,
  newcomer_attempt_limit: 409,
  no_attempt: 404,
  application_note_required: 400,
  bounty_locked: 409,
  idempotency_conflict: 422,
  pool_busy: 503,
  transaction_failed: 422,
  link_expired: 410,
  link_used: 410,
  internal: 500,
  bad_gateway: 502,
  github_unavailable: 502,
  chain_unavailable: 503,
  chain_timeout: 504,
  storage_full: 503,
  service_unavailable: 503,
  not_ready: 503,
  gateway_timeout: 504,
};

/** The HTTP status an error answers with: the edge's business, nobody else's. */
export const httpStatusOf = (err: DomainError): ContentfulStatusCode => codeToStatus[err.code];

/**
 * A refusal a person can act on (bad input, not allowed, the bounty's state), as opposed to the platform or an
 * upstream failing: what the bot replies with in a comment, and what a worker treats as final rather than retried.
 */
export const isRefusal = (err: unknown): err is DomainError => err instanceof DomainError && codeToStatus[err.code] < 500;

export interface ErrorBody {
  error: string;
  message: string;
  code: ErrorCode;
  requestId: string;
  details?: Record<string, unknown>;
}

export interface DomainErrorOptions {
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

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly title: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(options: DomainErrorOptions) {
    super(options.message, { cause: options.cause });
    this.name = "DomainError";
    this.code = options.code;
    this.title = options.error ?? options.message;
    this.details = options.details;
    this.headers = options.headers;
  }

  /** Whether this is that failure (`err.is("already_paid")`). */
  is(...codes: ErrorCode[]): boolean {
    return codes.includes(this.code);
  }

  toBody(requestId: string): ErrorBody {
    const body: ErrorBody = { error: this.title, message: this.message, code: this.code, requestId };
    if (this.details) body.details = this.details;
    return body;
  }
}

/** Whether `err` is a DomainError with one of these codes. */
export const hasCode = (err: unknown, ...codes: ErrorCode[]): err is DomainError => err instanceof DomainError && codes.includes(err.code);

/** Shorthands for the errors every area raises. */
export const noApiEndpoint = (method: string, path: string) =>
  new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: `No API endpoint at ${method} ${path}` });
export const notFound = (message = "Not found") => new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message });
export const unauthorized = (message = "You must be signed in to do this.") =>
  new DomainError({ code: ErrorCode.UNAUTHORIZED, error: "Unauthorized", message });
export const forbidden = (message = "You are not allowed to do this.") =>
  new DomainError({ code: ErrorCode.FORBIDDEN, error: "Forbidden", message });
export const badRequest = (message: string, details?: Record<string, unknown>, error = "Bad Request") =>
  new DomainError({ code: ErrorCode.BAD_REQUEST, error, message, details });
/** A refusal because of the state things are in; give the specific code when there is one. */
export const conflict = (message: string, error = "Conflict", code: ErrorCode = ErrorCode.CONFLICT) => new DomainError({ code, error, message });

/** What a client sees for any failure we did not anticipate. */
export const internalError = () =>
  new DomainError({ code: ErrorCode.INTERNAL, error: "Internal Server Error", message: "An error occurred" });
