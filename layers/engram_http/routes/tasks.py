"""Task runs: start, read, list, append and read events, redact one, checkpoint, end, and the bounded context."""

from __future__ import annotations

from typing import Annotated, Literal
from uuid import UUID

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram.adapters.embeddings.factory import embedder_from_env
from engram.conversations.models import AppendResult, Message, MessagePage, MessagesAppend
from engram.core.idempotency import request_key
from engram.core.models import PG_INTEGER_MAX
from engram.tasks import service as tasks
from engram.tasks.models import (
    Checkpoint,
    CheckpointCreate,
    Task,
    TaskContext,
    TaskContextRequest,
    TaskCreate,
    TaskEnd,
    TaskPage,
)
from engram_http.auth import principal
from engram_http.params import IDEMPOTENCY_KEY_REUSED, CursorQuery, IdempotencyKeyHeader, NamespaceQuery, PageLimitQuery
from engram_http.resolver import json_response

router = Router()


@router.post(
    "/v1/tasks",
    tags=["tasks"],
    summary="Start a task run (and its event ledger)",
    responses={201: {"description": "Started"}, 409: {"description": IDEMPOTENCY_KEY_REUSED}},
)
def start_task(body: TaskCreate, idempotency_key: IdempotencyKeyHeader = None) -> Response[Task]:
    who = principal(router, "write")
    return json_response(
        tasks.start_task(who.tenant_id, body, request_key(idempotency_key, "POST /v1/tasks", body)), 201
    )


@router.get("/v1/tasks", tags=["tasks"], summary="Task runs, newest first")
def list_tasks(
    namespace: NamespaceQuery = None,
    status: Annotated[Literal["running", "done", "failed", "cancelled"] | None, Query()] = None,
    cursor: CursorQuery = None,
    limit: PageLimitQuery = 50,
) -> TaskPage:
    who = principal(router, "read")
    return tasks.list_tasks(who.tenant_id, namespace=namespace, status=status, cursor=cursor, limit=limit)


@router.get("/v1/tasks/<task_id>", tags=["tasks"], summary="One task run")
def get_task(task_id: UUID) -> Task:
    who = principal(router, "read")
    return tasks.get_task(who.tenant_id, task_id)


@router.post(
    "/v1/tasks/<task_id>/events",
    tags=["tasks"],
    summary="Append up to 200 events (user, assistant, tool, agent, system), in order, all or none",
    responses={
        201: {"description": "Appended"},
        200: {"description": "Retry of an idempotency key: the first answer, nothing written"},
        409: {"description": "The task has ended, or the idempotency key was used for other events"},
    },
)
def append_events(
    task_id: UUID, body: MessagesAppend, idempotency_key: IdempotencyKeyHeader = None
) -> Response[AppendResult]:
    who = principal(router, "write")
    result = tasks.append_events(who.tenant_id, task_id, body, idempotency_key)
    return json_response(result, 200 if result.replayed else 201)


@router.get("/v1/tasks/<task_id>/events", tags=["tasks"], summary="Events in order, from_seq..to_seq inclusive")
def list_events(
    task_id: UUID,
    from_seq: Annotated[int | None, Query(ge=1, le=PG_INTEGER_MAX)] = None,
    to_seq: Annotated[int | None, Query(ge=1, le=PG_INTEGER_MAX)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> MessagePage:
    who = principal(router, "read")
    return tasks.list_events(who.tenant_id, task_id, from_seq=from_seq, to_seq=to_seq, limit=limit)


@router.post(
    "/v1/tasks/<task_id>/events/<seq>/redact",
    tags=["tasks"],
    summary="Redact one event: its content is gone from every copy, its place in the ledger stays",
)
def redact_event(task_id: UUID, seq: int) -> Message:
    who = principal(router, "write")
    task = tasks.get_task(who.tenant_id, task_id)  # 404 for another tenant's task, before anything is touched
    # Here, not at the top: erasure brings topics and numpy (~60 ms), which the conversations Lambda's
    # appends and reads should not pay for on a cold start.
    from engram.erasure import service as erasure

    return erasure.redact_turn(who.tenant_id, task.conversation_id, seq, key_id=who.key_id)


@router.post(
    "/v1/tasks/<task_id>/checkpoints",
    tags=["tasks"],
    summary="Checkpoint the task: summary, completed and pending steps, decisions, blockers, artifacts",
    responses={201: {"description": "Written"}, 409: {"description": IDEMPOTENCY_KEY_REUSED}},
)
def create_checkpoint(
    task_id: UUID, body: CheckpointCreate, idempotency_key: IdempotencyKeyHeader = None
) -> Response[Checkpoint]:
    who = principal(router, "write")
    key = request_key(idempotency_key, f"POST /v1/tasks/{task_id}/checkpoints", body)
    return json_response(tasks.create_checkpoint(who.tenant_id, task_id, body, key), 201)


@router.get("/v1/tasks/<task_id>/checkpoints", tags=["tasks"], summary="The task's checkpoints, newest first")
def list_checkpoints(task_id: UUID, limit: Annotated[int, Query(ge=1, le=100)] = 20) -> list[Checkpoint]:
    who = principal(router, "read")
    return tasks.list_checkpoints(who.tenant_id, task_id, limit)


@router.post(
    "/v1/tasks/<task_id>/end",
    tags=["tasks"],
    summary="End the task: done, failed or cancelled",
    responses={200: {"description": "Ended"}, 409: {"description": "The task has already ended"}},
)
def end_task(task_id: UUID, body: TaskEnd) -> Task:
    who = principal(router, "write")
    return tasks.end_task(who.tenant_id, task_id, body)


@router.post(
    "/v1/tasks/<task_id>/context",
    tags=["tasks"],
    summary="The context to resume the task with, within a hard character budget split in stated shares",
    responses={
        200: {
            "description": "The context as JSON, or with format=text as text/plain to paste",
            "content": {"application/json": {"model": TaskContext}, "text/plain": {"schema": {"type": "string"}}},
        }
    },
)
def task_context(
    task_id: UUID,
    body: TaskContextRequest,
    format: Annotated[Literal["json", "text"], Query(description="text: the context alone, as text/plain")] = "json",
) -> Response[TaskContext | str]:
    who = principal(router, "read")
    context = tasks.task_context(who.tenant_id, task_id, body, embedder_from_env())
    if format == "text":
        return Response(status_code=200, content_type="text/plain; charset=utf-8", body=context.text)
    return json_response(context, 200)
