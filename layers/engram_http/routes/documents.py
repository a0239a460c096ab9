"""Documents: inline ingest, presigned uploads and their status, query-document."""

from __future__ import annotations

from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from engram.core.idempotency import request_key
from engram.documents import query as document_query
from engram.documents import service as documents
from engram.documents import uploads
from engram.documents.models import (
    DocumentCreate,
    DocumentWritten,
    QueryRequest,
    QueryResponse,
    UploadCreate,
    UploadStatus,
    UploadTicket,
)
from engram_http.auth import principal
from engram_http.params import IDEMPOTENCY_KEY_REUSED, IdempotencyKeyHeader
from engram_http.resolver import json_response

router = Router()


@router.post(
    "/v1/documents",
    tags=["documents"],
    summary="Store a document inline (up to 5 MiB; larger: POST /v1/documents/uploads)",
    responses={
        201: {"description": "Created"},
        200: {"description": "Duplicate: existing memory"},
        413: {"description": "Too large: use uploads"},
        415: {"description": "Not text"},
        409: {"description": IDEMPOTENCY_KEY_REUSED},
    },
)
def create_document(body: DocumentCreate, idempotency_key: IdempotencyKeyHeader = None) -> Response[DocumentWritten]:
    who = principal(router, "write")
    key = request_key(idempotency_key, "POST /v1/documents", body)
    written = documents.create_document(who.tenant_id, body, key)
    return json_response(written, 200 if written.deduplicated else 201)


@router.post(
    "/v1/documents/uploads",
    tags=["documents"],
    summary="Get a presigned S3 PUT for a document up to 50 MiB; its arrival ingests it",
    responses={
        201: {"description": "Upload created"},
        413: {"description": "Over 50 MiB"},
        409: {"description": IDEMPOTENCY_KEY_REUSED},
    },
)
def create_upload(body: UploadCreate, idempotency_key: IdempotencyKeyHeader = None) -> Response[UploadTicket]:
    who = principal(router, "write")
    key = request_key(idempotency_key, "POST /v1/documents/uploads", body)
    return json_response(uploads.create_upload(who.tenant_id, body, key), 201)


@router.get(
    "/v1/documents/uploads/<upload_id>",
    tags=["documents"],
    summary="Upload status: pending, ready (memory_id) or failed (reason)",
)
def get_upload(upload_id: UUID) -> UploadStatus:
    who = principal(router, "read")
    return uploads.get_upload(who.tenant_id, upload_id)


@router.post(
    "/v1/memories/<memory_id>/query",
    tags=["documents"],
    summary="Ask a question of one memory or document: ranked spans within a budget, and an answer",
)
def query_document(memory_id: UUID, body: QueryRequest) -> QueryResponse:
    who = principal(router, "read")
    return document_query.query_document(who.tenant_id, memory_id, body)
