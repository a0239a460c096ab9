"""The SQL of memories: functions that take the caller's connection (a tenant transaction)."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import psycopg

from engram.core.errors import NotFound
from engram.core.models import Memory
from engram.core.text import content_hash
from engram.indexing.chunking import chunk_text
from engram.memories.models import MemoryCreate

MEMORY_COLUMNS = (
    "m.id, m.namespace, m.kind, m.layer, m.content, m.importance, m.tags, m.source, m.metadata,"
    " m.access_count, m.repetition_count, m.last_accessed, m.created_at, m.updated_at, m.valid_from,"
    " m.valid_to, m.status, m.deleted_at, m.document_tier, m.version,"
    " CASE WHEN EXISTS (SELECT 1 FROM chunks c WHERE c.memory_id = m.id AND c.embedding IS NULL)"
    " THEN 'pending' ELSE 'ready' END AS embedding_status"
)


def insert_chunks(conn: psycopg.Connection, tenant_id: UUID, memory: dict[str, Any],
                   text: str) -> list[UUID]:
    pieces = chunk_text(text)
    with conn.cursor() as cur:
        rows = []
        for piece in pieces:
            cur.execute(
                "INSERT INTO chunks (tenant_id, memory_id, namespace, kind, tags, source, occurred_at,"
                " position, char_start, text) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
                (tenant_id, memory["id"], memory["namespace"], memory["kind"], memory["tags"],
                 memory["source"], memory["created_at"], piece.position, piece.char_start, piece.text),
            )
            row = cur.fetchone()
            assert row is not None
            rows.append(row["id"])
    return rows


def read_memory(conn: psycopg.Connection, memory_id: UUID, *, deleted: bool | None = False) -> Memory:
    """One memory inside the caller's tenant transaction: active (default), trashed, or either (None)."""
    status_clause = {False: "AND m.status = 'active'", True: "AND m.status = 'deleted'", None: ""}[deleted]
    row = conn.execute(f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = %s {status_clause}",
                       (memory_id,)).fetchone()
    if row is None:
        raise NotFound(f"memory {memory_id} not found")
    return Memory.model_validate(row)


def upsert_memory(conn: psycopg.Connection, tenant_id: UUID, req: MemoryCreate) -> dict[str, Any]:
    """Insert, or bump the active duplicate's repetition_count; the row says which (`inserted`)."""
    # ON CONFLICT on the partial unique index makes concurrent identical writes converge on one row.
    row = conn.execute(
        "INSERT INTO memories (tenant_id, namespace, kind, content, content_hash, importance, tags, source,"
        " metadata, valid_from, valid_to) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (tenant_id, namespace, content_hash) WHERE status = 'active'"
        " DO UPDATE SET repetition_count = memories.repetition_count + 1, updated_at = now()"
        " RETURNING id, namespace, kind, tags, source, created_at, (xmax = 0) AS inserted",
        (tenant_id, req.namespace, req.kind, req.content, content_hash(req.content), req.importance,
         req.tags, req.source, json.dumps(req.metadata), req.valid_from, req.valid_to),
    ).fetchone()
    assert row is not None
    return row
