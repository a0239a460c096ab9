"""The SQL of consolidation runs: runs, their actions, the LLM's verdicts and each namespace's
clock. Functions take the caller's connection (a tenant transaction) and return typed rows; the
memories a run reads and changes are in memory_store.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import class_row, scalar_row, tuple_row
from psycopg.types.json import Jsonb

from engram.consolidation.models import Action
from engram.core.db import Conn
from engram.core.errors import Conflict
from engram.core.select_lists import select_list


@dataclass(frozen=True)
class RunRow:
    """A consolidation run: its request, its checkpoint (step_index, step_cursor) and its totals."""

    id: UUID
    namespace: str
    status: str
    dry_run: bool
    trigger: str
    steps: list[str]
    step_index: int
    step_cursor: dict[str, Any] | None  # {"since": iso time or None, "step": the current step's cursor}
    step_counts: dict[str, dict[str, Any]]  # per step: actions, candidates, skipped, seconds
    next_action_seq: int
    epoch: int | None
    llm_calls: int
    llm_input_tokens: int
    llm_output_tokens: int
    llm_capped: str | None
    error: str | None
    cycles: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    updated_at: datetime
    undone_at: datetime | None
    worker_started_at: datetime | None
    interruptions: int
    erased_memories: list[UUID]


@dataclass(frozen=True)
class NewAction:
    """An action a batch took (or plans), as it is written."""

    step: str
    action: str
    memory_ids: list[UUID]
    reason: str
    details: dict[str, Any]
    applied: bool
    before_image: dict[str, Any] | None  # what undo puts back (None when nothing was applied)
    links_created: list[UUID]


@dataclass(frozen=True)
class AppliedAction:
    """What undo needs of an applied action."""

    seq: int
    step: str
    action: str
    memory_ids: list[UUID]
    before_image: dict[str, Any] | None
    links_created: list[UUID]
    created_at: datetime


RUN_COLUMNS = select_list(RunRow, "r")

# --- runs ---------------------------------------------------------------------------------------


def insert_run(conn: Conn, tenant_id: UUID, namespace: str, dry_run: bool, steps: Sequence[str], trigger: str) -> UUID:
    try:
        with conn.transaction():  # a savepoint: a refused insert leaves the caller's transaction usable
            run_id: UUID | None = (
                conn.cursor(row_factory=scalar_row)
                .execute(
                    "INSERT INTO consolidation_runs (tenant_id, namespace, dry_run, trigger, steps)"
                    " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                    (tenant_id, namespace, dry_run, trigger, list(steps)),
                )
                .fetchone()
            )
    except psycopg.errors.UniqueViolation as exc:  # consolidation_runs_one_open: another writer won the race
        raise Conflict(
            f"an applying run of namespace {namespace!r} is already open; wait for it to finish",
            {"namespace": namespace},
        ) from exc
    assert run_id is not None
    return run_id


def read_run(conn: Conn, run_id: UUID, *, lock: bool = False) -> RunRow | None:
    query = sql.SQL("SELECT {} FROM consolidation_runs r WHERE r.id = %s {}").format(
        RUN_COLUMNS, sql.SQL("FOR UPDATE") if lock else sql.SQL("")
    )
    with conn.cursor(row_factory=class_row(RunRow)) as cur:
        return cur.execute(query, (run_id,)).fetchone()


# The session advisory lock a worker holds while it works on a run (migration 0018 reads it back).
WORKER_LOCK_CLASS = 1701734258


def hold_run(conn: Conn, run_id: UUID, wait_s: float) -> bool:
    """Take the run's worker lock for this session (outside any transaction of the caller), waiting
    up to `wait_s`: the backend of a worker that just died may still be ending. False when a live
    worker holds it."""
    try:
        with conn.transaction():
            conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(f"{int(wait_s * 1000)}ms")))
            conn.execute("SELECT pg_advisory_lock(%s, hashtext(%s::text))", (WORKER_LOCK_CLASS, run_id))
    except psycopg.errors.LockNotAvailable:
        return False
    return True


def check_client_every(conn: Conn, seconds: int) -> None:
    """The session's backend checks every `seconds` that its client is alive while a statement runs
    (a worker that died mid-statement lets go of its run's lock that soon). Committed at once."""
    conn.execute(sql.SQL("SET client_connection_check_interval = {}").format(sql.Literal(f"{seconds}s")))
    conn.commit()


def clear_worker_mark(conn: Conn, run_id: UUID) -> None:
    """The worker is done with the run for now (not an edit of the run: updated_at stays)."""
    conn.execute(
        "UPDATE consolidation_runs SET worker_started_at = NULL WHERE id = %s AND worker_started_at IS NOT NULL",
        (run_id,),
    )


def let_go_of_run(conn: Conn, run_id: UUID) -> None:
    conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s::text))", (WORKER_LOCK_CLASS, run_id))
    conn.commit()


