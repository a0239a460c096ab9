"""The SQL of memories: functions that take the caller's connection (a tenant transaction)."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import DictRow

from engram.core.errors import NotFound
from engram.core.models import PG_INTEGER_MAX, Memory, NewMemory
from engram.core.text import content_hash
from engram.indexing.chunking import chunk
from engram.indexing.chunks import ChunkOwner, NewChunk, insert_chunks

MEMORY_COLUMNS = sql.SQL(
    "m.id, m.namespace, m.kind, m.layer, m.content, m.importance, m.tags, m.source, m.metadata,"
    " m.access_count, m.repetition_count, m.last_accessed, m.created_at, m.updated_at, m.valid_from,"
    " m.valid_to, m.status, m.deleted_at, m.document_tier, m.version,"
    " CASE WHEN EXISTS (SELECT 1 FROM chunks c WHERE c.memory_id = m.id AND c.embedding IS NULL)"
    " THEN 'pending' ELSE 'ready' END AS embedding_status"
)


def read_memory(conn: psycopg.Connection[DictRow], memory_id: UUID, *, deleted: bool | None = False) -> Memory:
    """One memory inside the caller's tenant transaction: active (default), trashed, or either (None)."""
    status = {False: sql.SQL("AND m.status = 'active'"), True: sql.SQL("AND m.status = 'deleted'"), None: sql.SQL("")}
    query = sql.SQL("SELECT {} FROM memories m WHERE m.id = %s {}").format(MEMORY_COLUMNS, status[deleted])
    row = conn.execute(query, (memory_id,)).fetchone()
    if row is None:
        raise NotFound(f"memory {memory_id} not found")
    return Memory.model_validate(row)


def upsert_memory(conn: psycopg.Connection[Any], tenant_id: UUID, new: NewMemory) -> dict[str, Any]:
    """Insert, or bump the active duplicate's repetition_count; the row says which (`inserted`)."""
    # ON CONFLICT on the partial unique index makes concurrent identical writes converge on one row.
    row = conn.execute(
        "INSERT INTO memories (tenant_id, namespace, kind, layer, content, content_hash, importance, tags, source,"
        " metadata, valid_from, valid_to, document_tier, id, created_at, updated_at, last_accessed, access_count,"
        " repetition_count, status, deleted_at, version) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
        " COALESCE(%s, gen_random_uuid()), COALESCE(%s, now()), COALESCE(%s, now()), %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (tenant_id, namespace, content_hash) WHERE status = 'active'"
        " DO UPDATE SET repetition_count = LEAST(memories.repetition_count::bigint + 1, %s), updated_at = now()"
        " RETURNING id, namespace, kind, tags, source, created_at, (xmax = 0) AS inserted",
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
            PG_INTEGER_MAX,
        ),
    ).fetchone()
    assert row is not None
    return row


def memory_chunks(memory: dict[str, Any], text: str, mode: str = "document") -> list[NewChunk]:
    """The chunks of `text` for the memory `memory` (a row from upsert_memory or an UPDATE)."""
    return [NewChunk(p.position, p.char_start, p.text, memory["created_at"]) for p in chunk(text, mode)]


def given_chunks(memory: dict[str, Any], chunks: list[tuple[int, int, str]]) -> list[NewChunk]:
    """Chunks restored as they were stored: (position, char_start, text) for the memory `memory`."""
    return [NewChunk(position, char_start, text, memory["created_at"]) for position, char_start, text in chunks]


def deactivate_chunks(conn: psycopg.Connection[Any], memory_ids: list[UUID]) -> None:
    """Chunks of trashed memories stay out of recall until the memory is restored."""
    if memory_ids:
        conn.execute("UPDATE chunks SET active = false WHERE memory_id = ANY(%s)", (memory_ids,))


def replace_chunks(
    conn: psycopg.Connection[Any], tenant_id: UUID, memory: dict[str, Any], text: str, mode: str = "document"
) -> list[UUID]:
    """The memory's chunks become those of `text` (new ones, vectors pending)."""
    conn.execute("DELETE FROM chunks WHERE memory_id = %s", (memory["id"],))
    return insert_chunks(conn, tenant_id, ChunkOwner.of_memory(memory), memory_chunks(memory, text, mode))
