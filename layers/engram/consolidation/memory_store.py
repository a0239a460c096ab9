"""The SQL of the memories consolidation reads and changes: functions that take the caller's
connection (a tenant transaction) and return typed rows.

Memories a run may act on are "live": active (not in the trash) and still valid (not superseded).
Before-images are taken by the database itself (`to_jsonb` of the row), so undo writes back
exactly what was there.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import class_row, scalar_row
from psycopg.types.json import Jsonb

from engram.core.db import Conn
from engram.core.errors import Conflict
from engram.core.models import Kind, Layer
from engram.core.select_lists import select_list

# A row image as JSON (to_jsonb of the row): what undo writes back.
Image = dict[str, Any]

LIVE = sql.SQL("m.status = 'active' AND (m.valid_to IS NULL OR m.valid_to > now())")
# Generated or identity columns cannot be written back; the primary key and tenant never change.
_NOT_RESTORED = {"id", "tenant_id", "tsv"}


# Rows compare by identity (eq=False): the rules pick a survivor among rows and tell it from the others.
@dataclass(frozen=True, eq=False)
class MemoryRow:
    """A live memory as a run reads it, with its before-image (the lifecycle rules read it as
    lifecycle.MemoryFields)."""

    id: UUID
    namespace: str
    kind: Kind
    layer: Layer
    content: str
    importance: float
    tags: list[str]
    source: str | None
    access_count: int
    repetition_count: int
    last_accessed: datetime | None
    created_at: datetime
    updated_at: datetime
    valid_from: datetime
    valid_to: datetime | None
    status: str
    layer_epoch: int | None
    gate_rejections: int
    gate_retry_epoch: int | None
    version: int
    image: Image


@dataclass(frozen=True, eq=False)
class BufferWeight:
    """What eviction weighs of a buffer memory (no content): lifecycle.Weighed."""

    id: UUID
    kind: str
    layer: str
    importance: float
    access_count: int
    repetition_count: int
    created_at: datetime


@dataclass(frozen=True)
class DecayRow:
    """A memory's fields decay changes, and their image."""

    id: UUID
    kind: str
    importance: float
    layer_epoch: int | None
    image: Image


@dataclass(frozen=True)
class NeighbourPair:
    a: UUID
    b: UUID
    cosine: float


@dataclass(frozen=True)
class ActiveSpace:
    """The active embedding space and its per-model consolidation thresholds."""

    model_id: str
    dimension: int
    consolidation_thresholds: dict[str, Any] | None


MEMORY_FIELDS = select_list(MemoryRow, "m", expressions={"image": sql.SQL("to_jsonb(m)")})


# --- memories -----------------------------------------------------------------------------------


def live_memories(
    conn: Conn,
    namespace: str,
    *,
    layer: str | None = None,
    after: UUID | None = None,
    limit: int,
    lock: bool = False,
    max_importance: float | None = None,
) -> list[MemoryRow]:
    """Live memories of a namespace in id order, from `after` (of `layer`, with importance at most
    `max_importance`, when given), with their before-image."""
    where: list[sql.Composable] = [sql.SQL("m.namespace = %s"), LIVE]
    params: list[Any] = [namespace]
    if layer:
        where.append(sql.SQL("m.layer = %s"))
        params.append(layer)
    if after:
        where.append(sql.SQL("m.id > %s"))
        params.append(after)
    if max_importance is not None:
        where.append(sql.SQL("m.importance <= %s"))
        params.append(max_importance)
    query = sql.SQL("SELECT {fields} FROM memories m WHERE {where} ORDER BY m.id LIMIT %s {lock}").format(
        fields=MEMORY_FIELDS, where=sql.SQL(" AND ").join(where), lock=sql.SQL("FOR UPDATE") if lock else sql.SQL("")
    )
    with conn.cursor(row_factory=class_row(MemoryRow)) as cur:
        return cur.execute(query, [*params, limit]).fetchall()


def memories_by_id(conn: Conn, ids: Sequence[UUID], *, lock: bool = False) -> dict[UUID, MemoryRow]:
    """Live memories among `ids`, with their before-image."""
    query = sql.SQL("SELECT {fields} FROM memories m WHERE m.id = ANY(%s) AND {live} ORDER BY m.id {lock}").format(
        fields=MEMORY_FIELDS, live=LIVE, lock=sql.SQL("FOR UPDATE") if lock else sql.SQL("")
    )
    with conn.cursor(row_factory=class_row(MemoryRow)) as cur:
        return {r.id: r for r in cur.execute(query, (list(ids),)).fetchall()}


