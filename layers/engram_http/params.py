"""Query-string and header parameters shared by the routers, each bounded in the OpenAPI document
so that what is documented is what is accepted: no NUL reaches the database from a query string."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Header, Query

from engram.core.models import NAMESPACE_PATTERN, Tag, Timestamp
from engram.core.pagination import MAX_PAGE

CURSOR_PATTERN = r"^[A-Za-z0-9_-]{1,512}={0,2}$"  # what the API returns: URL-safe base64
PRINTABLE_PATTERN = r"^[^\x00-\x1f\x7f]+$"  # no NUL or other control characters

NamespaceQuery = Annotated[str | None, Query(pattern=NAMESPACE_PATTERN)]
TagsQuery = Annotated[list[Tag] | None, Query(description="Repeatable; every tag given must be present")]
CURSOR_DESCRIPTION = "next_cursor of the previous page, exactly as returned: any other value is 422 (cursor)"
CursorQuery = Annotated[str | None, Query(pattern=CURSOR_PATTERN, description=CURSOR_DESCRIPTION)]
PageLimitQuery = Annotated[int, Query(ge=1, le=MAX_PAGE)]  # the default is each list's own
SinceQuery = Annotated[Timestamp | None, Query(description="Created at or after (ISO 8601)")]
UntilQuery = Annotated[Timestamp | None, Query(description="Created before (ISO 8601)")]
AgentIdQuery = Annotated[str | None, Query(max_length=200, pattern=PRINTABLE_PATTERN)]
IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="idempotency-key",
        min_length=1,
        max_length=200,
        pattern=PRINTABLE_PATTERN,
        description="A retry with the same key and the same body returns the first answer, with its status, and "
        "writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone",
    ),
]
IDEMPOTENCY_KEY_REUSED = "The Idempotency-Key was used for a different request"
