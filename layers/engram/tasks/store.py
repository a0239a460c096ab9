"""The SQL of task runs and checkpoints (the caller's connection). A task's events are its conversation's
messages: engram.conversations writes and reads them."""

from __future__ import annotations

import json
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row, scalar_row

from engram.core.db import Conn
from engram.core.errors import NotFound
from engram.core.pagination import newest_first
from engram.core.select_lists import select_list
from engram.tasks.models import Checkpoint, CheckpointCreate, Task, TaskCreate

# A task's events are its ledger's messages (`c`, its conversation).
_TASK = sql.SQL("SELECT {} FROM task_runs t JOIN conversations c ON c.id = t.conversation_id").format(
    select_list(
        Task,
        "t",
        expressions={
            "event_count": sql.SQL("c.next_seq - 1"),
            "checkpoint_count": sql.SQL("(SELECT count(*) FROM task_checkpoints k WHERE k.task_id = t.id)"),
        },
    )
)
_CHECKPOINT = select_list(Checkpoint)


def insert_task(conn: Conn, tenant_id: UUID, conversation_id: UUID, req: TaskCreate) -> UUID:
    task_id: UUID | None = (
        conn.cursor(row_factory=scalar_row)
        .execute(
            "INSERT INTO task_runs (tenant_id, conversation_id, namespace, goal, agent_id, metadata)"
            " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
            (tenant_id, conversation_id, req.namespace, req.goal, req.agent_id, json.dumps(req.metadata)),
        )
        .fetchone()
    )
    assert task_id is not None
    return task_id


def read_task(conn: Conn, task_id: UUID, *, lock: bool = False) -> Task:
    """The task (locked for update with `lock`: its ledger's appends and its end take turns)."""
    query = sql.SQL("{} WHERE t.id = %s {}").format(_TASK, sql.SQL("FOR UPDATE OF t" if lock else ""))
    with conn.cursor(row_factory=class_row(Task)) as cur:
        task = cur.execute(query, (task_id,)).fetchone()
    if task is None:  # another tenant's task is invisible (RLS): the same 404
        raise NotFound(f"task {task_id} not found")
    return task


def task_page(
    conn: Conn, *, namespace: str | None, status: str | None, cursor: str | None, limit: int
) -> tuple[list[Task], str | None]:
    return newest_first(
        conn,
        Task,
        select=_TASK,
        alias="t",
        cursor=cursor,
        limit=limit,
        filters=[("t.namespace = %s", namespace), ("t.status = %s", status)],
    )


def end_task(conn: Conn, task_id: UUID, status: str, outcome: str | None) -> None:
    conn.execute(
        "UPDATE task_runs SET status = %s, outcome = %s, ended_at = now(), updated_at = now() WHERE id = %s",
        (status, outcome, task_id),
    )


def touch_task(conn: Conn, task_id: UUID) -> None:
    conn.execute("UPDATE task_runs SET updated_at = now() WHERE id = %s", (task_id,))


def insert_checkpoint(conn: Conn, tenant_id: UUID, task_id: UUID, seq_to: int, req: CheckpointCreate) -> Checkpoint:
    written = (
        conn.cursor(row_factory=class_row(Checkpoint))
        .execute(
            sql.SQL(
                "INSERT INTO task_checkpoints (tenant_id, task_id, seq_to, summary, completed, pending, decisions,"
                " blockers, artifacts) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING {}"
            ).format(_CHECKPOINT),
            (
                tenant_id,
                task_id,
                seq_to,
                req.summary,
                req.completed,
                req.pending,
                req.decisions,
                req.blockers,
                json.dumps([a.model_dump(exclude_none=True) for a in req.artifacts]),
            ),
        )
        .fetchone()
    )
    assert written is not None
    return written


def checkpoints(conn: Conn, task_id: UUID, limit: int) -> list[Checkpoint]:
    """The task's checkpoints, newest first."""
    query = sql.SQL(
        "SELECT {} FROM task_checkpoints WHERE task_id = %s ORDER BY created_at DESC, id DESC LIMIT %s"
    ).format(_CHECKPOINT)
    return conn.cursor(row_factory=class_row(Checkpoint)).execute(query, (task_id, limit)).fetchall()