def buffer_weights(conn: Conn, namespace: str) -> list[BufferWeight]:
    """What eviction needs of every live buffer memory (no content)."""
    with conn.cursor(row_factory=class_row(BufferWeight)) as cur:
        query = sql.SQL(
            "SELECT {} FROM memories m WHERE m.namespace = %s AND m.layer = 'buffer' AND m.status = 'active'"
            " AND (m.valid_to IS NULL OR m.valid_to > now())"
        ).format(select_list(BufferWeight, "m"))
        return cur.execute(query, (namespace,)).fetchall()


def decay_images(conn: Conn, namespace: str, after: UUID | None, limit: int) -> list[DecayRow]:
    """A batch of live memories with the fields decay changes, locked, and their image."""
    with conn.cursor(row_factory=class_row(DecayRow)) as cur:
        query = sql.SQL(
            "SELECT {} FROM memories m WHERE m.namespace = %s AND m.status = 'active'"
            " AND (m.valid_to IS NULL OR m.valid_to > now()) AND (%s::uuid IS NULL OR m.id > %s::uuid)"
            " ORDER BY m.id LIMIT %s FOR UPDATE"
        ).format(select_list(DecayRow, "m", expressions={"image": _DECAY_IMAGE}))
        return cur.execute(query, (namespace, after, after, limit)).fetchall()


# What restore_decay writes back.
_DECAY_IMAGE = sql.SQL(
    "jsonb_build_object('id', m.id, 'importance', m.importance, 'layer_epoch', m.layer_epoch,"
    " 'access_count', m.access_count, 'last_accessed', m.last_accessed)"
)


def apply_decay(conn: Conn, updates: Sequence[tuple[UUID, float, int]]) -> None:
    """(id, importance, layer_epoch) for each memory; updated_at stays: decay is not an edit."""
    if not updates:
        return
    conn.execute(
        "UPDATE memories m SET importance = u.importance, layer_epoch = u.layer_epoch"
        " FROM unnest(%s::uuid[], %s::real[], %s::int[]) AS u(id, importance, layer_epoch) WHERE m.id = u.id",
        ([u[0] for u in updates], [u[1] for u in updates], [u[2] for u in updates]),
    )


def restore_decay(conn: Conn, images: Sequence[Image]) -> None:
    conn.execute(
        "UPDATE memories m SET importance = d.importance, layer_epoch = d.layer_epoch, access_count = d.access_count,"
        " last_accessed = d.last_accessed FROM jsonb_to_recordset(%s) AS d(id uuid, importance real,"
        " layer_epoch int, access_count int, last_accessed timestamptz) WHERE m.id = d.id",
        (Jsonb(list(images)),),
    )


def update_memory(conn: Conn, memory_id: UUID, changes: dict[str, Any]) -> None:
    """A lifecycle change (layer, counts, tags, content): updated_at moves, so a later undo can tell
    whether someone changed the memory after the run."""
    sets = [sql.SQL("{} = %s").format(sql.Identifier(k)) for k in changes]
    conn.execute(
        sql.SQL("UPDATE memories SET {}, updated_at = now() WHERE id = %s").format(sql.SQL(", ").join(sets)),
        [*changes.values(), memory_id],
    )
    if changes.keys() & {"tags", "kind", "source"}:
        conn.execute(
            "UPDATE chunks c SET tags = m.tags, kind = m.kind, source = m.source FROM memories m"
            " WHERE c.memory_id = m.id AND m.id = %s",
            (memory_id,),
        )


def trash_memories(conn: Conn, ids: Sequence[UUID]) -> None:
    """To the trash, as DELETE /v1/memories/{id} does: restorable, out of recall."""
    conn.execute(
        "UPDATE memories SET status = 'deleted', deleted_at = now(), updated_at = now()"
        " WHERE id = ANY(%s) AND status = 'active'",
        (list(ids),),
    )
    conn.execute("UPDATE chunks SET active = false WHERE memory_id = ANY(%s)", (list(ids),))


