"""Export and import: a tenant's data as a JSONL file through S3 (engram.portability does the work)."""

from __future__ import annotations

from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from engram.core.idempotency import request_key
from engram.portability import service as portability
from engram.portability.models import ExportCreate, ExportJob, ImportCreate, ImportJob, ImportTicket
from engram_http.auth import principal
from engram_http.params import IDEMPOTENCY_KEY_REUSED, IdempotencyKeyHeader
from engram_http.resolver import json_response

router = Router()


@router.post(
    "/v1/exports",
    tags=["portability"],
    summary="Export this tenant's data (or one namespace) as JSONL: a job, then a presigned download",
    responses={202: {"description": "Queued"}, 409: {"description": IDEMPOTENCY_KEY_REUSED}},
)
def create_export(body: ExportCreate, idempotency_key: IdempotencyKeyHeader = None) -> Response[ExportJob]:
    who = principal(router, "read")
    key = request_key(idempotency_key, "POST /v1/exports", body)
    return json_response(portability.create_export(who.tenant_id, body, key), 202)


@router.get(
    "/v1/exports/<export_id>",
    tags=["portability"],
    summary="Export status, counts, and once ready a presigned GET of the file (expires; GET again for a new one)",
)
def get_export(export_id: UUID) -> ExportJob:
    who = principal(router, "read")
    return portability.get_export(who.tenant_id, export_id)


@router.post(
    "/v1/imports",
    tags=["portability"],
    summary="Get a presigned S3 PUT for an export file; its arrival imports it, all or nothing",
    responses={
        201: {"description": "Import created"},
        413: {"description": "Over the import size limit"},
        409: {"description": IDEMPOTENCY_KEY_REUSED},
    },
)
def create_import(body: ImportCreate, idempotency_key: IdempotencyKeyHeader = None) -> Response[ImportTicket]:
    who = principal(router, "write")
    key = request_key(idempotency_key, "POST /v1/imports", body)
    return json_response(portability.create_import(who.tenant_id, body, key), 201)


@router.get(
    "/v1/imports/<import_id>",
    tags=["portability"],
    summary="Import status and report: imported, deduplicated, and every refused line with its reason",
)
def get_import(import_id: UUID) -> ImportJob:
    who = principal(router, "read")
    return portability.get_import(who.tenant_id, import_id)