def later_applied_run(conn: Conn, run: RunRow) -> UUID | None:
    """An applied run of the same namespace started after this one and not undone."""
    with conn.cursor(row_factory=scalar_row) as cur:
        return cur.execute(
            "SELECT id FROM consolidation_runs WHERE namespace = %s AND NOT dry_run AND id <> %s"
            " AND created_at > %s AND status IN ('queued', 'running', 'done', 'failed') AND started_at IS NOT NULL"
            " ORDER BY created_at LIMIT 1",
            (run.namespace, run.id, run.created_at),
        ).fetchone()


def update_run(conn: Conn, run_id: UUID, changes: dict[str, Any]) -> None:
    sets = [sql.SQL("{} = %s").format(sql.Identifier(k)) for k in changes]
    params = [Jsonb(v) if k in ("step_cursor", "step_counts") and v is not None else v for k, v in changes.items()]
    conn.execute(
        sql.SQL("UPDATE consolidation_runs SET {}, updated_at = now() WHERE id = %s").format(sql.SQL(", ").join(sets)),
        [*params, run_id],
    )


def list_runs(conn: Conn, namespace: str | None, before: tuple[datetime, UUID] | None, limit: int) -> list[RunRow]:
    where = [sql.SQL("true")]
    params: list[Any] = []
    if namespace:
        where.append(sql.SQL("r.namespace = %s"))
        params.append(namespace)
    if before:
        where.append(sql.SQL("(r.created_at, r.id) < (%s, %s)"))
        params += list(before)
    query = sql.SQL(
        "SELECT {} FROM consolidation_runs r WHERE {} ORDER BY r.created_at DESC, r.id DESC LIMIT %s"
    ).format(RUN_COLUMNS, sql.SQL(" AND ").join(where))
    with conn.cursor(row_factory=class_row(RunRow)) as cur:
        return cur.execute(query, [*params, limit]).fetchall()


def advance_epoch(conn: Conn, tenant_id: UUID, namespace: str) -> tuple[int, datetime | None]:
    """One more active epoch for the namespace; returns it and when the previous applied run started."""
    cur = conn.cursor(row_factory=scalar_row)
    last_run_at: datetime | None = cur.execute(
        "SELECT last_run_at FROM consolidation_namespaces WHERE namespace = %s FOR UPDATE", (namespace,)
    ).fetchone()
    epoch: int | None = cur.execute(
        "INSERT INTO consolidation_namespaces (tenant_id, namespace, epoch) VALUES (%s, %s, 1)"
        " ON CONFLICT (tenant_id, namespace) DO UPDATE SET epoch = consolidation_namespaces.epoch + 1"
        " RETURNING epoch",
        (tenant_id, namespace),
    ).fetchone()
    assert epoch is not None
    return epoch, last_run_at


def namespace_clock(conn: Conn, namespace: str) -> tuple[int, datetime | None]:
    """The namespace's current epoch and the start of its last applied run (a dry run reads, never advances)."""
    cur = conn.cursor(row_factory=tuple_row)
    clock: tuple[int, datetime | None] | None = cur.execute(
        "SELECT epoch, last_run_at FROM consolidation_namespaces WHERE namespace = %s", (namespace,)
    ).fetchone()
    return clock or (0, None)


def rewind_namespace(conn: Conn, run: RunRow) -> None:
    """Undo of an applied run: the namespace's clock as before it (its epoch back by one, the last
    applied run the previous one still done), so decay, promotion and gate cooldowns do not count
    the undone run, and the next run looks again at the pairs this one handled."""
    conn.execute(
        "UPDATE consolidation_namespaces SET epoch = epoch - 1, (last_run_id, last_run_at) = ("
        "  SELECT r.id, r.started_at FROM consolidation_runs r WHERE r.namespace = %(ns)s AND NOT r.dry_run"
        "  AND r.status = 'done' AND r.id <> %(run)s AND r.created_at < %(at)s ORDER BY r.created_at DESC LIMIT 1)"
        " WHERE namespace = %(ns)s AND epoch = %(epoch)s",
        {"ns": run.namespace, "run": run.id, "at": run.created_at, "epoch": run.epoch},
    )


def finish_namespace_run(conn: Conn, namespace: str, run_id: UUID, started_at: datetime) -> None:
    conn.execute(
        "UPDATE consolidation_namespaces SET last_run_id = %s, last_run_at = %s WHERE namespace = %s",
        (run_id, started_at, namespace),
    )


def lock_namespace(conn: Conn, tenant_id: UUID, namespace: str) -> None:
    """Batches of two runs of one namespace never interleave inside a transaction."""
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"engram.consolidation:{tenant_id}:{namespace}",)
    )


# --- actions ------------------------------------------------------------------------------------


def insert_actions(conn: Conn, tenant_id: UUID, run_id: UUID, first_seq: int, actions: Sequence[NewAction]) -> None:
    if not actions:
        return
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO consolidation_actions (run_id, seq, tenant_id, step, action, memory_ids, reason, details,"
            " applied, before_image, links_created) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [
                (
                    run_id,
                    first_seq + i,
                    tenant_id,
                    a.step,
                    a.action,
                    a.memory_ids,
                    a.reason,
                    Jsonb(a.details),
                    a.applied,
                    Jsonb(a.before_image) if a.before_image else None,
                    a.links_created,
                )
                for i, a in enumerate(actions)
            ],
        )


