"""The SQL of resume: core memories by weight, recent changes, session summaries, trigger tags. Functions take the
caller's connection and open no transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from psycopg import sql
from psycopg.rows import class_row

from engram.core.db import Conn
from engram.core.models import Kind, Layer
from engram.core.select_lists import select_list
from engram.priming.models import ResumeSession


@dataclass(frozen=True)
class BriefedMemory:
    """A memory as resume shows it: `content` whole for core, its first 2,000 characters for recent ones."""

    id: UUID
    namespace: str
    kind: Kind
    layer: Layer
    importance: float
    updated_at: datetime
    content: str
    length: int  # of the whole content
    weight: float | None = None  # core memories' memory weight, their order


@dataclass(frozen=True)
class TriggerTag:
    tag: str  # `trigger:...`
    access_count: int  # recalls of the memories carrying it, summed
    memories: int


_LIVE = sql.SQL("m.status = 'active' AND (m.valid_to IS NULL OR m.valid_to > now())")
_LENGTH = {"length": sql.SQL("length(m.content)")}
# A core memory's weight (core_by_weight orders by it).
_WEIGHT = sql.SQL(
    "m.importance + CASE m.kind WHEN 'procedural' THEN 0.15 WHEN 'episodic' THEN -0.1 ELSE 0 END"
    " + 0.05 * ln(1 + m.access_count) + 0.1 * ln(1 + m.repetition_count)"
)


def _briefed(conn: Conn, query: sql.Composed, params: Sequence[object]) -> list[BriefedMemory]:
    with conn.cursor(row_factory=class_row(BriefedMemory)) as cur:
        return cur.execute(query, params).fetchall()


def core_by_weight(conn: Conn, namespaces: Sequence[str], limit: int) -> list[BriefedMemory]:
    """Core memories, heaviest first by memory weight: importance, a procedural bias up and an
    episodic one down, a little for being recalled and restated."""
    return _briefed(
        conn,
        sql.SQL(
            "SELECT {fields} FROM memories m WHERE m.namespace = ANY(%s) AND m.layer = 'core' AND NOT m.critical"
            " AND {live} ORDER BY weight DESC, m.updated_at DESC, m.id LIMIT %s"
        ).format(fields=select_list(BriefedMemory, "m", expressions={**_LENGTH, "weight": _WEIGHT}), live=_LIVE),
        (list(namespaces), limit),
    )


def critical_facts(conn: Conn, namespaces: Sequence[str], limit: int) -> list[BriefedMemory]:
    """The critical memories valid now, most important first, then newest (they lead every briefing)."""
    return _briefed(
        conn,
        sql.SQL(
            "SELECT {fields} FROM memories m WHERE m.namespace = ANY(%s) AND m.critical AND {live}"
            " ORDER BY m.importance DESC, m.created_at DESC, m.id LIMIT %s"
        ).format(fields=select_list(BriefedMemory, "m", expressions=_LENGTH, leave_out=("weight",)), live=_LIVE),
        (list(namespaces), limit),
    )


def recent_changes(conn: Conn, namespaces: Sequence[str], since: datetime, limit: int) -> list[BriefedMemory]:
    """Non-core memories written or changed since `since`, newest first."""
    return _briefed(
        conn,
        sql.SQL(
            "SELECT {fields} FROM memories m WHERE m.namespace = ANY(%s) AND m.layer <> 'core' AND NOT m.critical"
            " AND m.updated_at >= %s AND {live} ORDER BY m.updated_at DESC, m.id LIMIT %s"
        ).format(
            fields=select_list(
                BriefedMemory,
                "m",
                expressions={**_LENGTH, "content": sql.SQL("left(m.content, 2000)")},
                leave_out=("weight",),
            ),
            live=_LIVE,
        ),
        (list(namespaces), since, limit),
    )


def triggers(conn: Conn, namespaces: Sequence[str], limit: int) -> list[TriggerTag]:
    """`trigger:*` tags of live memories, most recalled first."""
    with conn.cursor(row_factory=class_row(TriggerTag)) as cur:
        return cur.execute(
            sql.SQL(
                "SELECT {fields} FROM memories m CROSS JOIN LATERAL unnest(m.tags) AS t(tag)"
                " WHERE m.namespace = ANY(%s) AND t.tag LIKE 'trigger:%%' AND {live}"
                " GROUP BY t.tag ORDER BY sum(m.access_count) DESC, t.tag LIMIT %s"
            ).format(
                fields=select_list(
                    TriggerTag,
                    "t",
                    expressions={
                        "access_count": sql.SQL("sum(m.access_count)::bigint"),
                        "memories": sql.SQL("count(*)"),
                    },
                ),
                live=_LIVE,
            ),
            (list(namespaces), limit),
        ).fetchall()


def session_summaries(conn: Conn, namespaces: Sequence[str], limit: int) -> list[ResumeSession]:
    """The project status distilled from session summaries (newest, if any), then the latest
    conversations' rolling summaries, newest first."""
    cur = conn.cursor(row_factory=class_row(ResumeSession))
    return cur.execute(
        "(SELECT NULL::uuid AS conversation_id, 'Project status' AS title, m.namespace, m.content AS summary,"
        " m.updated_at FROM memories m WHERE m.namespace = ANY(%(ns)s) AND m.tags @> '{project-status}'"
        " AND m.status = 'active' ORDER BY m.updated_at DESC LIMIT 1)"
        " UNION ALL (SELECT c.id, c.title, c.namespace, c.summary, c.summary_updated_at FROM conversations c"
        " WHERE c.namespace = ANY(%(ns)s) AND c.summary IS NOT NULL ORDER BY c.summary_updated_at DESC LIMIT %(n)s)",
        {"ns": list(namespaces), "n": limit},
    ).fetchall()
