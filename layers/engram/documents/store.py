"""The SQL of documents: the memory row (+ the documents row for Tier 2) and its chunks, in the caller's
transaction."""

from __future__ import annotations

import json
import uuid
from typing import Any
from uuid import UUID

import psycopg

from engram.documents.models import DocumentInfo, DocumentWritten
from engram.documents.prepare import Prepared
from engram.indexing.chunking import TextChunk, chunk
from engram.memories.service import read_memory


def insert_chunks(conn: psycopg.Connection, tenant_id: UUID, memory: dict[str, Any],
                   pieces: list[TextChunk]) -> list[UUID]:
    """All chunks in one statement (unnest of arrays): thousands of rows in one round trip.

    COPY would be faster still but COPY FROM is refused on tables with row-level security.
    """
    ids = [uuid.uuid4() for _ in pieces]
    conn.execute(
        "INSERT INTO chunks (id, tenant_id, memory_id, namespace, kind, tags, source, occurred_at, position,"
        " char_start, text) SELECT u.id, %s, %s, %s, %s, %s, %s, %s, u.position, u.char_start, u.text"
        " FROM unnest(%s::uuid[], %s::int[], %s::int[], %s::text[]) AS u(id, position, char_start, text)",
        (tenant_id, memory["id"], memory["namespace"], memory["kind"], memory["tags"], memory["source"],
         memory["created_at"], ids, [p.position for p in pieces], [p.char_start for p in pieces],
         [p.text for p in pieces]),
    )
    return ids


def insert_document(conn: psycopg.Connection, tenant_id: UUID, doc: Prepared) -> tuple[DocumentWritten, list[UUID]]:
    """Write the memory (+ documents row for Tier 2) and its chunks in the caller's transaction."""
    o = doc.options
    row = conn.execute(
        "INSERT INTO memories (tenant_id, namespace, kind, content, content_hash, importance, tags, source,"
        " metadata, document_tier) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (tenant_id, namespace, content_hash) WHERE status = 'active'"
        " DO UPDATE SET repetition_count = memories.repetition_count + 1, updated_at = now()"
        " RETURNING id, namespace, kind, tags, source, created_at, (xmax = 0) AS inserted",
        (tenant_id, o.namespace, o.kind, doc.memory_content, doc.sha256, o.importance, o.tags, o.source,
         json.dumps(o.metadata), doc.tier),
    ).fetchone()
    assert row is not None
    chunk_ids: list[UUID] = []
    chunk_count = 0
    if row["inserted"]:
        if doc.tier == 2:
            conn.execute(
                "INSERT INTO documents (tenant_id, memory_id, body, byte_size, sha256, content_type)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                (tenant_id, row["id"], doc.body, doc.size, doc.sha256, doc.content_type))
        pieces = chunk(doc.chunk_source, doc.chunking)
        chunk_ids = insert_chunks(conn, tenant_id, row, pieces)
        chunk_count = len(pieces)
    else:
        found = conn.execute("SELECT count(*) AS n FROM chunks WHERE memory_id = %s", (row["id"],)).fetchone()
        chunk_count = found["n"] if found else 0
    memory = read_memory(conn, row["id"])
    info = DocumentInfo(tier=memory.document_tier if memory.document_tier is not None else doc.tier,
                        bytes=doc.size, sha256=doc.sha256.hex(), content_type=doc.content_type,
                        chunks=chunk_count, chunking=doc.chunking,  # type: ignore[arg-type]
                        synopsis=doc.tier > 0)
    return DocumentWritten(memory=memory, document=info, deduplicated=not row["inserted"]), chunk_ids
