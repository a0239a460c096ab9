"""The SQL of memories: functions that take the caller's connection (a tenant transaction)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, LiteralString, Protocol
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import class_row, scalar_row

from engram.core.db import Conn
from engram.core.errors import Conflict, NotFound
from engram.core.models import PG_INTEGER_MAX, EvidenceTurn, Memory, NewMemory
from engram.core.pagination import newest_first
from engram.core.select_lists import select_list
from engram.core.text import content_hash
from engram.indexing.chunking import chunk
from engram.indexing.chunks import ChunkOwner, NewChunk, insert_chunks


class Headed(Protocol):
    """Any row of a memory with what its chunks copy from it."""

    @property
    def id(self) -> UUID: ...
    @property
    def namespace(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def tags(self) -> list[str]: ...
    @property
    def source(self) -> str | None: ...
    @property
    def created_at(self) -> datetime: ...


@dataclass(frozen=True)
class MemoryHead:
    """What a memory's chunks copy from it (and date themselves by)."""

    id: UUID
    namespace: str
    kind: str
    tags: list[str]
    source: str | None
    created_at: datetime

    @classmethod
    def of(cls, memory: Headed) -> MemoryHead:
        """From another capability's row of a memory (consolidation's merged survivor)."""
        return cls(memory.id, memory.namespace, memory.kind, memory.tags, memory.source, memory.created_at)

    def chunk_owner(self) -> ChunkOwner:
        return ChunkOwner(
            namespace=self.namespace, kind=self.kind, tags=self.tags, source=self.source, memory_id=self.id
        )


@dataclass(frozen=True)
class UpsertedMemory(MemoryHead):
    inserted: bool  # False: an active duplicate was bumped instead


MEMORY_COLUMNS = select_list(
    Memory,
    "m",
    expressions={
        "embedding_status": sql.SQL(
            "CASE WHEN EXISTS (SELECT 1 FROM chunks c WHERE c.memory_id = m.id AND c.embedding IS NULL)"
            " THEN 'pending' ELSE 'ready' END"
        )
    },
)
_HEAD_COLUMNS = select_list(MemoryHead)


def read_memory(conn: Conn, memory_id: UUID, *, deleted: bool | None = False) -> Memory:
    """One memory inside the caller's tenant transaction: active (default), trashed, or either (None)."""
    status = {False: sql.SQL("AND m.status = 'active'"), True: sql.SQL("AND m.status = 'deleted'"), None: sql.SQL("")}
    query = sql.SQL("SELECT {} FROM memories m WHERE m.id = %s {}").format(MEMORY_COLUMNS, status[deleted])
    found = conn.cursor(row_factory=class_row(Memory)).execute(query, (memory_id,)).fetchone()
    if found is None:
        raise NotFound(f"memory {memory_id} not found")
    return found


def upsert_memory(conn: Conn, tenant_id: UUID, new: NewMemory) -> UpsertedMemory:
    """Insert, or bump the active duplicate's repetition_count; the row says which (`inserted`)."""
    # ON CONFLICT on the partial unique index makes concurrent identical writes converge on one row.
    with conn.cursor(row_factory=class_row(UpsertedMemory)) as cur:
        query = sql.SQL(
            "INSERT INTO memories (tenant_id, namespace, kind, layer, content, content_hash, importance, tags, source,"
            " metadata, valid_from, valid_to, document_tier, id, created_at, updated_at, last_accessed, access_count,"
            " repetition_count, status, deleted_at, version, critical, conflict_key)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, COALESCE(%s, gen_random_uuid()),"
            " COALESCE(%s, now()), COALESCE(%s, now()), %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (tenant_id, namespace, content_hash) WHERE status = 'active'"
            " DO UPDATE SET repetition_count = LEAST(memories.repetition_count::bigint + 1, %s), updated_at = now(),"
            # Restating a fact as critical, or under a key, marks the one stored (never unmarks it).
            " critical = memories.critical OR EXCLUDED.critical,"
            " conflict_key = COALESCE(memories.conflict_key, EXCLUDED.conflict_key)"
            " RETURNING {}"
        ).format(select_list(UpsertedMemory, expressions={"inserted": sql.SQL("(xmax = 0)")}))
        row = cur.execute(
            query,
            (
                tenant_id,
                new.namespace,
                new.kind,
                new.layer,
                new.content,
                new.content_hash or content_hash(new.content),
                new.importance,
                new.tags,
                new.source,
                json.dumps(new.metadata),
                new.valid_from,
                new.valid_to,
                new.document_tier,
                new.id,
                new.created_at,
                new.updated_at,
                new.last_accessed,
                new.access_count,
                new.repetition_count,
                new.status,
                new.deleted_at,
                new.version,
                new.critical,
                new.conflict_key,
                PG_INTEGER_MAX,
            ),
        ).fetchone()
    assert row is not None
    return row


