"""Erasure: a memory, a subject (selector) or the tenant, erased from every copy (engram.erasure)."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram.core.errors import InvalidField
from engram.erasure import service as erasure
from engram.erasure.models import CASCADE_DESCRIPTION, Cascade, Erasure, ErasureCreate, TenantErase
from engram_http.auth import principal
from engram_http.resolver import json_response

router = Router()


@router.post(
    "/v1/memories/<memory_id>/erase",
    tags=["erasure"],
    summary="Erase a memory for good (active or in the trash) from every copy; idempotent",
    responses={200: {"description": "Erased (now, or by the erasure named)"}},
)
def erase_memory(
    memory_id: UUID, cascade: Annotated[Cascade, Query(description=CASCADE_DESCRIPTION)] = "erase"
) -> Erasure:
    who = principal(router, "write")
    return erasure.erase_memory(who.tenant_id, memory_id, cascade=cascade, key_id=who.key_id)


@router.post(
    "/v1/erasures",
    tags=["erasure"],
    summary="Erase everything a selector covers: memories, documents, conversations (admin scope)",
    responses={202: {"description": "The erasure and its report (it ran in the request)"}},
)
def create_erasure(body: ErasureCreate) -> Response[Erasure]:
    who = principal(router, "admin")
    return json_response(erasure.create_erasure(who.tenant_id, body, key_id=who.key_id), 202)


@router.get("/v1/erasures/<erasure_id>", tags=["erasure"], summary="An erasure's audit record (admin scope)")
def get_erasure(erasure_id: UUID) -> Erasure:
    who = principal(router, "admin")
    return erasure.get_erasure(who.tenant_id, erasure_id)


@router.post(
    "/v1/tenant/erase",
    tags=["erasure"],
    summary="Erase this tenant: every row, key and object; cannot be undone (admin scope; API key only)",
)
def erase_tenant(body: TenantErase) -> Erasure:
    who = principal(router, "admin", api_key_only=True)
    if body.confirm != who.tenant_id:
        raise InvalidField("confirm", "must be this tenant's id")
    return erasure.erase_tenant(who.tenant_id, key_id=who.key_id)
