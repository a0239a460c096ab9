"""The SQL of documents: the memory row (+ the documents row for Tier 2) and its chunks, in the caller's
transaction."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import psycopg

from engram.core.models import NewMemory
from engram.documents.models import DocumentInfo, DocumentWritten
from engram.documents.prepare import Prepared
from engram.memories.service import read_memory, write_memory


def insert_document(
    conn: psycopg.Connection[Any], tenant_id: UUID, doc: Prepared
) -> tuple[DocumentWritten, list[UUID]]:
    """Write the memory (+ documents row for Tier 2) and its chunks in the caller's transaction."""
    o = doc.options
    written = write_memory(
        conn,
        tenant_id,
        NewMemory(
            namespace=o.namespace,
            content=doc.memory_content,
            kind=o.kind,
            importance=o.importance,
            tags=o.tags,
            source=o.source,
            metadata=o.metadata,
            document_tier=doc.tier,
            content_hash=doc.sha256,
            chunk_source=doc.chunk_source,
            chunking=doc.chunking,
        ),
    )
    if written.inserted:
        chunk_count = len(written.chunk_ids)
        if doc.tier == 2:
            conn.execute(
                "INSERT INTO documents (tenant_id, memory_id, body, byte_size, sha256, content_type)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                (tenant_id, written.id, doc.body, doc.size, doc.sha256, doc.content_type),
            )
    else:
        found = conn.execute("SELECT count(*) AS n FROM chunks WHERE memory_id = %s", (written.id,)).fetchone()
        chunk_count = found["n"] if found else 0
    memory = read_memory(conn, written.id)
    info = DocumentInfo(
        tier=memory.document_tier if memory.document_tier is not None else doc.tier,
        bytes=doc.size,
        sha256=doc.sha256.hex(),
        content_type=doc.content_type,
        chunks=chunk_count,
        chunking=doc.chunking,
        synopsis=doc.tier > 0,
    )
    return DocumentWritten(memory=memory, document=info, deduplicated=not written.inserted), written.chunk_ids
