"""Documents: classify by size once into tiers, store, chunk, enqueue embeddings.

| tier | UTF-8 size (defaults)  | memories.content | chunks from | documents row |
|------|------------------------|------------------|-------------|---------------|
| 0    | <= 500 KiB             | the body         | the body    | no            |
| 1    | <= 8 MiB               | synopsis         | the body    | no (the body is not kept) |
| 2    | <= 50 MiB              | synopsis         | synopsis    | yes: body     |
| -    | > 50 MiB (hard, fixed) | 413, nothing is written                         |

A document is a memory (document_tier set), so recall, trash, restore and tenancy work as for any
memory. Dedupe is by the SHA-256 of the body per namespace, like memories.
"""

from __future__ import annotations

from uuid import UUID

from engram.adapters.queue import enqueue_embedding
from engram.core.db import Conn, tenant_transaction
from engram.core.errors import TooLarge
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.core.models import NewMemory
from engram.documents import store
from engram.documents.models import HARD_MAX_BYTES, DocumentCreate, DocumentInfo, DocumentOptions, DocumentWritten
from engram.documents.prepare import HARD_LIMIT_ALTERNATIVE, UPLOADS_ALTERNATIVE, Prepared, prepare
from engram.documents.settings import document_settings
from engram.memories.service import read_memory, write_memory


def create_document(tenant_id: UUID, req: DocumentCreate, idempotency: IdempotencyKey | None = None) -> DocumentWritten:
    """Inline ingest (POST /v1/documents): up to document_inline_max_bytes, else 413 -> uploads."""
    size = len(req.content.encode())
    limit = document_settings().document_inline_max_bytes
    if size > HARD_MAX_BYTES:
        raise TooLarge("content", size, HARD_MAX_BYTES, HARD_LIMIT_ALTERNATIVE)
    if size > limit:
        raise TooLarge(
            "content",
            size,
            limit,
            "A synchronous Lambda request carries 6 MB, so inline documents stop at "
            f"{limit} bytes. {UPLOADS_ALTERNATIVE}",
        )
    options = DocumentOptions.model_validate(req.model_dump(exclude={"content", "content_type"}))
    doc = prepare(req.content, req.content_type, options, size=size)
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, DocumentWritten)) is not None:
            return first
        written, chunk_ids = write_document(conn, tenant_id, doc)
        remember(conn, idempotency, written)
    enqueue_embedding(tenant_id, chunk_ids)
    return written


def write_document(conn: Conn, tenant_id: UUID, doc: Prepared) -> tuple[DocumentWritten, list[UUID]]:
    """Write the memory (+ documents row for Tier 2) and its chunks in the caller's transaction: the
    inline ingest's and an upload's; the chunk ids to embed after commit come back with it."""
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
            write_body(
                conn,
                tenant_id,
                written.id,
                doc.body,
                byte_size=doc.size,
                sha256=doc.sha256,
                content_type=doc.content_type,
            )
    else:
        chunk_count = store.count_chunks(conn, written.id)
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


def write_body(
    conn: Conn,
    tenant_id: UUID,
    memory_id: UUID,
    body: str,
    *,
    byte_size: int,
    sha256: bytes,
    content_type: str,
) -> None:
    """A Tier 2 body and its pages for a memory written in the caller's transaction: a new document's,
    or an import's, which restores the memory and its chunks as exported and then the body."""
    store.insert_body(conn, tenant_id, memory_id, body, byte_size=byte_size, sha256=sha256, content_type=content_type)
