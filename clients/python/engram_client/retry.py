"""When to send a request again, and how long to wait first.

A request is sent again only when doing so cannot write twice:
- it never reached the server (connect error or timeout, no free connection), or the server says
  nothing of it was done (429, or a 409 with `details.retryable`: the database undid the
  transaction to settle a race with another): any call;
- its outcome is unknown (503/502/504, a read that failed or timed out) and the call is safe to
  repeat: GET, PUT, DELETE, the read-only POSTs (recall, prime, topic lookup, query-document) and
  the creates and writes that carry an Idempotency-Key (memories and their batch, links and their
  batch, conversations, appends, documents, uploads, consolidation runs, exports, imports): the
  server answers a repeat with the first answer and writes nothing.
Waits grow exponentially with full jitter (a random wait between 0 and the cap of the attempt, so
many clients throttled together do not come back together) and honour Retry-After.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

# Statuses after which the request may have been applied: repeated only when that is safe.
UNKNOWN_OUTCOME_STATUSES = frozenset({502, 503, 504})
# Transport errors raised before any byte of the request left: nothing can have been applied.
NOT_SENT_ERRORS: tuple[type[httpx.TransportError], ...] = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass(frozen=True)
class RetryPolicy:
    """`max_retries` more attempts after the first; 0 turns retrying off."""

    max_retries: int = 3
    base_delay: float = 0.5  # seconds; the cap of attempt n is base_delay * 2**n, at most max_delay
    max_delay: float = 8.0
    max_retry_after: float = 60.0  # a Retry-After longer than this is not waited for: the error is raised
    random: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def backoff(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number `retry` (0 for the first retry)."""
        if retry_after is not None:
            return retry_after
        return self.random.uniform(0.0, min(self.max_delay, self.base_delay * 2**retry))

    def should_retry_status(
        self, status: int, retry_safe: bool, retry_after: float | None, undone: bool = False
    ) -> bool:
        """`undone`: the answer says nothing was written and the request may be sent again."""
        if retry_after is not None and retry_after > self.max_retry_after:
            return False
        return status == 429 or undone or (retry_safe and status in UNKNOWN_OUTCOME_STATUSES)

    @staticmethod
    def should_retry_error(error: httpx.TransportError, retry_safe: bool) -> bool:
        return isinstance(error, NOT_SENT_ERRORS) or retry_safe


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Retry-After as seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def says_undone(response: httpx.Response) -> bool:
    """A 409 whose envelope has `details.retryable: true`: the transaction was rolled back whole."""
    if response.status_code != 409:
        return False
    try:
        details = response.json().get("error", {}).get("details")
    except (ValueError, AttributeError):
        return False
    return isinstance(details, dict) and details.get("retryable") is True
