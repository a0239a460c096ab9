"""Typed errors: one class per status the API documents, each carrying the envelope's code and details.

The API answers every error as {"error": {"code", "message", "details"}}; API Gateway's own answers
(a throttle, a missing route) are {"message": ...} and get a code from their status here.
"""

from __future__ import annotations

from typing import Any

import httpx


class EngramError(Exception):
    """Base of every error this client raises."""


class ApiError(EngramError):
    """The API answered with an error status. `code` and `details` are the envelope's."""

    status: int = 0

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Any = None,
        *,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.request_id = request_id
        self.retry_after = retry_after


class BadRequest(ApiError):
    """400: malformed JSON or a request the API cannot read."""


class Unauthorized(ApiError):
    """401: no key, or a key that is unknown or revoked."""


class Forbidden(ApiError):
    """403: the key lacks the scope (`details["required_scope"]`)."""


class NotFound(ApiError):
    """404: not found, or not this tenant's."""


class Conflict(ApiError):
    """409: a duplicate link, an open consolidation run, an idempotency key reused for other messages..."""


class TooLarge(ApiError):
    """413: the body is over a limit; `details` names the limit and the alternative."""


class UnsupportedMediaType(ApiError):
    """415: a content type the API does not take."""


class InvalidField(ApiError):
    """422: a field is invalid; `field` names the first, `fields` lists them all."""

    @property
    def field(self) -> str | None:
        return self.details.get("field") if isinstance(self.details, dict) else None

    @property
    def fields(self) -> list[dict[str, Any]]:
        found = self.details.get("fields") if isinstance(self.details, dict) else None
        return found if isinstance(found, list) else []


class RateLimited(ApiError):
    """429: throttled; `retry_after` is the server's hint in seconds, when it gave one."""


class ServerError(ApiError):
    """5xx other than 503: a bug or a gateway failure (`request_id` finds the server's log lines)."""


class ServiceUnavailable(ServerError):
    """503: a dependency is down (`details["dependency"]`)."""


class ConnectionFailed(EngramError):
    """The request could not be sent or its answer not read (after any retries)."""

    def __init__(self, message: str, cause: httpx.TransportError) -> None:
        super().__init__(message)
        self.cause = cause


class JobFailed(EngramError):
    """A job the server runs after the request (an upload's ingest, an export, an import) failed:
    `reason` is the server's, `job` the last status read."""

    def __init__(self, what: str, job_id: str, reason: str | None, job: Any = None) -> None:
        super().__init__(f"{what} {job_id} failed: {reason}")
        self.job_id = job_id
        self.reason = reason
        self.job = job


class UploadFailed(JobFailed):
    """A document upload was refused after the PUT (checksum, size, not UTF-8...)."""

    def __init__(self, upload_id: str, reason: str | None, job: Any = None) -> None:
        super().__init__("upload", upload_id, reason, job)
        self.upload_id = upload_id


class WaitTimedOut(EngramError):
    """The server did not finish within the time given to a wait (an upload still pending, say)."""


_BY_STATUS: dict[int, type[ApiError]] = {
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
}

# Codes for answers without the API's envelope (API Gateway's {"message": ...}, a proxy's HTML page).
_GATEWAY_CODES = {
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
}


def error_from_response(response: httpx.Response, retry_after: float | None = None) -> ApiError:
    """The typed error for an error response, reading the envelope when there is one."""
    status = response.status_code
    code = _GATEWAY_CODES.get(status, "http_error")
    message = response.reason_phrase or "error"
    details: Any = None
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        envelope = body["error"]
        code = str(envelope.get("code") or code)
        message = str(envelope.get("message") or message)
        details = envelope.get("details")
    elif isinstance(body, dict) and isinstance(body.get("message"), str):
        message = body["message"]
    elif body is None and response.text.strip():  # S3's XML error of a presigned request, a proxy's page
        message = response.text.strip()[:500]
    request_id = details.get("request_id") if isinstance(details, dict) else None
    request_id = request_id or response.headers.get("apigw-requestid")
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else ApiError)
    return cls(status, code, message, details, request_id=request_id, retry_after=retry_after)
