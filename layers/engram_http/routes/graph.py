"""The temporal graph: links between memories, traversal from a memory, and a memory's history."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram.core.idempotency import request_key
from engram.core.models import Relation, Timestamp
from engram.graph import service as graph
from engram.graph.models import (
    MAX_DEPTH,
    MAX_NODES,
    Direction,
    Link,
    LinkBatchCreate,
    LinkBatchResult,
    LinkCreate,
    LinkPage,
    MemoryHistory,
    Traversal,
)
from engram_http.auth import principal
from engram_http.params import IDEMPOTENCY_KEY_REUSED, CursorQuery, IdempotencyKeyHeader, PageLimitQuery
from engram_http.resolver import json_response

router = Router()

RelationsQuery = Annotated[list[Relation] | None, Query(description="Only these relations (repeatable)")]


@router.post(
    "/v1/links",
    tags=["graph"],
    summary="Link two memories (typed, directed, time-bounded)",
    responses={
        201: {"description": "Created"},
        404: {"description": "A memory is missing or not yours"},
        409: {"description": f"The same link already holds during this validity, or: {IDEMPOTENCY_KEY_REUSED}"},
    },
)
def create_link(body: LinkCreate, idempotency_key: IdempotencyKeyHeader = None) -> Response[Link]:
    who = principal(router, "write")
    key = request_key(idempotency_key, "POST /v1/links", body)
    return json_response(graph.create_link(who.tenant_id, body, key), 201)


@router.post(
    "/v1/links/batch",
    tags=["graph"],
    summary="Create up to 100 links, per-item results",
    responses={200: {"description": "One result per item"}, 409: {"description": IDEMPOTENCY_KEY_REUSED}},
)
def create_link_batch(body: LinkBatchCreate, idempotency_key: IdempotencyKeyHeader = None) -> LinkBatchResult:
    who = principal(router, "write")
    key = request_key(idempotency_key, "POST /v1/links/batch", body)
    return graph.create_link_batch(who.tenant_id, body.items, key)


@router.get("/v1/links", tags=["graph"], summary="List links, newest first, with a cursor")
def list_links(
    memory_id: Annotated[UUID | None, Query(description="Only links touching this memory")] = None,
    relation: RelationsQuery = None,
    direction: Annotated[Direction, Query(description="With memory_id: out (from it), in (to it) or both")] = "both",
    include_ended: Annotated[bool, Query(description="Also links that no longer hold (history)")] = False,
    cursor: CursorQuery = None,
    limit: PageLimitQuery = 50,
) -> LinkPage:
    who = principal(router, "read")
    return graph.list_links(
        who.tenant_id,
        memory_id=memory_id,
        relations=relation,
        direction=direction,
        include_ended=include_ended,
        cursor=cursor,
        limit=limit,
    )


@router.delete("/v1/links/<link_id>", tags=["graph"], summary="End a link now (it stays as history)")
def delete_link(link_id: UUID) -> Link:
    who = principal(router, "write")
    return graph.delete_link(who.tenant_id, link_id)


@router.get(
    "/v1/memories/<memory_id>/links",
    tags=["graph"],
    summary="Memories reachable through links, breadth first, each with its path",
)
def traverse(
    memory_id: UUID,
    depth: Annotated[int, Query(ge=1, le=MAX_DEPTH, description="Links to follow from the memory")] = 1,
    relation: RelationsQuery = None,
    direction: Annotated[Direction, Query(description="out: follow links from each memory; in: to it")] = "both",
    as_of: Annotated[Timestamp | None, Query(description="Only links valid at this instant; default now")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_NODES, description="At most this many memories")] = 100,
) -> Traversal:
    who = principal(router, "read")
    return graph.traverse(
        who.tenant_id, memory_id, depth=depth, direction=direction, relations=relation, as_of=as_of, limit=limit
    )


@router.get(
    "/v1/memories/<memory_id>/history",
    tags=["graph"],
    summary="Every version of a memory, and what it replaced and what replaced it",
)
def history(memory_id: UUID) -> MemoryHistory:
    who = principal(router, "read")
    return graph.history(who.tenant_id, memory_id)
