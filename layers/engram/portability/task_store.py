"""The SQL of task runs and checkpoints in an export (read in the export's snapshot) and an import (written
in its transaction): engram.tasks's tables, which an import fills as it fills conversations."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from uuid import UUID

from psycopg import sql
from psycopg.rows import scalar_row

from engram.core.db import Conn
from engram.core.select_lists import select_list
from engram.portability.records import CheckpointRecord, TaskRecord
from engram.portability.rows import CheckpointExportRow, TaskExportRow
from engram.portability.store import stream_rows

_TASKS = sql.SQL(
    "SELECT {} FROM task_runs WHERE %(ns)s::text IS NULL OR namespace = %(ns)s ORDER BY created_at, id"
).format(select_list(TaskExportRow))
_CHECKPOINTS = sql.SQL(
    "SELECT {} FROM task_checkpoints k JOIN task_runs t ON t.id = k.task_id"
    " WHERE %(ns)s::text IS NULL OR t.namespace = %(ns)s ORDER BY k.created_at, k.id"
).format(select_list(CheckpointExportRow, "k"))


def stream_tasks(conn: Conn, namespace: str | None) -> Iterator[TaskExportRow]:
    return stream_rows(conn, "task", _TASKS, namespace, TaskExportRow)


def stream_checkpoints(conn: Conn, namespace: str | None) -> Iterator[CheckpointExportRow]:
    return stream_rows(conn, "checkpoint", _CHECKPOINTS, namespace, CheckpointExportRow)


def insert_task(conn: Conn, tenant_id: UUID, conversation_id: UUID, r: TaskRecord) -> UUID:
    """A task run as it was exported, under a new id, on its (imported) ledger."""
    task_id: UUID | None = (
        conn.cursor(row_factory=scalar_row)
        .execute(
            "INSERT INTO task_runs (tenant_id, conversation_id, namespace, goal, agent_id, status, outcome, metadata,"
            " created_at, updated_at, ended_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, COALESCE(%s, now()), %s)"
            " RETURNING id",
            (
                tenant_id,
                conversation_id,
                r.namespace,
                r.goal,
                r.agent_id,
                r.status,
                r.outcome,
                json.dumps(r.metadata),
                r.created_at,
                r.updated_at,
                r.ended_at,
            ),
        )
        .fetchone()
    )
    assert task_id is not None
    return task_id


def insert_checkpoints(conn: Conn, tenant_id: UUID, rows: Sequence[tuple[UUID, CheckpointRecord]]) -> None:
    for task_id, r in rows:
        conn.execute(
            "INSERT INTO task_checkpoints (tenant_id, task_id, seq_to, summary, completed, pending, decisions,"
            " blockers, artifacts, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                tenant_id,
                task_id,
                r.seq_to,
                r.summary,
                r.completed,
                r.pending,
                r.decisions,
                r.blockers,
                json.dumps(r.artifacts),
                r.created_at,
            ),
        )
