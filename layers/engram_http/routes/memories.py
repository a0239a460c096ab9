"""Memories: create, batch, get, list, patch, delete (to trash), restore."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram.core.idempotency import request_key
from engram.core.models import Kind, Layer, Memory, MemoryDetail
from engram.memories import service as memories
from engram.memories.models import (
    BatchResult,
    MemoryBatchCreate,
    MemoryCreate,
    MemoryPage,
    MemoryPatch,
    MemoryWritten,
)
from engram_http.auth import principal
from engram_http.params import (
    IDEMPOTENCY_KEY_REUSED,
    CursorQuery,
    IdempotencyKeyHeader,
    NamespaceQuery,
    PageLimitQuery,
    SinceQuery,
    TagsQuery,
    UntilQuery,
)
from engram_http.resolver import json_response

router = Router()


@router.post(
    "/v1/memories",
    tags=["memories"],
    summary="Store one memory",
    responses={
        201: {"description": "Created"},
        200: {"description": "Duplicate: existing memory"},
        409: {"description": IDEMPOTENCY_KEY_REUSED},
    },
)
def create_memory(body: MemoryCreate, idempotency_key: IdempotencyKeyHeader = None) -> Response[MemoryWritten]:
    who = principal(router, "write")
    written = memories.create_memory(who.tenant_id, body, request_key(idempotency_key, "POST /v1/memories", body))
    return json_response(written, 200 if written.deduplicated else 201)


@router.post(
    "/v1/memories/batch",
    tags=["memories"],
    summary="Store up to 100 memories, per-item results",
    responses={200: {"description": "One result per item"}, 409: {"description": IDEMPOTENCY_KEY_REUSED}},
)
def create_batch(body: MemoryBatchCreate, idempotency_key: IdempotencyKeyHeader = None) -> BatchResult:
    who = principal(router, "write")
    return memories.create_batch(
        who.tenant_id, body.items, request_key(idempotency_key, "POST /v1/memories/batch", body)
    )


@router.get("/v1/memories", tags=["memories"], summary="List memories, newest first, with a cursor")
def list_memories(
    namespace: NamespaceQuery = None,
    tag: TagsQuery = None,
    kind: Annotated[Kind | None, Query()] = None,
    layer: Annotated[Layer | None, Query()] = None,
    since: SinceQuery = None,
    until: UntilQuery = None,
    cursor: CursorQuery = None,
    limit: PageLimitQuery = 50,
) -> MemoryPage:
    who = principal(router, "read")
    return memories.list_memories(
        who.tenant_id,
        namespace=namespace,
        tags=tag,
        kind=kind,
        layer=layer,
        since=since,
        until=until,
        cursor=cursor,
        limit=limit,
    )


@router.get("/v1/trash", tags=["memories"], summary="Deleted memories that can still be restored")
def list_trash(
    namespace: NamespaceQuery = None,
    cursor: CursorQuery = None,
    limit: PageLimitQuery = 50,
) -> MemoryPage:
    who = principal(router, "read")
    return memories.list_memories(who.tenant_id, namespace=namespace, deleted=True, cursor=cursor, limit=limit)


@router.get("/v1/memories/<memory_id>", tags=["memories"], summary="Get one memory (with its evidence turns)")
def get_memory(memory_id: UUID) -> MemoryDetail:
    who = principal(router, "read")
    return memories.get_memory(who.tenant_id, memory_id)


@router.patch(
    "/v1/memories/<memory_id>",
    tags=["memories"],
    summary="Change fields; new content is re-chunked and re-embedded",
    responses={
        200: {"description": "Changed"},
        409: {"description": "Another active memory in the namespace has this content"},
    },
)
def patch_memory(memory_id: UUID, body: MemoryPatch) -> Memory:
    who = principal(router, "write")
    return memories.patch_memory(who.tenant_id, memory_id, body)


@router.delete("/v1/memories/<memory_id>", tags=["memories"], summary="Move a memory to the trash")
def delete_memory(memory_id: UUID) -> Memory:
    who = principal(router, "write")
    return memories.delete_memory(who.tenant_id, memory_id)


@router.post(
    "/v1/memories/<memory_id>/restore",
    tags=["memories"],
    summary="Bring a memory back from the trash",
    responses={
        200: {"description": "Restored"},
        409: {"description": "The memory is active, or an identical active memory exists meanwhile"},
    },
)
def restore_memory(memory_id: UUID) -> Memory:
    who = principal(router, "write")
    return memories.restore_memory(who.tenant_id, memory_id)
