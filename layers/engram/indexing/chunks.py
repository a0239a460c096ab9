"""The one chunk store: every chunk (of a memory, a document or a conversation window) is written here.

All chunks of one owner, or of a whole batch of owners, go in one statement (unnest of arrays):
thousands of rows in one round trip. COPY would be faster still but COPY FROM is refused on tables
with row-level security.
Chunks are written with NULL embeddings; the caller enqueues the returned ids after commit.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

from engram.core.db import Conn


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


@dataclass(frozen=True, slots=True)
class NewChunk:
    position: int
    char_start: int
    text: str
    occurred_at: datetime
    seq_from: int | None = None  # conversation windows: the messages the chunk covers
    seq_to: int | None = None
    # Words the keyword index holds beside the text at the lowest weight (conversation turns: their
    # neighbours, engram.conversations.windows.neighbour_context); never returned.
    context: str | None = None


# Every column is a per-row array, so one statement holds the chunks of many owners. Tags are an
# array per owner, and unnest cannot carry an array of arrays: each row slices its owner's tags out of
# one flat array instead (a slice with lower > upper is the empty array).
_INSERT = (
    "INSERT INTO chunks (id, tenant_id, memory_id, conversation_id, namespace, kind, tags, source,"
    " position, char_start, text, occurred_at, seq_from, seq_to, context)"
    " SELECT u.id, %s, u.memory_id, u.conversation_id, u.namespace, u.kind, (%s::text[])[u.tags_lo:u.tags_hi],"
    " u.source, u.position, u.char_start, u.text, u.occurred_at, u.seq_from, u.seq_to, u.context"
    " FROM unnest(%s::uuid[], %s::uuid[], %s::uuid[], %s::text[], %s::text[], %s::int[], %s::int[], %s::text[],"
    " %s::int[], %s::int[], %s::text[], %s::timestamptz[], %s::int[], %s::int[], %s::text[])"
    " AS u(id, memory_id, conversation_id, namespace, kind, tags_lo, tags_hi, source, position, char_start, text,"
    " occurred_at, seq_from, seq_to, context)"
)


def insert_chunks(conn: Conn, tenant_id: UUID, owner: ChunkOwner, chunks: Sequence[NewChunk]) -> list[UUID]:
    """Insert the chunks of one owner; return their ids in the order given."""
    return insert_chunk_groups(conn, tenant_id, [(owner, chunks)])[0]


def insert_chunk_groups(
    conn: Conn, tenant_id: UUID, groups: Sequence[tuple[ChunkOwner, Sequence[NewChunk]]]
) -> list[list[UUID]]:
    """Insert the chunks of several owners (a batch of memories) in one statement; return their ids,
    per group, in the order given."""
    ids = [[uuid.uuid4() for _ in chunks] for _, chunks in groups]
    rows = [(owner, chunk) for owner, chunks in groups for chunk in chunks]
    if not rows:
        return ids
    tags: list[str] = []
    tag_spans: list[tuple[int, int]] = []  # 1-based, inclusive: the owner's slice of `tags`
    for owner, _ in groups:
        tag_spans.append((len(tags) + 1, len(tags) + len(owner.tags)))
        tags.extend(owner.tags)
    spans = [span for (_, chunks), span in zip(groups, tag_spans, strict=True) for _chunk in chunks]
    windows = any(c.seq_from is not None for _, c in rows)
    conn.execute(
        _INSERT,
        (
            tenant_id,
            tags,
            [i for group in ids for i in group],
            [o.memory_id for o, _ in rows],
            [o.conversation_id for o, _ in rows],
            [o.namespace for o, _ in rows],
            [o.kind for o, _ in rows],
            [lo for lo, _ in spans],
            [hi for _, hi in spans],
            [o.source for o, _ in rows],
            [c.position for _, c in rows],
            [c.char_start for _, c in rows],
            [c.text for _, c in rows],
            [c.occurred_at for _, c in rows],
            # unnest pads a NULL array with NULLs: no per-row list when no chunk is a window
            [c.seq_from for _, c in rows] if windows else None,
            [c.seq_to for _, c in rows] if windows else None,
            [c.context for _, c in rows] if windows else None,
        ),
    )
    return ids
