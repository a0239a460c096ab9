"""Domain errors. The HTTP layer maps each to a status code and the error envelope."""

from __future__ import annotations

from typing import Any

# Retry-After of a dependency expected back soon: a paused Aurora Serverless cluster resumes in ~15 s,
# and the first connection attempt (or the answer that failed) already woke it.
RESUME_RETRY_AFTER_S = 10


class EngramError(Exception):
    status = 400
    code = "bad_request"
    retry_after_s: int | None = None  # set: the answer carries Retry-After (seconds)

    def __init__(self, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidField(EngramError):
    status = 422
    code = "invalid_field"

    def __init__(self, field: str, message: str, limit: Any = None) -> None:
        # The same details shape as request validation errors: `field` (+ `limit`) and `fields`.
        item: dict[str, Any] = {"field": field, "message": message}
        if limit is not None:
            item["limit"] = limit
        super().__init__(f"{field}: {message}", {**item, "fields": [dict(item)]})


class TooLarge(EngramError):
    status = 413
    code = "too_large"

    def __init__(self, field: str, size: int, limit: int, alternative: str) -> None:
        super().__init__(
            f"{field} is {size} bytes; the limit is {limit} bytes. {alternative}",
            {"field": field, "size": size, "limit": limit, "alternative": alternative},
        )


class NotFound(EngramError):
    status = 404
    code = "not_found"


class Conflict(EngramError):
    status = 409
    code = "conflict"


class LlmUnavailable(Conflict):
    """The deployment has no LLM for what was asked (ENGRAM_LLM_LEVEL, no provider): a state of the
    service, not a failure; the message says which setting."""

    code = "llm_unavailable"


class Forbidden(EngramError):
    status = 403
    code = "forbidden"


class Unauthorized(EngramError):
    status = 401
    code = "unauthorized"


class DependencyDown(EngramError):
    status = 503
    code = "dependency_unavailable"

    def __init__(self, message: str, details: Any = None, retry_after_s: int | None = None) -> None:
        """`retry_after_s` when the dependency is expected back (a database resuming), not for
        one that is missing from the configuration."""
        super().__init__(message, details)
        self.retry_after_s = retry_after_s
