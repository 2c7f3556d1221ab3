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
  /** An explore filter or saved search the platform does not know (an unknown currency, key or sort). */
  INVALID_SEARCH: "invalid_search",
  /** A list's cursor that the list did not give. */
  INVALID_CURSOR: "invalid_cursor",
  /** A money route's Idempotency-Key header is missing or malformed where one is required. */
  IDEMPOTENCY_KEY_REQUIRED: "idempotency_key_required",
  /** An uploaded document that is not there or cannot be read as multipart/form-data. */
  INVALID_UPLOAD: "invalid_upload",
  /** A webhook delivery without its GitHub headers. */
  INVALID_WEBHOOK: "invalid_webhook",
  /** A webhook endpoint's URL: not http(s), credentials in it, a host that does not resolve or resolves to a private address. */
  INVALID_URL: "invalid_url",
  /** A repository name that is not `owner/name`. */
  INVALID_REPOSITORY: "invalid_repository",
  /** A repository's name that is missing or names another repository than the id. */
  REPOSITORY_MISMATCH: "repository_mismatch",
  /** The editor's sign-in: a code that is not valid any more (OAuth's invalid_grant), a redirect URI that is not the extension's. */
  INVALID_GRANT: "invalid_grant",
  INVALID_REDIRECT_URI: "invalid_redirect_uri",
  /** A one-time code that is wrong, used or expired; the send needs one; the send does not need one. */
  INVALID_CODE: "invalid_code",
  CODE_REQUIRED: "code_required",
  CODE_NOT_NEEDED: "code_not_needed",
  /** The action needs an e-mail address on the profile. */
  EMAIL_REQUIRED: "email_required",
  /** A key export's ephemeral public key that is not a P-256 point. */
  INVALID_PUBLIC_KEY: "invalid_public_key",
  /** At most so many of a thing per account (webhook endpoints, saved searches). */
  QUOTA_EXCEEDED: "quota_exceeded",
  /** The same saved search again. */
  ALREADY_SAVED: "already_saved",
  /** Scoping: no task chosen, or one not in the plan. */
  INVALID_SELECTION: "invalid_selection",
  UNAUTHORIZED: "unauthorized",
  /** The user's GitHub token is missing or GitHub refused it: sign in with GitHub again. */
  GITHUB_SIGN_IN_REQUIRED: "github_sign_in_required",
  /** A webhook (GitHub, the on-ramp) whose signature is missing or does not match. */
  INVALID_SIGNATURE: "invalid_signature",
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
  /** GitHub refused the platform's write (an issue the app may not open). */
  GITHUB_REFUSED: "github_refused",
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
  /** Not one of the platform's currencies (XDC, ROXN, USDC). */
  INVALID_CURRENCY: "invalid_currency",
  /** Who is paid or tipped: not a GitHub login, an organization, an unknown user, oneself. */
  INVALID_RECIPIENT: "invalid_recipient",
  /** A boost's expiry outside one day to one year. */
  INVALID_EXPIRY: "invalid_expiry",
  /** A split's shares that do not add up or name the wrong people. */
  INVALID_SPLIT: "invalid_split",
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
  /** An issue number that several repositories (or none) have a bounty on: the request must name the repository. */
  AMBIGUOUS_ISSUE: "ambiguous_issue",
  /** A community bounty that is not waiting for its payment. */
  NOT_AWAITING_PAYMENT: "not_awaiting_payment",
  /** A community bounty someone else claimed first. */
  ALREADY_CLAIMED: "already_claimed",
  /** A cancel of a bounty that holds nothing of the pool's. */
  NO_POOL_SHARE: "no_pool_share",
  /** A boost that is not confirmed yet, or no longer cancellable. */
  NOT_CANCELLABLE: "not_cancellable",
  /** A split whose release window is over (or that no longer applies). */
  SPLIT_CLOSED: "split_closed",
  /** A held share that holds nothing any more. */
  NOTHING_HELD: "nothing_held",
  /** The pool manager's on-chain appointment is proposed and waits the contract's delay. */
  MANAGER_PENDING: "manager_pending",
  /** Registering again, with another wallet. */
  ALREADY_REGISTERED: "already_registered",
  /** The user has not finished registering (no wallet yet). */
  REGISTRATION_INCOMPLETE: "registration_incomplete",
  /** A wallet address is already set, a different one. */
  WALLET_EXISTS: "wallet_exists",
  /** The repository a comment was written in is no longer the issue's. */
  REPOSITORY_CHANGED: "repository_changed",
  /** The Issuepool GitHub App is not installed on the repository. */
  APP_NOT_INSTALLED: "app_not_installed",
  /** A scoping plan that is not finished yet. */
  PLAN_NOT_READY: "plan_not_ready",
  /** The same work is being done right now (issues being created). */
  IN_PROGRESS: "in_progress",
  /** A compute task whose lease ran out or was released. */
  TASK_NOT_HELD: "task_not_held",
  // Money: the request's machinery.
  IDEMPOTENCY_CONFLICT: "idempotency_conflict",
  POOL_BUSY: "pool_busy",
  TRANSACTION_FAILED: "transaction_failed",
  /** The transaction is queued but not yet broadcast (the network is busy). */
  TRANSACTION_QUEUED: "transaction_queued",
  LINK_EXPIRED: "link_expired",
  LINK_USED: "link_used",
  // Cash-out to UPI (issue 40).
  QUOTE_EXPIRED: "quote_expired",
  KYC_REQUIRED: "kyc_required",
  KYC_PENDING: "kyc_pending",
  KYC_REJECTED: "kyc_rejected",
  CASHOUT_UNSUPPORTED: "cashout_unsupported",
  PROVIDER_UNAVAILABLE: "provider_unavailable",
  PROVIDER_REFUSED: "provider_refused",
  INVALID_UPI_ID: "invalid_upi_id",
  UPI_ID_REQUIRED: "upi_id_required",
  THRESHOLD_REQUIRED: "threshold_required",
  // Upstreams and the platform.
  INTERNAL: "internal",
  BAD_GATEWAY: "bad_gateway",
  GITHUB_UNAVAILABLE: "github_unavailable",
  /** The mail server refused or did not answer (a one-time code could not be sent). */
  MAIL_UNAVAILABLE: "mail_unavailable",
  /** The wallet's balances could not be read from the chain. */
  WALLET_UNAVAILABLE: "wallet_unavailable",
  /** The chain did not confirm the platform's own step in time (a pool manager's appointment). */
  CHAIN_BUSY: "chain_busy",
  /** Too many large webhook deliveries at once. */
  OVERLOADED: "overloaded",
  /** A scoping document that cannot be read. */
  UNREADABLE_DOCUMENT: "unreadable_document",
  /** No compute node online; a compute node did not answer in time. */
  NO_COMPUTE_NODE: "no_compute_node",
  COMPUTE_TIMEOUT: "compute_timeout",
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
  invalid_search: 400,
  invalid_cursor: 400,
  idempotency_key_required: 400,
  invalid_upload: 400,
  invalid_webhook: 400,
  invalid_url: 400,
  invalid_repository: 400,
  repository_mismatch: 400,
  invalid_grant: 400,
  invalid_redirect_uri: 400,
  invalid_code: 400,
  code_required: 400,
  code_not_needed: 400,
  email_required: 400,
  invalid_public_key: 400,
  quota_exceeded: 400,
  already_saved: 400,
  invalid_selection: 400,
  unauthorized: 401,
  github_sign_in_required: 401,
  invalid_signature: 401,
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
  github_refused: 403,
  invalid_amount: 400,
  below_minimum: 400,
  insufficient_balance: 400,
  insufficient_gas: 400,
  insufficient_allowance: 400,
  limit_exceeded: 429,
  wallet_required: 400,
  wrong_currency: 400,
  invalid_address: 400,
  invalid_currency: 400,
  invalid_recipient: 400,
  invalid_expiry: 400,
  invalid_split: 400,
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
  ambiguous_issue: 400,
  not_awaiting_payment: 400,
  already_claimed: 409,
  no_pool_share: 409,
  not_cancellable: 409,
  split_closed: 409,
  nothing_held: 409,
  manager_pending: 409,
  already_registered: 409,
  registration_incomplete: 409,
  wallet_exists: 409,
  repository_changed: 409,
  app_not_installed: 409,
  plan_not_ready: 409,
  in_progress: 409,
  task_not_held: 409,
  idempotency_conflict: 422,
  pool_busy: 503,
  transaction_failed: 422,
  transaction_queued: 503,
  link_expired: 410,
  link_used: 410,
  quote_expired: 410,
  kyc_required: 409,
  kyc_pending: 409,
  kyc_rejected: 409,
  cashout_unsupported: 400,
  provider_unavailable: 503,
  provider_refused: 422,
  invalid_upi_id: 400,
  upi_id_required: 400,
  threshold_required: 400,
  internal: 500,
  bad_gateway: 502,
  github_unavailable: 502,
  mail_unavailable: 502,
  wallet_unavailable: 502,
  chain_busy: 503,
  overloaded: 503,
  unreadable_document: 422,
  no_compute_node: 503,
  compute_timeout: 504,
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
const GENERIC_TITLES: Partial<Record<number, string>> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict", 410: "Gone", 422: "Unprocessable Entity" };