def memory_chunks(memory: MemoryHead, text: str, mode: str = "document") -> list[NewChunk]:
    """The chunks of `text` for the memory `memory`."""
    return [NewChunk(p.position, p.char_start, p.text, memory.created_at) for p in chunk(text, mode)]


def given_chunks(memory: MemoryHead, chunks: list[tuple[int, int, str]]) -> list[NewChunk]:
    """Chunks restored as they were stored: (position, char_start, text) for the memory `memory`."""
    return [NewChunk(position, char_start, text, memory.created_at) for position, char_start, text in chunks]


def deactivate_chunks(conn: Conn, memory_ids: list[UUID]) -> None:
    """Chunks of trashed memories stay out of recall until the memory is restored."""
    if memory_ids:
        conn.execute("UPDATE chunks SET active = false WHERE memory_id = ANY(%s)", (memory_ids,))


def replace_chunks(conn: Conn, tenant_id: UUID, memory: MemoryHead, text: str, mode: str = "document") -> list[UUID]:
    """The memory's chunks become those of `text` (new ones, vectors pending)."""
    conn.execute("DELETE FROM chunks WHERE memory_id = %s", (memory.id,))
    return insert_chunks(conn, tenant_id, memory.chunk_owner(), memory_chunks(memory, text, mode))


def update_memory(conn: Conn, memory_id: UUID, changes: Mapping[str, Any]) -> MemoryHead | None:
    """A PATCH's fields on the active memory, its version moved on; None when it is not active (any more)."""
    # Field names come from MemoryPatch; quoted as identifiers all the same.
    sets: list[sql.Composable] = [sql.SQL("updated_at = now()"), sql.SQL("version = version + 1")]
    params: list[Any] = []
    for field, value in changes.items():
        sets.append(sql.SQL("{} = %s").format(sql.Identifier(field)))
        params.append(json.dumps(value) if field == "metadata" else value)
    if "content" in changes:
        sets.append(sql.SQL("content_hash = %s"))
        params.append(content_hash(changes["content"]))
    query = sql.SQL("UPDATE memories SET {} WHERE id = %s AND status = 'active' RETURNING {}").format(
        sql.SQL(", ").join(sets), _HEAD_COLUMNS
    )
    try:
        with conn.cursor(row_factory=class_row(MemoryHead)) as cur:
            return cur.execute(query, [*params, memory_id]).fetchone()
    except psycopg.errors.UniqueViolation as exc:
        raise Conflict("another active memory in this namespace has exactly this content") from exc


def relabel_chunks(conn: Conn, memory: MemoryHead) -> None:
    """The memory's chunks carry its kind, tags and source again (recall filters on them without a join)."""
    conn.execute(
        "UPDATE chunks SET kind = %s, tags = %s, source = %s WHERE memory_id = %s",
        (memory.kind, memory.tags, memory.source, memory.id),
    )


def trash_memory(conn: Conn, memory_id: UUID) -> bool:
    """The active memory goes to the trash, its chunks out of recall; False when it is not active."""
    row = conn.execute(
        "UPDATE memories SET status = 'deleted', deleted_at = now(), updated_at = now()"
        " WHERE id = %s AND status = 'active' RETURNING id",
        (memory_id,),
    ).fetchone()
    if row is None:
        return False
    conn.execute("UPDATE chunks SET active = false WHERE memory_id = %s", (memory_id,))
    return True


def untrash_memory(conn: Conn, memory_id: UUID) -> bool:
    """The trashed memory is active again, its chunks back in recall; False when it is not in the trash."""
    try:
        row = conn.execute(
            "UPDATE memories SET status = 'active', deleted_at = NULL, updated_at = now()"
            " WHERE id = %s AND status = 'deleted' RETURNING id",
            (memory_id,),
        ).fetchone()
    except (psycopg.errors.UniqueViolation, psycopg.errors.ExclusionViolation) as exc:
        if exc.diag.constraint_name == "memories_dedupe":
            raise Conflict("an active memory with the same content exists in this namespace") from exc
        # links_no_overlap / links_one_open: a link the deletion ended cannot hold again
        raise Conflict(
            f"memory {memory_id} cannot come back from the trash: a link its deletion ended would overlap"
            f" a link between the same memories with the same relation written since ({exc.diag.message_primary});"
            " end that link, then restore",
            {"memory_id": str(memory_id), "constraint": exc.diag.constraint_name},
        ) from exc
    if row is None:
        return False
    conn.execute("UPDATE chunks SET active = true WHERE memory_id = %s", (memory_id,))
    return True


