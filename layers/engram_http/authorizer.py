"""The HTTP API Lambda authorizer (simple responses): API key -> tenant, key and scopes.

Its context is what `engram_http.auth.principal` reads on every route. A bad key is still
"authorized" with an empty tenant so the route answers an honest 401 in the API's error envelope
(API Gateway itself would say 403); requests without the Authorization header never get here (it
is the identity source). Deliberately light to import: no resolver, only the event data classes.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.data_classes.api_gateway_authorizer_event import (
    APIGatewayAuthorizerEventV2,
    APIGatewayAuthorizerResponseV2,
)

from engram.core.db import anonymous_transaction
from engram.tenancy.store import Principal, authenticate

logger = Logger()


def request_context(found: Principal | None) -> dict[str, str]:
    """The authorizer's context for a caller (`tenant_id` empty: no valid key)."""
    if found is None:
        return {"tenant_id": "", "key_id": "", "scopes": ""}
    return {"tenant_id": str(found.tenant_id), "key_id": str(found.key_id), "scopes": " ".join(sorted(found.scopes))}


def authorize(event: APIGatewayAuthorizerEventV2) -> APIGatewayAuthorizerResponseV2:
    headers = event.headers if event.get("headers") else {}
    scheme, _, token = (headers.get("authorization") or "").partition(" ")
    found = None
    if scheme.lower() == "bearer" and token:
        with anonymous_transaction() as conn:
            found = authenticate(conn, token.strip())
    if found is None:
        logger.info("rejected API key")
    return APIGatewayAuthorizerResponseV2(authorize=True, context=request_context(found))
