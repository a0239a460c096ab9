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
from engram.core.config import settings
from engram.core.db import tenant_transaction
from engram.core.errors import TooLarge
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.documents.models import DocumentCreate, DocumentOptions, DocumentWritten
from engram.documents.prepare import HARD_LIMIT_ALTERNATIVE, HARD_MAX_BYTES, UPLOADS_ALTERNATIVE, prepare
from engram.documents.store import insert_body, insert_document

# Besides the inline ingest, what other capabilities use: an import restores a document's memory and
# chunks as exported, then its Tier 2 body with insert_body; its records check HARD_MAX_BYTES.
__all__ = ["HARD_MAX_BYTES", "create_document", "insert_body"]


def create_document(tenant_id: UUID, req: DocumentCreate, idempotency: IdempotencyKey | None = None) -> DocumentWritten:
    """Inline ingest (POST /v1/documents): up to document_inline_max_bytes, else 413 -> uploads."""
    size = len(req.content.encode())
    limit = settings().document_inline_max_bytes
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
        written, chunk_ids = insert_document(conn, tenant_id, doc)
        remember(conn, idempotency, written)
    enqueue_embedding(tenant_id, chunk_ids)
    return written
