"""HTTP API Lambda authorizer (simple responses): API key -> tenant, key and scopes.

A bad key is still "authorized" with an empty tenant so the route answers an honest 401 in
the API's error envelope (API Gateway itself would say 403); missing headers never get here.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger

from engram.core.db import anonymous_transaction
from engram.tenancy.store import authenticate

logger = Logger()


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    scheme, _, token = headers.get("authorization", "").partition(" ")
    found = None
    if scheme.lower() == "bearer" and token:
        with anonymous_transaction() as conn:
            found = authenticate(conn, token.strip())
    if found is None:
        logger.info("rejected API key")
        return {"isAuthorized": True, "context": {"tenant_id": "", "key_id": "", "scopes": ""}}
    return {
        "isAuthorized": True,
        "context": {"tenant_id": str(found.tenant_id), "key_id": str(found.key_id),
                    "scopes": " ".join(sorted(found.scopes))},
    }
