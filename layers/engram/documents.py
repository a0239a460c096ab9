"""Documents: classify by size once (seed 000 tiers), store, chunk, enqueue embeddings.

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

import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import psycopg

from engram.chunking import TextChunk, chunk
from engram.config import settings
from engram.db import tenant_transaction
from engram.document_models import DocumentCreate, DocumentInfo, DocumentOptions, DocumentWritten
from engram.errors import EngramError, TooLarge
from engram.jobs import enqueue_embedding
from engram.memories import read_memory

HARD_MAX_BYTES = 50 * 1024 * 1024  # seed 000 Tier 3: not configurable
SYNOPSIS_HEAD_BYTES = 8 * 1024
SYNOPSIS_OUTLINE_BYTES = 2 * 1024
OUTLINE_MARKER = "\n\n--- Outline ---\n"
CONTENT_TYPES = {"text/markdown": "text/markdown", "text/x-markdown": "text/markdown",
                 "text/plain": "text/plain"}
UPLOADS_ALTERNATIVE = "Upload it with POST /v1/documents/uploads (presigned S3 PUT, up to 50 MiB)."
HARD_LIMIT_ALTERNATIVE = "Documents are limited to 50 MiB: split or summarise it before storing."

_HEADING = re.compile(r"^#{1,2}[ \t]+\S.*$", re.MULTILINE)


class UnsupportedMediaType(EngramError):
    status = 415
    code = "unsupported_media_type"


def normalise_content_type(value: str) -> str:
    """'text/markdown; charset=utf-8' -> 'text/markdown'; anything but Markdown/plain text is 415."""
    base, _, params = value.partition(";")
    ctype = CONTENT_TYPES.get(base.strip().lower())
    charset = re.search(r"charset\s*=\s*\"?([\w-]+)", params, re.IGNORECASE)
    if ctype is None or (charset and charset.group(1).lower() not in ("utf-8", "utf8", "us-ascii")):
        raise UnsupportedMediaType(
            f"content type {value!r} is not supported: send text/markdown or text/plain in UTF-8",
            {"field": "content_type", "supported": sorted(set(CONTENT_TYPES.values()))})
    return ctype


def classify(size_bytes: int) -> int:
    """The tier for a body of this many UTF-8 bytes; 413 above the hard limit."""
    s = settings()
    if size_bytes > HARD_MAX_BYTES:
        raise TooLarge("content", size_bytes, HARD_MAX_BYTES, HARD_LIMIT_ALTERNATIVE)
    if size_bytes <= s.document_tier0_max_bytes:
        return 0
    if size_bytes <= min(s.document_tier1_max_bytes, HARD_MAX_BYTES):
        return 1
    return 2


def utf8_prefix(text: str, max_bytes: int) -> str:
    """The longest prefix of `text` that is at most `max_bytes` of UTF-8 (never half a character)."""
    raw = text[:max_bytes].encode()  # every character is >= 1 byte: max_bytes characters suffice
    if len(raw) <= max_bytes:
        return text[:max_bytes]
    cut = max_bytes
    while cut > 0 and (raw[cut] & 0xC0) == 0x80:  # the first byte left out continues a character
        cut -= 1
    return raw[:cut].decode("utf-8")


def build_synopsis(body: str) -> str:
    """First 8 KiB verbatim, then `--- Outline ---` with the h1/h2 headings, up to 2 KiB."""
    head = utf8_prefix(body, SYNOPSIS_HEAD_BYTES)
    lines: list[str] = []
    used = 0
    for m in _HEADING.finditer(body):
        line = m.group(0).rstrip()
        size = len(line.encode()) + 1
        if used + size > SYNOPSIS_OUTLINE_BYTES:
            break
        lines.append(line)
        used += size
    return head + (OUTLINE_MARKER + "\n".join(lines) if lines else "")


@dataclass
class Prepared:
    """A validated document, classified once, ready to store."""

    body: str
    size: int
    sha256: bytes
    content_type: str
    tier: int
    chunking: str
    options: DocumentOptions

    @property
    def memory_content(self) -> str:
        return self.body if self.tier == 0 else build_synopsis(self.body)

    @property
    def chunk_source(self) -> str:
        return self.memory_content if self.tier == 2 else self.body  # T0/T1: the body; T2: synopsis


def prepare(body: str, content_type: str, options: DocumentOptions, *, size: int | None = None,
            sha256: bytes | None = None) -> Prepared:
    ctype = normalise_content_type(content_type)
    size = len(body.encode()) if size is None else size
    tier = classify(size)
    digest = sha256 or hashlib.sha256(body.encode()).digest()
    return Prepared(body=body, size=size, sha256=digest, content_type=ctype, tier=tier,
                    chunking=options.chunking or settings().document_chunking, options=options)


def _insert_chunks(conn: psycopg.Connection, tenant_id: UUID, memory: dict[str, Any],
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


def store(conn: psycopg.Connection, tenant_id: UUID, doc: Prepared) -> tuple[DocumentWritten, list[UUID]]:
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
        chunk_ids = _insert_chunks(conn, tenant_id, row, pieces)
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


def create_document(tenant_id: UUID, req: DocumentCreate) -> DocumentWritten:
    """Inline ingest (POST /v1/documents): up to document_inline_max_bytes, else 413 -> uploads."""
    size = len(req.content.encode())
    limit = settings().document_inline_max_bytes
    if size > HARD_MAX_BYTES:
        raise TooLarge("content", size, HARD_MAX_BYTES, HARD_LIMIT_ALTERNATIVE)
    if size > limit:
        raise TooLarge("content", size, limit,
                       "A synchronous Lambda request carries 6 MB, so inline documents stop at "
                       f"{limit} bytes. {UPLOADS_ALTERNATIVE}")
    options = DocumentOptions.model_validate(req.model_dump(exclude={"content", "content_type"}))
    doc = prepare(req.content, req.content_type, options, size=size)
    with tenant_transaction(tenant_id) as conn:
        written, chunk_ids = store(conn, tenant_id, doc)
    enqueue_embedding(tenant_id, chunk_ids)
    return written
