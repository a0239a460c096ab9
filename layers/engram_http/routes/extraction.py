"""Derived memories: extract from text or turns now, the runs of extraction (with their evidence),
undo, and what each namespace extracts."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram.adapters.embeddings.factory import embedder_from_env
from engram.core.models import NAMESPACE_PATTERN
from engram.extraction import service as extraction
from engram.extraction.models import (
    ExtractionRunDetail,
    ExtractionRunPage,
    ExtractionSettingsUpdate,
    ExtractRequest,
    NamespaceExtraction,
)
from engram_http.auth import principal
from engram_http.params import CursorQuery, NamespaceQuery, PageLimitQuery

router = Router()

ConversationQuery = Annotated[UUID | None, Query(description="Only runs over this conversation")]
RequiredNamespaceQuery = Annotated[str, Query(pattern=NAMESPACE_PATTERN, description="The namespace")]


@router.post(
    "/v1/extract",
    tags=["extraction"],
    summary="Derive memories from any text or a range of a conversation's turns now (or only say what it would do)",
    responses={
        200: {"description": "The run, with its decisions"},
        409: {"description": "No LLM configured (code llm_unavailable): nothing was extracted"},
        503: {"description": "The model failed (the run is recorded as failed)"},
    },
)
def extract(body: ExtractRequest) -> ExtractionRunDetail:
    who = principal(router, "write")
    return extraction.extract(who.tenant_id, body, embedder_from_env())


@router.get("/v1/extraction/runs", tags=["extraction"], summary="Extraction runs, newest first")
def list_runs(
    namespace: NamespaceQuery = None,
    conversation_id: ConversationQuery = None,
    cursor: CursorQuery = None,
    limit: PageLimitQuery = 50,
) -> ExtractionRunPage:
    who = principal(router, "read")
    return extraction.list_runs(
        who.tenant_id, namespace=namespace, conversation_id=conversation_id, cursor=cursor, limit=limit
    )


@router.get(
    "/v1/extraction/runs/<run_id>",
    tags=["extraction"],
    summary="One extraction run: its actions, each with the turns it came from",
)
def get_run(run_id: UUID) -> ExtractionRunDetail:
    who = principal(router, "read")
    return extraction.get_run(who.tenant_id, run_id)


@router.post(
    "/v1/extraction/runs/<run_id>/undo",
    tags=["extraction"],
    summary="Undo an extraction run: its memories to the trash, updates and invalidations reversed",
    responses={
        200: {"description": "Undone"},
        409: {"description": "The run is not done, is a dry run, or was undone already"},
    },
)
def undo_run(run_id: UUID) -> ExtractionRunDetail:
    who = principal(router, "write")
    return extraction.undo_run(who.tenant_id, run_id)


@router.get("/v1/extraction/settings", tags=["extraction"], summary="What a namespace extracts")
def get_settings(namespace: RequiredNamespaceQuery) -> NamespaceExtraction:
    who = principal(router, "read")
    return extraction.namespace_settings(who.tenant_id, namespace)


@router.put(
    "/v1/extraction/settings",
    tags=["extraction"],
    summary="Turn extraction on or off for a namespace, choose its kinds, add instructions",
)
def put_settings(body: ExtractionSettingsUpdate) -> NamespaceExtraction:
    who = principal(router, "admin")
    return extraction.put_namespace_settings(who.tenant_id, body)
