// Typed errors: one class per status the API documents, each carrying the envelope's code and details.
// The API answers every error as {"error": {"code", "message", "details"}}; API Gateway's own answers
// (a throttle, a missing route) are {"message": ...} and get a code from their status here.

/** Base of every error this client throws (a cancelled call rejects with its signal's reason instead). */
export class EngramError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The API answered with an error status. `code` and `details` are the envelope's. */
export class ApiError extends EngramError {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  /** Finds the server's log lines of a 500. */
  readonly requestId: string | undefined;
  /** The server's Retry-After hint in seconds, when it gave one. */
  readonly retryAfter: number | undefined;
  readonly apiMessage: string;

  constructor(
    status: number,
    code: string,
    message: string,
    details?: unknown,
    extra: { requestId?: string | undefined; retryAfter?: number | undefined } = {},
  ) {
    super(`${status} ${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.apiMessage = message;
    this.details = details;
    this.requestId = extra.requestId;
    this.retryAfter = extra.retryAfter;
  }

  /** `details[name]` when details is an object. */
  detail(name: string): unknown {
    return isRecord(this.details) ? this.details[name] : undefined;
  }
}

/** 400: malformed JSON or a request the API cannot read. */
export class BadRequest extends ApiError {}
/** 401: no key, or a key that is unknown or revoked. */
export class Unauthorized extends ApiError {}
/** 403: the key lacks the scope (`detail("required_scope")`). */
export class Forbidden extends ApiError {}
/** 404: not found, or not this tenant's. */
export class NotFound extends ApiError {}
/** 409: a duplicate link, an open consolidation run, an Idempotency-Key reused for another request... */
export class Conflict extends ApiError {}
/** 413: the body is over a limit; `details` names the limit and the alternative. */
export class TooLarge extends ApiError {}
/** 415: a content type the API does not take. */
export class UnsupportedMediaType extends ApiError {}
/** 422: a field is invalid; `field` names the first, `fields` lists them all. */
export class InvalidField extends ApiError {
  get field(): string | undefined {
    const field = this.detail("field");
    return typeof field === "string" ? field : undefined;
  }
  get fields(): Record<string, unknown>[] {
    const fields = this.detail("fields");
    return Array.isArray(fields) ? (fields as Record<string, unknown>[]) : [];
  }
}
/** 429: throttled; `retryAfter` is the server's hint in seconds, when it gave one. */
export class RateLimited extends ApiError {}
/** 5xx other than 503: a bug or a gateway failure (`requestId` finds the server's log lines). */
export class ServerError extends ApiError {}
/** 503: a dependency is down (`detail("dependency")`). */
export class ServiceUnavailable extends ServerError {}

/** The request could not be sent or its answer not read (after any retries). */
export class ConnectionFailed extends EngramError {}

/** An attempt took longer than its `timeoutMs` (after any retries). */
export class RequestTimedOut extends ConnectionFailed {}

/** A job the server runs after the request (an upload's ingest, an export, an import) failed:
 * `reason` is the server's, `job` the last status read. */
export class JobFailed extends EngramError {
  readonly jobId: string;
  readonly reason: string | null | undefined;
  readonly job: unknown;
  constructor(what: string, jobId: string, reason: string | null | undefined, job?: unknown) {
    super(`${what} ${jobId} failed: ${reason ?? "no reason given"}`);
    this.jobId = jobId;
    this.reason = reason;
    this.job = job;
  }
}

/** A document upload was refused after the PUT (checksum, size, not UTF-8...). */
export class UploadFailed extends JobFailed {
  constructor(uploadId: string, reason: string | null | undefined, job?: unknown) {
    super("upload", uploadId, reason, job);
  }
}

/** The server did not finish within the time given to a wait (an upload still pending, say). */
export class WaitTimedOut extends EngramError {}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequest,
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  413: TooLarge,
  415: UnsupportedMediaType,
  422: InvalidField,
  429: RateLimited,
  503: ServiceUnavailable,
};

// Codes for answers without the API's envelope (API Gateway's {"message": ...}, a proxy's page).
const GATEWAY_CODES: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  413: "too_large",
  429: "throttled",
  500: "internal_error",
  502: "bad_gateway",
  503: "service_unavailable",
  504: "gateway_timeout",
};

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The typed error for an error answer, reading the envelope when there is one. */
export function errorFromResponse(
  status: number,
  statusText: string,
  headers: Headers,
  text: string,
  retryAfter?: number,
): ApiError {
  let code = GATEWAY_CODES[status] ?? "http_error";
  let message = statusText || "error";
  let details: unknown;
  const body = parseJson(text);
  if (isRecord(body) && isRecord(body.error)) {
    const envelope = body.error;
    code = typeof envelope.code === "string" && envelope.code ? envelope.code : code;
    message = typeof envelope.message === "string" && envelope.message ? envelope.message : message;
    details = envelope.details;
  } else if (isRecord(body) && typeof body.message === "string") {
    message = body.message;
  } else if (body === undefined && text.trim()) {
    message = text.trim().slice(0, 500); // S3's XML error of a presigned request, a proxy's page
  }
  const fromDetails = isRecord(details) && typeof details.request_id === "string" ? details.request_id : undefined;
  const requestId = fromDetails ?? headers.get("apigw-requestid") ?? undefined;
  const Type = BY_STATUS[status] ?? (status >= 500 ? ServerError : ApiError);
  return new Type(status, code, message, details, { requestId, retryAfter });
}
