"""Runs and their actions as the API shows them."""

from __future__ import annotations

from dataclasses import asdict
from uuid import UUID

from engram.consolidation import store
from engram.consolidation.models import ActionPage, Run, RunPage, RunWithActions, StepCounts
from engram.consolidation.store import RunRow
from engram.core.db import Conn, tenant_transaction
from engram.core.errors import InvalidField, NotFound
from engram.core.pagination import MAX_PAGE, decode_cursor, encode_cursor

__all__ = ["get_run", "get_run_with_actions", "list_actions", "list_runs", "read_run", "run_model"]


def run_model(row: RunRow) -> Run:
    counts = row.step_counts or {}
    step_counts = [StepCounts(step=s, **counts[s]) for s in row.steps if s in counts]
    return Run.model_validate({**asdict(row), "step_counts": step_counts})


def read_run(conn: Conn, run_id: UUID, lock: bool = False) -> RunRow:
    row = store.read_run(conn, run_id, lock=lock)
    if row is None:
        raise NotFound(f"consolidation run {run_id} not found")
    return row


def get_run(tenant_id: UUID, run_id: UUID) -> Run:
    with tenant_transaction(tenant_id) as conn:
        return run_model(read_run(conn, run_id))


def get_run_with_actions(tenant_id: UUID, run_id: UUID, cursor: str | None = None, limit: int = 100) -> RunWithActions:
    with tenant_transaction(tenant_id) as conn:
        run = run_model(read_run(conn, run_id))
        page = _actions(conn, run_id, cursor, limit)
    return RunWithActions(**run.model_dump(), actions=page)


def list_runs(tenant_id: UUID, namespace: str | None = None, cursor: str | None = None, limit: int = 50) -> RunPage:
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidField("limit", f"must be between 1 and {MAX_PAGE}", limit=MAX_PAGE)
    with tenant_transaction(tenant_id) as conn:
        rows = store.list_runs(conn, namespace, decode_cursor(cursor) if cursor else None, limit + 1)
    page = rows[:limit]
    nxt = encode_cursor(page[-1].created_at, page[-1].id) if len(rows) > limit else None
    return RunPage(items=[run_model(r) for r in page], next_cursor=nxt)


def _actions(conn: Conn, run_id: UUID, cursor: str | None, limit: int) -> ActionPage:
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidField("limit", f"must be between 1 and {MAX_PAGE}", limit=MAX_PAGE)
    after = 0
    if cursor:
        try:
            after = int(cursor)
        except ValueError as exc:
            raise InvalidField("cursor", "is not a cursor this API returned") from exc
    rows = store.list_actions(conn, run_id, after, limit + 1)
    page = rows[:limit]
    return ActionPage(items=page, next_cursor=str(page[-1].seq) if len(rows) > limit else None)


def list_actions(tenant_id: UUID, run_id: UUID, cursor: str | None = None, limit: int = 100) -> ActionPage:
    with tenant_transaction(tenant_id) as conn:
        read_run(conn, run_id)
        return _actions(conn, run_id, cursor, limit)
