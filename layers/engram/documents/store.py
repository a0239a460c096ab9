"""The SQL of documents: the memory row (+ the documents row for Tier 2) and its chunks, in the caller's
transaction."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from uuid import UUID

import psycopg

from engram.core.models import NewMemory
from engram.documents.models import DocumentInfo, DocumentWritten
from engram.documents.prepare import Prepared
from engram.memories.service import read_memory, write_memory

# Tier-2 pages (migration 0010): 64 Ki characters each, the next page's first 4 Ki repeated so a
# filter substring (<= 200 characters) crossing a border is whole in one page.
PAGE_CHARS = 65_536
PAGE_OVERLAP = 4_096
_WORD = re.compile(r"\w+")


def page_words(text: str) -> list[str]:
    """A page's distinct words as the span ranker sees them: \\w+ runs of the lowered text."""
    return sorted(set(_WORD.findall(text.lower())))


def insert_pages(conn: psycopg.Connection[Any], tenant_id: UUID, memory_id: UUID, body: str) -> int:
    """The body's pages in one statement. Sliced here: Postgres' substr on a long UTF-8 text walks
    from the first character on every call, which is quadratic over 800 pages."""
    starts = list(range(0, max(1, len(body)), PAGE_CHARS))
    pages = [body[s : s + PAGE_CHARS + PAGE_OVERLAP] for s in starts]
    conn.execute(
        "INSERT INTO document_pages (tenant_id, memory_id, page_no, char_start, text, words)"
        " SELECT %s, %s, p.n - 1, p.start, p.text, array_to_tsvector(string_to_array(p.words, ' '))"
        " FROM unnest(%s::bigint[], %s::text[], %s::text[]) WITH ORDINALITY AS p(start, text, words, n)",
        (tenant_id, memory_id, starts, pages, [" ".join(page_words(p)) for p in pages]),
    )
    return len(starts)


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
            insert_pages(conn, tenant_id, written.id, doc.body)
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


# ---- uploads ------------------------------------------------------------------------------------


def expire_upload(conn: psycopg.Connection[Any], upload_id: UUID, reason: str) -> bool:
    """A pending upload -> failed with `reason`. Skips (False) an upload an ingest holds: it settles it."""
    return (
        conn.execute(
            "UPDATE document_uploads SET status = 'failed', reason = %s, updated_at = now() WHERE id ="
            " (SELECT id FROM document_uploads WHERE id = %s AND status = 'pending' FOR UPDATE SKIP LOCKED)"
            " RETURNING id",
            (reason, upload_id),
        ).fetchone()
        is not None
    )


def claim_resend(conn: psycopg.Connection[Any], upload_id: UUID, every: timedelta) -> bool:
    """True for the one caller that may send a pending upload's notification again now: none was sent
    in the last `every` (updated_at records the last), and no ingest holds the upload."""
    return (
        conn.execute(
            "UPDATE document_uploads SET updated_at = now() WHERE id ="
            " (SELECT id FROM document_uploads WHERE id = %s AND status = 'pending' AND updated_at < now() - %s"
            " FOR UPDATE SKIP LOCKED) RETURNING id",
            (upload_id, every),
        ).fetchone()
        is not None
    )
