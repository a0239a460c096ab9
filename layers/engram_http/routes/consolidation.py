"""Consolidation: start a run (or a dry run's plan), list and read runs with their actions, undo one."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram.consolidation import service as consolidation
from engram.consolidation.models import ConsolidateRequest, Run, RunPage, RunWithActions
from engram.core.idempotency import request_key
from engram_http.auth import principal
from engram_http.params import IDEMPOTENCY_KEY_REUSED, CursorQuery, IdempotencyKeyHeader, NamespaceQuery, PageLimitQuery
from engram_http.resolver import json_response

router = Router()

ActionCursorQuery = Annotated[
    str | None,
    Query(pattern=r"^[0-9]{1,10}$", description="actions.next_cursor, exactly as returned: any other value is 422"),
]


@router.post(
    "/v1/consolidate",
    tags=["consolidation"],
    summary="Start a consolidation run (or a dry run's plan)",
    responses={
        202: {"description": "Queued: poll GET /v1/consolidation-runs/{run_id}"},
        409: {
            "description": f"An applied run of this namespace is still queued or running, or: {IDEMPOTENCY_KEY_REUSED}"
        },
    },
)
def consolidate(body: ConsolidateRequest, idempotency_key: IdempotencyKeyHeader = None) -> Response[Run]:
    who = principal(router, "write")
    key = request_key(idempotency_key, "POST /v1/consolidate", body)
    return json_response(consolidation.consolidate_request(who.tenant_id, body, key), 202)


@router.get("/v1/consolidation-runs", tags=["consolidation"], summary="Runs, newest first, with a cursor")
def list_runs(
    namespace: NamespaceQuery = None,
    cursor: CursorQuery = None,
    limit: PageLimitQuery = 50,
) -> RunPage:
    who = principal(router, "read")
    return consolidation.list_runs(who.tenant_id, namespace=namespace, cursor=cursor, limit=limit)


@router.get(
    "/v1/consolidation-runs/<run_id>",
    tags=["consolidation"],
    summary="A run: status, counts per step, LLM calls and tokens, and its actions (paginated)",
)
def get_run(
    run_id: UUID,
    cursor: ActionCursorQuery = None,
    limit: PageLimitQuery = 100,
) -> RunWithActions:
    who = principal(router, "read")
    return consolidation.get_run_with_actions(who.tenant_id, run_id, cursor=cursor, limit=limit)


@router.post(
    "/v1/consolidation-runs/<run_id>/undo",
    tags=["consolidation"],
    summary="Put back everything the run changed",
    responses={
        200: {"description": "The run, now undone"},
        409: {"description": "Memories changed since the run (named), or a later run exists"},
    },
)
def undo_run(run_id: UUID) -> Run:
    who = principal(router, "write")
    return consolidation.undo_run(who.tenant_id, run_id)