/**
 * A refusal with its specific code and the sentence a person reads; the title defaults to its status's name
 * ("Bad Request", "Conflict") unless the spec names one (`{ error: "Invalid search" }`).
 */
export const refused = (code: ErrorCode, message: string, options: { error?: string; details?: Record<string, unknown> } = {}) =>
  new DomainError({ code, error: options.error ?? GENERIC_TITLES[codeToStatus[code]] ?? message, message, details: options.details });

/** A refusal of who is asking (403); give the specific code (`role_required`, `admin_required`, `not_owner`) when there is one. */
export const forbidden = (message = "You are not allowed to do this.", code: ErrorCode = ErrorCode.FORBIDDEN) =>
  new DomainError({ code, error: "Forbidden", message });
/** A refusal of the request (400); give the specific code when there is one. */
export const badRequest = (message: string, details?: Record<string, unknown>, error = "Bad Request", code: ErrorCode = ErrorCode.BAD_REQUEST) =>
  new DomainError({ code, error, message, details });
/** A refusal because of the state things are in; give the specific code when there is one. */
export const conflict = (message: string, error = "Conflict", code: ErrorCode = ErrorCode.CONFLICT) => new DomainError({ code, error, message });

/** What a client sees for any failure we did not anticipate. */
export const internalError = () =>
  new DomainError({ code: ErrorCode.INTERNAL, error: "Internal Server Error", message: "An error occurred" });