def delete_created_memories(conn: Conn, ids: Sequence[UUID]) -> None:
    """Undo of memories a run wrote: deleted for good (their chunks, versions, leaf membership and
    links ended since go with them), so the tables read as before the run. Refused while a link not
    of the run (whose own links are removed first) that still holds reaches one: deleting the
    memory would lose that link."""
    with conn.cursor(row_factory=scalar_row) as cur:
        linked = cur.execute(
            "SELECT DISTINCT m.id FROM links l JOIN memories m ON m.id IN (l.from_id, l.to_id)"
            " WHERE m.id = ANY(%s) AND l.ended_at IS NULL ORDER BY m.id",
            (list(ids),),
        ).fetchall()
    if linked:
        shown = [str(memory_id) for memory_id in linked]
        raise Conflict(
            f"memories the run wrote have links made since: {', '.join(shown)} (delete the links, then undo again)",
            {"changed_memories": shown},
        )
    conn.execute("DELETE FROM memories WHERE id = ANY(%s)", (list(ids),))


def chunk_images(conn: Conn, memory_id: UUID) -> list[Image]:
    with conn.cursor(row_factory=scalar_row) as cur:
        return cur.execute(
            "SELECT to_jsonb(c) - 'tsv' FROM chunks c WHERE c.memory_id = %s ORDER BY c.position", (memory_id,)
        ).fetchall()


def delete_chunks(conn: Conn, memory_id: UUID) -> None:
    conn.execute("DELETE FROM chunks WHERE memory_id = %s", (memory_id,))


def table_columns(conn: Conn, table: str) -> list[str]:
    """The columns of a table that a row image can write back (generated ones left out)."""
    with conn.cursor(row_factory=scalar_row) as cur:
        return cur.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
            " AND table_name = %s AND is_generated = 'NEVER' ORDER BY ordinal_position",
            (table,),
        ).fetchall()


def restore_memory_images(conn: Conn, images: Sequence[Image], columns: Sequence[str]) -> None:
    """Write each row back exactly as its image holds it (of `columns`, table_columns of memories:
    those the image has; others untouched)."""
    for image in images:
        cols = [c for c in columns if c in image and c not in _NOT_RESTORED]
        try:
            conn.execute(
                sql.SQL(
                    "UPDATE memories m SET ({cols}) = (SELECT {src} FROM jsonb_populate_record(NULL::memories, %s)"
                    " r) WHERE m.id = %s"
                ).format(
                    cols=sql.SQL(", ").join(map(sql.Identifier, cols)),
                    src=sql.SQL(", ").join(sql.Identifier("r", c) for c in cols),
                ),
                (Jsonb(image), image["id"]),
            )
        except (psycopg.errors.UniqueViolation, psycopg.errors.ExclusionViolation) as exc:
            if exc.diag.constraint_name != "memories_dedupe":  # links_no_overlap / links_one_open
                raise Conflict(
                    f"memory {image['id']} cannot come back from the trash: a link its deletion ended would"
                    " overlap a link between the same memories with the same relation written since"
                    f" ({exc.diag.message_primary}); end that link, then undo again",
                    {"changed_memories": [str(image["id"])]},
                ) from exc
            raise Conflict(
                f"memory {image['id']} cannot come back from the trash: an active memory with the same"
                " content was written since (delete it, then undo again)",
                {"changed_memories": [str(image["id"])]},
            ) from exc
        # Chunks copy these fields from their memory: they follow it back.
        conn.execute(
            "UPDATE chunks c SET active = (m.status = 'active'), tags = m.tags, kind = m.kind,"
            " source = m.source FROM memories m WHERE c.memory_id = m.id AND m.id = %s",
            (image["id"],),
        )


def restore_chunk_images(conn: Conn, memory_id: UUID, images: Sequence[Image], columns: Sequence[str]) -> None:
    """The chunks of a memory as they were (vectors included: nothing to re-embed); `columns`:
    table_columns of chunks."""
    delete_chunks(conn, memory_id)
    if not images:
        return
    cols = [c for c in columns if c in images[0] and c != "tsv"]
    conn.execute(
        sql.SQL("INSERT INTO chunks ({cols}) SELECT {cols} FROM jsonb_populate_recordset(NULL::chunks, %s)").format(
            cols=sql.SQL(", ").join(map(sql.Identifier, cols))
        ),
        (Jsonb(list(images)),),
    )