def list_actions(conn: Conn, run_id: UUID, after_seq: int, limit: int) -> list[Action]:
    query = sql.SQL("SELECT {} FROM consolidation_actions WHERE run_id = %s AND seq > %s ORDER BY seq LIMIT %s").format(
        select_list(Action)
    )
    with conn.cursor(row_factory=class_row(Action)) as cur:
        return cur.execute(query, (run_id, after_seq, limit)).fetchall()


def applied_actions(conn: Conn, run_id: UUID) -> list[AppliedAction]:
    query = sql.SQL("SELECT {} FROM consolidation_actions WHERE run_id = %s AND applied ORDER BY seq").format(
        select_list(AppliedAction)
    )
    with conn.cursor(row_factory=class_row(AppliedAction)) as cur:
        return cur.execute(query, (run_id,)).fetchall()


def pair_seen_in_run(conn: Conn, run_id: UUID, a: UUID, b: UUID) -> bool:
    row = conn.execute(
        "SELECT 1 FROM consolidation_actions WHERE run_id = %s AND step IN ('dedupe', 'reconcile')"
        " AND memory_ids @> %s LIMIT 1",
        (run_id, [a, b]),
    ).fetchone()
    return row is not None


def merge_survivors(conn: Conn, run_id: UUID) -> set[UUID]:
    """The memories this run's merges kept (applied, or planned in a dry run): trashing one would end
    its supersedes link and bring the duplicate it absorbed back to current."""
    with conn.cursor(row_factory=scalar_row) as cur:
        rows = cur.execute(
            "SELECT DISTINCT (details->>'survivor')::uuid FROM consolidation_actions"
            " WHERE run_id = %s AND details ? 'survivor'",
            (run_id,),
        ).fetchall()
    return set(rows)


def changed_since_run(conn: Conn, run_id: UUID) -> list[UUID]:
    """Memories this run touched that changed afterwards (a later write moved updated_at past the
    run's last action on them), or that are gone. A change stamped with the time of one of the run's
    own batches is the run's (a later step's trash or restore moved a memory an earlier step named,
    through the graph's triggers): its undo puts that back too."""
    with conn.cursor(row_factory=scalar_row) as cur:
        return cur.execute(
            "WITH acts AS (SELECT memory_ids, created_at FROM consolidation_actions WHERE run_id = %s AND applied),"
            " touched AS (SELECT unnest(memory_ids) AS id, max(created_at) AS at FROM acts GROUP BY 1)"
            " SELECT t.id FROM touched t LEFT JOIN memories m ON m.id = t.id"
            " WHERE m.id IS NULL OR (m.updated_at > t.at AND m.updated_at NOT IN (SELECT created_at FROM acts))"
            " ORDER BY t.id",
            (run_id,),
        ).fetchall()


# --- verdicts -----------------------------------------------------------------------------------


def fresh_verdict(conn: Conn, a: UUID, b: UUID, question: str) -> str | None:
    """The LLM's earlier verdict on this pair, unless one side changed since."""
    lo, hi = sorted((a, b), key=str)
    with conn.cursor(row_factory=scalar_row) as cur:
        verdict: str | None = cur.execute(
            "SELECT v.verdict FROM consolidation_verdicts v WHERE v.memory_a = %s AND v.memory_b = %s"
            " AND v.question = %s AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id IN (v.memory_a, v.memory_b)"
            " AND m.updated_at > v.decided_at)",
            (lo, hi, question),
        ).fetchone()
    return verdict


def record_verdict(conn: Conn, tenant_id: UUID, a: UUID, b: UUID, question: str, verdict: str, run_id: UUID) -> None:
    lo, hi = sorted((a, b), key=str)
    conn.execute(
        "INSERT INTO consolidation_verdicts (tenant_id, memory_a, memory_b, question, verdict, run_id)"
        " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (tenant_id, memory_a, memory_b, question)"
        " DO UPDATE SET verdict = EXCLUDED.verdict, run_id = EXCLUDED.run_id, decided_at = now()",
        (tenant_id, lo, hi, question, verdict, run_id),
    )


def delete_run_verdicts(conn: Conn, run_id: UUID) -> None:
    conn.execute("DELETE FROM consolidation_verdicts WHERE run_id = %s", (run_id,))


def distillation_answered(conn: Conn, ids: Sequence[UUID]) -> bool:
    """The LLM was asked to distil exactly these memories by a run not undone, refused or declined,
    and none of them changed since: asking again would get the same answer."""
    row = conn.execute(
        "SELECT 1 FROM consolidation_actions a JOIN consolidation_runs r ON r.id = a.run_id"
        " WHERE a.step = 'distill' AND a.action IN ('distill_refused', 'distill_declined') AND r.status <> 'undone'"
        " AND a.memory_ids @> %(ids)s::uuid[] AND a.memory_ids <@ %(ids)s::uuid[]"
        " AND a.created_at >= (SELECT max(m.updated_at) FROM memories m WHERE m.id = ANY(%(ids)s::uuid[])) LIMIT 1",
        {"ids": list(ids)},
    ).fetchone()
    return row is not None
