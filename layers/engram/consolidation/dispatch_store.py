"""SQL of the consolidation pipeline's view of runs: the open run of a namespace, runs whose
message was lost or whose worker kept dying, and marking such a run failed.

Functions take the caller's connection and open no transaction.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row, scalar_row, tuple_row

from engram.core.db import Conn
from engram.core.select_lists import select_list


class OpenRun(NamedTuple):
    id: UUID
    status: str
    created_at: datetime


class StaleRun(NamedTuple):
    tenant_id: UUID
    run_id: UUID
    abandoned: bool  # open for longer than the abandon limit: to be marked failed, not resent


def open_run(conn: Conn, namespace: str) -> OpenRun | None:
    """The tenant's applying (not dry) run of this namespace that is queued or running, if any."""
    query = sql.SQL(
        "SELECT {} FROM consolidation_runs"
        " WHERE tenant_id = engram_current_tenant() AND namespace = %s AND status IN ('queued', 'running')"
        " AND NOT dry_run ORDER BY created_at LIMIT 1"
    ).format(select_list(OpenRun))
    with conn.cursor(row_factory=class_row(OpenRun)) as cur:
        return cur.execute(query, (namespace,)).fetchone()


def stale_runs(conn: Conn, *, requeue_after_s: float, abandon_after_s: float, limit: int) -> list[StaleRun]:
    """Across tenants (a definer function): runs queued for longer than `requeue_after_s`, and runs
    open without progress for longer than `abandon_after_s`."""
    query = sql.SQL(
        "SELECT {} FROM engram_stale_consolidation_runs(make_interval(secs => %s), make_interval(secs => %s), %s)"
    ).format(select_list(StaleRun))
    with conn.cursor(row_factory=class_row(StaleRun)) as cur:
        return cur.execute(query, (requeue_after_s, abandon_after_s, limit)).fetchall()


def every_open_run(owner: Conn) -> list[tuple[UUID, UUID]]:
    """(tenant, run) of every queued or running run of every tenant, oldest first (an owner
    connection: `make dev`'s start, whose queue of the last process is gone)."""
    with owner.cursor(row_factory=tuple_row) as cur:
        return cur.execute(
            "SELECT tenant_id, id FROM consolidation_runs WHERE status IN ('queued', 'running') ORDER BY created_at"
        ).fetchall()


def fail_run(conn: Conn, run_id: UUID, error: str) -> bool:
    """Mark a queued or running run failed (it frees its namespace for the next run); False when
    it had already finished."""
    with conn.cursor(row_factory=scalar_row) as cur:
        failed = cur.execute(
            "UPDATE consolidation_runs SET status = 'failed', error = %s, finished_at = now(), updated_at = now()"
            " WHERE id = %s AND status IN ('queued', 'running') RETURNING id",
            (error[:2000], run_id),
        ).fetchone()
    return failed is not None