# --- neighbours ---------------------------------------------------------------------------------


def scan_candidates(conn: Conn, namespace: str, after: UUID | None, since: datetime | None, limit: int) -> list[UUID]:
    """Live memories to look for neighbours of, in id order: all of them on a namespace's first run,
    afterwards those written, changed or embedded since the previous applied run started (pairs of
    two older memories were looked at then)."""
    with conn.cursor(row_factory=scalar_row) as cur:
        return cur.execute(
            "SELECT m.id FROM memories m WHERE m.namespace = %s AND m.status = 'active'"
            " AND (m.valid_to IS NULL OR m.valid_to > now()) AND (%s::uuid IS NULL OR m.id > %s::uuid)"
            " AND (%s::timestamptz IS NULL OR m.updated_at >= %s OR EXISTS (SELECT 1 FROM chunks c"
            " WHERE c.memory_id = m.id AND c.embedded_at >= %s)) ORDER BY m.id LIMIT %s",
            (namespace, after, after, since, since, since, limit),
        ).fetchall()


def live_contents(conn: Conn, namespace: str) -> Iterator[str]:
    """The text of every live memory of a namespace, streamed (a server-side cursor: a large
    namespace is never held in memory at once)."""
    with conn.cursor(name="consolidation_live_contents", row_factory=scalar_row) as cur:
        cur.itersize = 2000
        query = sql.SQL("SELECT m.content FROM memories m WHERE m.namespace = %s AND {}").format(LIVE)
        cur.execute(query, (namespace,))
        yield from cur


def neighbours(
    conn: Conn,
    namespace: str,
    ids: Sequence[UUID],
    model_id: str,
    dimension: int,
    k: int,
    min_cosine: float,
) -> list[NeighbourPair]:
    """For each memory in `ids`, its k nearest live memories of the namespace (first chunks, the
    active embedding space) with cosine >= min_cosine: one query for the batch."""
    if not ids:
        return []
    d = sql.Literal(int(dimension))
    conn.execute(
        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', %s, true)",
        (str(max(40, 8 * k)),),
    )
    query = sql.SQL(
        "SELECT q.memory_id AS a, n.memory_id AS b, n.cosine FROM chunks q CROSS JOIN LATERAL ("
        "  SELECT c.memory_id, 1 - (c.embedding::halfvec({d}) <=> q.embedding::halfvec({d})) AS cosine"
        "  FROM chunks c WHERE c.embedding_dim = {d} AND c.model_id = %(model)s AND c.namespace = %(ns)s"
        "  AND c.active AND c.memory_id IS NOT NULL AND c.position = 0 AND c.memory_id <> q.memory_id"
        "  ORDER BY c.embedding::halfvec({d}) <=> q.embedding::halfvec({d}) LIMIT %(k)s) n"
        " JOIN memories m ON m.id = n.memory_id"
        " WHERE q.memory_id = ANY(%(ids)s) AND q.position = 0 AND q.embedding_dim = {d} AND q.model_id = %(model)s"
        " AND n.cosine >= %(min)s AND m.status = 'active' AND (m.valid_to IS NULL OR m.valid_to > now())"
        " ORDER BY q.memory_id, n.cosine DESC"
    ).format(d=d)
    # Never prepared: after a few executions on one connection PostgreSQL may switch to a generic plan,
    # which cannot see LIMIT k, guesses 10,000 neighbours per memory and hash-joins them against every
    # memory of the table (a 500-memory batch took over 80 s at 100k memories instead of about 1 s).
    params = {"model": model_id, "ns": namespace, "k": k, "ids": list(ids), "min": min_cosine}
    with conn.cursor(row_factory=class_row(NeighbourPair)) as cur:
        return cur.execute(query, params, prepare=False).fetchall()


def space_thresholds(conn: Conn) -> ActiveSpace | None:
    with conn.cursor(row_factory=class_row(ActiveSpace)) as cur:
        return cur.execute(
            sql.SQL("SELECT {} FROM embedding_spaces WHERE active").format(select_list(ActiveSpace))
        ).fetchone()