def memory_page(
    conn: Conn, *, filters: list[tuple[LiteralString, Any]], cursor: str | None, limit: int
) -> tuple[list[Memory], str | None]:
    """One page of memories, newest first (`filters` as engram.core.pagination.newest_first takes them, on `m`)."""
    return newest_first(
        conn,
        Memory,
        select=sql.SQL("SELECT {} FROM memories m").format(MEMORY_COLUMNS),
        alias="m",
        cursor=cursor,
        limit=limit,
        filters=filters,
    )


class _Evidence(EvidenceTurn):
    """A turn and the derived memory it is evidence of."""

    memory_id: UUID


# A probe of messages' key for each evidence row (OFFSET 0 keeps it from being folded into a join the
# planner may hash over the tenant's every message when its statistics are behind), as recall reads its
# windows' messages (engram.conversations.store), and never prepared for the same reason.
EVIDENCE_TURNS = sql.SQL(
    "SELECT {} FROM memory_evidence e"
    " CROSS JOIN LATERAL (SELECT * FROM messages m WHERE m.id = e.message_id OFFSET 0) m"
    " WHERE e.memory_id = ANY(%s) ORDER BY e.memory_id, m.conversation_id, m.seq"
).format(select_list(_Evidence, "m", expressions={"memory_id": sql.SQL("e.memory_id"), "message_id": sql.SQL("m.id")}))


def evidence_turns(conn: Conn, memory_ids: Sequence[UUID]) -> dict[UUID, list[EvidenceTurn]]:
    """The turns each derived memory came from, in conversation order (none: no entry)."""
    found: dict[UUID, list[EvidenceTurn]] = {}
    if not memory_ids:
        return found
    cur = conn.cursor(row_factory=class_row(_Evidence))
    for turn in cur.execute(EVIDENCE_TURNS, (list(memory_ids),), prepare=False):
        found.setdefault(turn.memory_id, []).append(EvidenceTurn.model_validate(turn.model_dump(exclude={"memory_id"})))
    return found


def insert_evidence(
    conn: Conn,
    tenant_id: UUID,
    memory_id: UUID,
    conversation_id: UUID,
    message_ids: Sequence[UUID],
    run_id: UUID | None,
) -> None:
    conn.execute(
        "INSERT INTO memory_evidence (tenant_id, memory_id, conversation_id, message_id, run_id)"
        " SELECT %s, %s, %s, unnest(%s::uuid[]), %s ON CONFLICT DO NOTHING",
        (tenant_id, memory_id, conversation_id, list(message_ids), run_id),
    )


def add_repetitions(conn: Conn, memory_id: UUID, delta: int) -> bool:
    """A restatement: the memory was said again (or, undone, one saying fewer); False when not active."""
    row = conn.execute(
        "UPDATE memories SET repetition_count = GREATEST(repetition_count + %s, 0), last_accessed = now()"
        " WHERE id = %s AND status = 'active' RETURNING id",
        (delta, memory_id),
    ).fetchone()
    return row is not None


def lock_conflict_key(conn: Conn, namespace: str, key: str) -> None:
    """Writers of one key of a namespace take turns until commit: two concurrent writes of "user.city"
    cannot both find the same current memory and both replace it."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"conflict_key:{namespace}:{key}",))


def current_keyed_memories(conn: Conn, namespace: str, key: str, other_than: Sequence[UUID]) -> list[UUID]:
    """The namespace's memories that hold this key now (active, valid now), except `other_than`, oldest first."""
    return (
        conn.cursor(row_factory=scalar_row)
        .execute(
            "SELECT id FROM memories WHERE namespace = %s AND conflict_key = %s AND status = 'active'"
            " AND id <> ALL(%s) AND (valid_to IS NULL OR valid_to > now()) ORDER BY created_at, id",
            (namespace, key, list(other_than)),
        )
        .fetchall()
    )


def valid_now(conn: Conn, memory_id: UUID) -> bool:
    """The memory's validity has not ended (a restated fact may have been superseded earlier)."""
    cur = conn.cursor(row_factory=scalar_row)
    return bool(
        cur.execute("SELECT valid_to IS NULL OR valid_to > now() FROM memories WHERE id = %s", (memory_id,)).fetchone()
    )
