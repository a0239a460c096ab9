"""The SQL of feedback: recall events, feedback rows and ranking weights (the caller's connection)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row, tuple_row

from engram.core.db import Conn
from engram.core.select_lists import select_list
from engram.feedback.models import FAILURE_CLASSES, Feedback


@dataclass(frozen=True)
class StoredWeight:
    target_id: UUID
    weight: float
    updated_at: datetime


def insert_event(
    conn: Conn,
    event_id: UUID,
    tenant_id: UUID,
    namespaces: Sequence[str],
    memory_ids: Sequence[UUID],
    chunk_ids: Sequence[UUID],
) -> None:
    """Nothing is read back: in a pipeline, the insert travels with what follows it (recall's commit)."""
    conn.execute(
        "INSERT INTO recall_events (id, tenant_id, namespaces, memory_ids, chunk_ids) VALUES (%s, %s, %s, %s, %s)",
        (event_id, tenant_id, list(namespaces), list(memory_ids), list(chunk_ids)),
    )


def event_exists(conn: Conn, recall_id: UUID, retention_days: int) -> bool:
    """The recall event, kept and within its retention (an older one awaits the sweep: as gone)."""
    row = conn.execute(
        "SELECT 1 FROM recall_events WHERE id = %s AND created_at >= now() - make_interval(days => %s) FOR UPDATE",
        (recall_id, retention_days),
    ).fetchone()
    return row is not None


def feedback_given(conn: Conn, recall_id: UUID) -> bool:
    return conn.execute("SELECT 1 FROM recall_feedback WHERE recall_id = %s", (recall_id,)).fetchone() is not None


def ranking_targets(conn: Conn, recall_id: UUID, ids: Sequence[UUID]) -> dict[UUID, UUID]:
    """Each given id the recall returned -> what ranking weighs for it: a memory result's memory (by its id
    or its chunk's), a conversation window's chunk (by its id or the id of a message in it). Ids the recall
    did not return are missing from the answer."""
    cur = conn.cursor(row_factory=tuple_row)
    pairs: list[tuple[UUID, UUID | None]] = cur.execute(
        "WITH e AS (SELECT memory_ids, chunk_ids FROM recall_events WHERE id = %(recall)s)"
        " SELECT g.id AS given, CASE WHEN g.id = ANY(e.memory_ids) THEN g.id ELSE"
        " (SELECT COALESCE(c.memory_id, c.id) FROM chunks c WHERE c.id = ANY(e.chunk_ids) AND (c.id = g.id"
        "  OR (c.conversation_id IS NOT NULL AND EXISTS (SELECT 1 FROM messages m WHERE m.id = g.id"
        "   AND m.conversation_id = c.conversation_id AND m.seq BETWEEN c.seq_from AND c.seq_to)))"
        "  ORDER BY c.id LIMIT 1) END AS target"
        " FROM unnest(%(ids)s::uuid[]) g(id), e",
        {"recall": recall_id, "ids": list(ids)},
    ).fetchall()
    return {given: target for given, target in pairs if target is not None}


def read_weights(conn: Conn, target_ids: Sequence[UUID]) -> list[StoredWeight]:
    query = sql.SQL("SELECT {} FROM feedback_weights WHERE target_id = ANY(%s)").format(select_list(StoredWeight))
    with conn.cursor(row_factory=class_row(StoredWeight)) as cur:
        return cur.execute(query, (list(target_ids),)).fetchall()


def write_weights(conn: Conn, tenant_id: UUID, weights: dict[UUID, float]) -> None:
    conn.execute(
        "INSERT INTO feedback_weights (tenant_id, target_id, weight)"
        " SELECT %s, t, w FROM unnest(%s::uuid[], %s::real[]) AS x(t, w)"
        " ON CONFLICT (tenant_id, target_id) DO UPDATE SET weight = EXCLUDED.weight, updated_at = now()",
        (tenant_id, list(weights), list(weights.values())),
    )


def insert_feedback(
    conn: Conn,
    tenant_id: UUID,
    recall_id: UUID,
    useful: Sequence[UUID],
    not_useful: Sequence[UUID],
    failure_class: str | None,
    note: str | None,
) -> Feedback:
    # The weights it moved are the caller's to add.
    query = sql.SQL(
        "INSERT INTO recall_feedback (tenant_id, recall_id, useful, not_useful, failure_class, note)"
        " VALUES (%s, %s, %s, %s, %s, %s) RETURNING {}"
    ).format(select_list(Feedback, expressions={"weights": sql.SQL("'{}'::jsonb[]")}))
    cur = conn.cursor(row_factory=class_row(Feedback))
    written = cur.execute(query, (tenant_id, recall_id, list(useful), list(not_useful), failure_class, note)).fetchone()
    assert written is not None
    return written


@dataclass(frozen=True)
class FeedbackCounts:
    recall_events: int
    feedback: int
    useful: int
    not_useful: int
    weighted_results: int
    by_failure_class: dict[str, int]


_COUNTS = {
    "recall_events": sql.SQL("(SELECT count(*) FROM recall_events)"),
    "feedback": sql.SQL("(SELECT count(*) FROM recall_feedback)"),
    "useful": sql.SQL("(SELECT COALESCE(sum(cardinality(useful)), 0)::bigint FROM recall_feedback)"),
    "not_useful": sql.SQL("(SELECT COALESCE(sum(cardinality(not_useful)), 0)::bigint FROM recall_feedback)"),
    "weighted_results": sql.SQL("(SELECT count(*) FROM feedback_weights WHERE weight <> 0)"),
    "by_failure_class": sql.SQL(
        "(SELECT COALESCE(jsonb_object_agg(failure_class, n), '{}') FROM (SELECT failure_class, count(*) AS n"
        " FROM recall_feedback WHERE failure_class IS NOT NULL GROUP BY failure_class) g)"
    ),
}


def feedback_counts(conn: Conn) -> FeedbackCounts:
    query = sql.SQL("SELECT {}").format(select_list(FeedbackCounts, expressions=_COUNTS))
    counts = conn.cursor(row_factory=class_row(FeedbackCounts)).execute(query).fetchone()
    assert counts is not None
    # Every class is listed, those never given with 0.
    by_class = {c: int(counts.by_failure_class.get(c, 0)) for c in FAILURE_CLASSES}
    return replace(counts, by_failure_class=by_class)


def delete_for(conn: Conn, memory_ids: Sequence[UUID], conversation_ids: Sequence[UUID]) -> int:
    """The weights and the recall events (their feedback with them) naming these memories, their chunks,
    or these conversations' windows: before the rows themselves go. The events deleted."""
    params = {"m": list(memory_ids), "c": list(conversation_ids)}
    conn.execute(
        "DELETE FROM feedback_weights WHERE target_id = ANY(%(m)s)"
        " OR target_id IN (SELECT id FROM chunks WHERE conversation_id = ANY(%(c)s))",
        params,
    )
    cur = conn.execute(
        "DELETE FROM recall_events WHERE memory_ids && %(m)s::uuid[] OR chunk_ids && ARRAY(SELECT id FROM chunks"
        " WHERE memory_id = ANY(%(m)s) OR conversation_id = ANY(%(c)s))",
        params,
    )
    return cur.rowcount


def delete_namespace(conn: Conn, namespace: str) -> None:
    """A namespace's weights and the recall events that returned something of it (before its rows go)."""
    conn.execute(
        "DELETE FROM feedback_weights WHERE target_id IN (SELECT id FROM memories WHERE namespace = %(ns)s)"
        " OR target_id IN (SELECT id FROM chunks WHERE namespace = %(ns)s AND conversation_id IS NOT NULL)",
        {"ns": namespace},
    )
    conn.execute("DELETE FROM recall_events WHERE %s = ANY(namespaces)", (namespace,))


def expire(conn: Conn, retention_days: int) -> tuple[int, int]:
    """Across tenants (a definer function): events and weights past their retention. (events, weights)."""
    cur = conn.cursor(row_factory=tuple_row)
    expired: tuple[int, int] | None = cur.execute(
        "SELECT events, weights FROM engram_expire_feedback(make_interval(days => %s))", (retention_days,)
    ).fetchone()
    assert expired is not None
    events, weights = expired
    return int(events), int(weights)
