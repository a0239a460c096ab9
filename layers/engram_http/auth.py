"""The caller, as the authorizer resolved it, and scope checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2

from engram.core.errors import Forbidden, Unauthorized
from engram.tenancy.store import Principal
from engram_http.authorizer import CHECKED_BY_ROUTE, bearer_key, key_principal


def principal(app: APIGatewayHttpResolver | Router, scope: str) -> Principal:
    """The authorizer's context for this request; 403 unless the key has `scope` (admin has all)."""
    event = app.current_event
    if not isinstance(event, APIGatewayProxyEventV2):  # an HTTP API resolver parses nothing else
        raise Unauthorized("missing or invalid API key")
    authorization = event.headers.get("authorization") if event.get("headers") else None
    return require_scope(caller(event.request_context.authorizer.get_lambda, authorization), scope)


def caller(authorizer_context: Mapping[str, Any] | None, authorization: str | None) -> Principal:
    """The key the authorizer resolved (its `context`); 401 when it names no tenant (no or a bad key).
    A key the authorizer could not check (database unreachable) is checked here, waiting for the
    database as any route does: a 503 with Retry-After if it does not come back in time."""
    ctx = authorizer_context or {}
    if ctx.get("key_check") == CHECKED_BY_ROUTE:
        found = key_principal(bearer_key(authorization))
        if found is None:
            raise Unauthorized("missing or invalid API key")
        return found
    if not ctx.get("tenant_id"):
        raise Unauthorized("missing or invalid API key")
    return Principal(UUID(ctx["tenant_id"]), UUID(ctx["key_id"]), frozenset(str(ctx.get("scopes", "")).split()))


def require_scope(who: Principal, scope: str) -> Principal:
    if scope not in who.scopes and "admin" not in who.scopes:
        raise Forbidden(f"this key lacks the '{scope}' scope", {"required_scope": scope})
    return who


def can_write(who: Principal) -> bool:
    """Whether the key may change memories (write, or admin which has every scope)."""
    return bool({"write", "admin"} & who.scopes)
