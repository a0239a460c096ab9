"""The HTTP API Lambda authorizer (simple responses): API key or OAuth access token -> tenant, key
and scopes (a token's also: its grant and the namespaces it is confined to).

Its context is what `engram_http.auth.principal` reads on every route. A bad key is still
"authorized" with an empty tenant so the route answers an honest 401 in the API's error envelope
(API Gateway itself would say 403); requests without the Authorization header never get here (it
is the identity source). Deliberately light to import: no resolver, only the event data classes.

When the key cannot be checked (the database paused and resuming, its secret unreachable), the
authorizer does not wait: API Gateway gives it 10 s, Aurora takes ~15 s to resume, and any failure
of an authorizer reaches the client as a bare 500. It makes one short connection attempt (which
wakes a paused cluster) and, failing that, lets the request through with `key_check: route` and no
tenant: the route function, which may wait 25 s for the database, checks the key itself before
doing anything, and answers 2xx once the database is back, or 503 with Retry-After.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.data_classes.api_gateway_authorizer_event import (
    APIGatewayAuthorizerEventV2,
    APIGatewayAuthorizerResponseV2,
)

from engram.core.db import anonymous_transaction
from engram.core.errors import DependencyDown
from engram.oauth.models import ACCESS_TOKEN_PREFIX
from engram.tenancy.store import Principal, authenticate

logger = Logger()

# Who checked the key: the authorizer, or (when it could not reach the database) the route.
CHECKED_BY_AUTHORIZER = "authorizer"
CHECKED_BY_ROUTE = "route"


def request_context(found: Principal | None, key_check: str = CHECKED_BY_AUTHORIZER) -> dict[str, str]:
    """The authorizer's context for a caller (`tenant_id` empty: no valid key, or not checked yet)."""
    if found is None:
        return {"tenant_id": "", "key_id": "", "scopes": "", "key_check": key_check, "grant_id": "", "namespaces": ""}
    return {
        "tenant_id": str(found.tenant_id),
        "key_id": str(found.key_id),
        "scopes": " ".join(sorted(found.scopes)),
        "key_check": key_check,
        "grant_id": str(found.grant_id) if found.grant_id else "",
        # A JSON array when the grant is confined to namespaces; empty: every namespace.
        "namespaces": json.dumps(list(found.namespaces)) if found.namespaces is not None else "",
    }


def request_base_url(headers: Mapping[str, str] | None, request_context: Mapping[str, Any] | None) -> str:
    """scheme://host[/stage] of the request: the OAuth issuer, and its resource is this + /mcp."""
    headers = headers or {}
    ctx = request_context or {}
    host = headers.get("host") or str(ctx.get("domainName") or "localhost")
    local = host.split(":")[0] in ("127.0.0.1", "localhost", "[::1]")
    scheme = headers.get("x-forwarded-proto") or ("http" if local else "https")
    stage = str(ctx.get("stage") or "")
    return f"{scheme}://{host}" + (f"/{stage}" if stage and stage != "$default" else "")


def bearer_key(authorization: str | None) -> str | None:
    """The key of an `Authorization: Bearer <key>` header; None for any other header."""
    scheme, _, token = (authorization or "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def key_principal(api_key: str | None, probe: bool = False, base: str | None = None) -> Principal | None:
    """The tenant, key and scopes of an active key, or of an active OAuth access token bound to
    `base`'s resource; None for no such key or token. `probe`: one short connection attempt instead
    of waiting for a resuming database (DependencyDown if it fails)."""
    if api_key is None:
        return None
    with anonymous_transaction(probe=probe) as conn:
        if api_key.startswith(ACCESS_TOKEN_PREFIX):
            from engram.oauth.service import authenticate_access_token  # tokens only: keys stay light

            token = authenticate_access_token(conn, api_key, base)
            if token is None:
                return None
            return Principal(
                token.tenant_id,
                token.key_id,
                frozenset(token.scopes),
                grant_id=token.grant_id,
                namespaces=tuple(token.namespaces) if token.namespaces is not None else None,
            )
        return authenticate(conn, api_key)


def authorize(event: APIGatewayAuthorizerEventV2) -> APIGatewayAuthorizerResponseV2:
    headers = event.headers if event.get("headers") else {}
    try:
        base = request_base_url(headers, event.get("requestContext"))
        found = key_principal(bearer_key(headers.get("authorization")), probe=True, base=base)
    except DependencyDown as exc:
        logger.warning("key not checked: the route will", extra={"reason": exc.message, "details": exc.details})
        return APIGatewayAuthorizerResponseV2(authorize=True, context=request_context(None, CHECKED_BY_ROUTE))
    except Exception:
        # A bug here would be API Gateway's bare 500; the route checks the key and answers honestly.
        logger.exception("authorizer failed: the route will check the key")
        return APIGatewayAuthorizerResponseV2(authorize=True, context=request_context(None, CHECKED_BY_ROUTE))
    if found is None:
        logger.info("rejected API key")
    return APIGatewayAuthorizerResponseV2(authorize=True, context=request_context(found))
