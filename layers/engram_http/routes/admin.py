"""Tenant statistics and LLM usage, API keys, namespace purge (the admin Lambda also serves health and
the OpenAPI document: routes/health.py, engram_http.api)."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from engram.core.models import NAMESPACE_PATTERN, Timestamp
from engram.tenancy import service as tenancy
from engram.tenancy.models import ApiKeyInfo, IssuedApiKey, KeyCreate, PurgeResult, UsageReport
from engram_http.auth import principal
from engram_http.resolver import json_response

router = Router()


@router.get("/v1/stats", tags=["admin"], summary="Counts for this tenant, by namespace")
def tenant_stats() -> dict[str, Any]:
    who = principal(router, "read")
    return tenancy.tenant_stats(who.tenant_id)


@router.get(
    "/v1/usage", tags=["admin"], summary="This tenant's LLM calls and tokens by day, component and model (admin scope)"
)
def tenant_usage(
    since: Annotated[Timestamp | None, Query(description="Calls at or after (ISO 8601); default: 30 days ago")] = None,
) -> UsageReport:
    who = principal(router, "admin")
    return tenancy.tenant_usage(who.tenant_id, since)


@router.post(
    "/v1/namespaces/<namespace>/purge",
    tags=["admin"],
    summary="Hard-delete every memory, conversation, message and chunk in a namespace (admin scope)",
)
def purge_namespace(namespace: Annotated[str, Path(pattern=NAMESPACE_PATTERN)]) -> PurgeResult:
    who = principal(router, "admin")
    return tenancy.purge_namespace(who.tenant_id, namespace)


@router.post(
    "/v1/keys",
    tags=["admin"],
    summary="Issue an API key for this tenant (admin scope; an API key, not an OAuth token); shown once",
    responses={
        201: {"description": "Issued"},
        409: {"description": "The tenant has as many active keys as it may (details.limit)"},
    },
)
def create_key(body: KeyCreate) -> Response[IssuedApiKey]:
    who = principal(router, "admin", api_key_only=True)
    return json_response(tenancy.create_tenant_key(who.tenant_id, body), 201)


@router.get(
    "/v1/keys",
    tags=["admin"],
    summary="This tenant's keys, without secrets (admin scope; an API key, not an OAuth token)",
)
def list_keys() -> list[ApiKeyInfo]:
    who = principal(router, "admin", api_key_only=True)
    return tenancy.tenant_keys(who.tenant_id)


@router.delete(
    "/v1/keys/<key_id>", tags=["admin"], summary="Revoke a key (admin scope; an API key, not an OAuth token)"
)
def revoke_key(key_id: UUID) -> dict[str, str]:
    who = principal(router, "admin", api_key_only=True)
    tenancy.revoke_tenant_key(who.tenant_id, key_id)
    return {"revoked": str(key_id)}
