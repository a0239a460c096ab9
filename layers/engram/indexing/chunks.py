"""The one chunk store: every chunk (of a memory, a document or a conversation window) is written here.

All chunks of one owner go in one statement (unnest of arrays): thousands of rows in one round
trip. COPY would be faster still but COPY FROM is refused on tables with row-level security.
Chunks are written with NULL embeddings; the caller enqueues the returned ids after commit.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg


@dataclass(frozen=True, slots=True)
class ChunkOwner:
    """What every chunk of one memory or one conversation shares (copied onto chunks so recall filters
    them without a join)."""

    namespace: str
    kind: str
    tags: list[str] = field(default_factory=list)
    source: str | None = None
    memory_id: UUID | None = None
    conversation_id: UUID | None = None

    @classmethod
    def of_memory(cls, row: Mapping[str, Any]) -> ChunkOwner:
        """From a memories row holding id, namespace, kind, tags and source."""
        return cls(namespace=row["namespace"], kind=row["kind"], tags=row["tags"], source=row["source"],
                   memory_id=row["id"])


@dataclass(frozen=True, slots=True)
class NewChunk:
    position: int
    char_start: int
    text: str
    occurred_at: datetime
    seq_from: int | None = None  # conversation windows: the messages the chunk covers
    seq_to: int | None = None


_INSERT = (
    "INSERT INTO chunks (id, tenant_id, memory_id, conversation_id, namespace, kind, tags, source,"
    " position, char_start, text, occurred_at, seq_from, seq_to)"
    " SELECT u.id, %s, %s, %s, %s, %s, %s, %s, u.position, u.char_start, u.text, u.occurred_at, u.seq_from, u.seq_to"
    " FROM unnest(%s::uuid[], %s::int[], %s::int[], %s::text[], %s::timestamptz[], %s::int[], %s::int[])"
    " AS u(id, position, char_start, text, occurred_at, seq_from, seq_to)"
)


def insert_chunks(conn: psycopg.Connection[Any], tenant_id: UUID, owner: ChunkOwner,
                  chunks: Sequence[NewChunk]) -> list[UUID]:
    """Insert the chunks of one owner in one statement; return their ids in the order given."""
    if not chunks:
        return []
    ids = [uuid.uuid4() for _ in chunks]
    windows = any(c.seq_from is not None for c in chunks)
    conn.execute(
        _INSERT,
        (tenant_id, owner.memory_id, owner.conversation_id, owner.namespace, owner.kind, owner.tags, owner.source,
         ids, [c.position for c in chunks], [c.char_start for c in chunks], [c.text for c in chunks],
         [c.occurred_at for c in chunks],
         # unnest pads a NULL array with NULLs: no per-row list when no chunk is a window
         [c.seq_from for c in chunks] if windows else None, [c.seq_to for c in chunks] if windows else None),
    )
    return ids
