"""The caller, as the authorizer resolved it, scope checks, and the bearer challenge of a 401/403."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2

from engram.core.db import confine_to_namespaces
from engram.core.errors import EngramError, Forbidden, Unauthorized
from engram.tenancy.store import Principal
from engram_http.authorizer import CHECKED_BY_ROUTE, bearer_key, key_principal, request_base_url

# Where an OAuth client learns how to get a token for /mcp (RFC 9728).
PROTECTED_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"


def principal(app: APIGatewayHttpResolver | Router, scope: str, *, api_key_only: bool = False) -> Principal:
    """The authorizer's context for this request; 403 unless the key has `scope` (admin has all).
    `api_key_only`: 403 for an OAuth access token too, whatever its scopes: what the route makes
    (an API key) or ends (the tenant) would outlive the grant, and revoking the grant must end
    everything the app could do."""
    who = require_scope(current_caller(app), scope)
    if api_key_only and who.grant_id is not None:
        raise Forbidden(
            "an OAuth access token cannot do this, whatever its scopes; use an API key",
            {"required_credential": "api_key"},
        )
    return who


def current_caller(app: APIGatewayHttpResolver | Router) -> Principal:
    """The authorizer's context for this request, whatever its scopes; 401 without a valid credential."""
    event = app.current_event
    if not isinstance(event, APIGatewayProxyEventV2):  # an HTTP API resolver parses nothing else
        raise Unauthorized("missing or invalid API key")
    authorization = event.headers.get("authorization") if event.get("headers") else None
    base = request_base_url(event.get("headers"), event.get("requestContext"))
    return caller(event.request_context.authorizer.get_lambda, authorization, base)


def caller(
    authorizer_context: Mapping[str, Any] | None, authorization: str | None, base: str | None = None
) -> Principal:
    """The key or OAuth token the authorizer resolved (its `context`); 401 when it names no tenant (no
    or a bad credential). A credential the authorizer could not check (database unreachable) is checked
    here, waiting for the database as any route does: a 503 with Retry-After if it does not come back
    in time. A token confined to namespaces confines every tenant transaction of this request."""
    confine_to_namespaces(None)
    ctx = authorizer_context or {}
    # An OAuth token is checked again here: the authorizer's verdict may be cached for minutes, and a
    # revoked grant or token must stop at once (one indexed lookup per request made with a token).
    if ctx.get("key_check") == CHECKED_BY_ROUTE or (ctx.get("grant_id") and ctx.get("tenant_id")):
        found = key_principal(bearer_key(authorization), base=base)
        if found is None:
            raise Unauthorized("missing or invalid API key")
    elif not ctx.get("tenant_id"):
        raise Unauthorized("missing or invalid API key")
    else:
        namespaces = str(ctx.get("namespaces") or "")
        found = Principal(
            UUID(ctx["tenant_id"]),
            UUID(ctx["key_id"]),
            frozenset(str(ctx.get("scopes", "")).split()),
            grant_id=UUID(ctx["grant_id"]) if ctx.get("grant_id") else None,
            namespaces=tuple(json.loads(namespaces)) if namespaces else None,
        )
    confine_to_namespaces(found.namespaces)
    return found


def require_scope(who: Principal, scope: str) -> Principal:
    if scope not in who.scopes and "admin" not in who.scopes:
        raise Forbidden(f"this key lacks the '{scope}' scope", {"required_scope": scope})
    return who


def can_write(who: Principal) -> bool:
    """Whether the key may change memories (write, or admin which has every scope)."""
    return bool({"write", "admin"} & who.scopes)


def bearer_challenge(exc: EngramError, headers: Mapping[str, str] | None, base: str) -> str | None:
    """The WWW-Authenticate of a 401 (RFC 6750, with RFC 9728's resource_metadata so an MCP client
    finds the authorization server) or of a 403 for a missing scope; None for any other answer."""
    metadata = f'resource_metadata="{base}{PROTECTED_RESOURCE_METADATA_PATH}"'
    if exc.status == 401:
        sent = bool((headers or {}).get("authorization"))
        return f'Bearer {metadata}, error="invalid_token"' if sent else f"Bearer {metadata}"
    details = exc.details if isinstance(exc.details, dict) else {}
    if exc.status == 403 and "required_scope" in details:
        return f'Bearer error="insufficient_scope", scope="{details["required_scope"]}", {metadata}'
    return None
