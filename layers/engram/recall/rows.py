"""What recall reads back: one candidate row class, declared once. engram.recall.candidate_store derives
the candidate statement's SELECT list from it (engram.core.select_lists), and ranking, shaping and trace
read its fields by name as attributes. Pure: no SQL."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID


@dataclass(slots=True)
class CandidateRow:
    """A chunk found by the vector or the keyword list (or a critical memory's first chunk). A chunk
    belongs to a memory or to a conversation (chunks_one_owner): a conversation window takes a memory's
    fields as their equivalents (neutral importance, no layer, created_at the window's last turn)."""

    chunk_id: UUID
    memory_id: UUID | None
    conversation_id: UUID | None
    seq_from: int | None
    seq_to: int | None
    text: str
    position: int
    char_start: int
    occurred_at: datetime
    sim: float | None  # the vector list's score (cosine, plus the neighbours' share for a turn)
    rank: float | None  # the keyword list's score
    namespace: str
    kind: str
    layer: str | None
    tags: list[str]
    importance: float
    source: str | None
    created_at: datetime
    last_accessed: datetime | None
    feedback_weight: float | None  # feedback's stored weight of this result, not yet decayed
    feedback_updated_at: datetime | None
    session_total: float | None  # a turn's session's sum of the query words' weights (ranking.rank_sessions)
    critical_rank: int | None  # a critical memory's place (1 first); None for every found candidate

    @property
    def owner(self) -> UUID:
        """What a result stands for: its memory, or a conversation window's own chunk."""
        return self.memory_id or self.chunk_id


@dataclass(slots=True)
class TraceTarget:
    """A chunk a trace expected (an expected memory's, or one holding an expected phrase), read whatever
    recall's filters say: trace names the filter, the state or the list that left it out."""

    expected: str  # the memory id as text, or the phrase
    chunk_id: UUID
    memory_id: UUID | None
    conversation_id: UUID | None
    namespace: str
    kind: str
    tags: list[str]
    source: str | None
    occurred_at: datetime
    active: bool
    pending: bool  # no vector yet
    status: str | None  # its memory's (None: a conversation window)
    layer: str | None
    valid_from: datetime | None
    valid_to: datetime | None
    created_at: datetime | None
    superseded: bool  # a live supersedes link replaced its memory
    keyword_match: bool  # it holds a query word

    @property
    def owner(self) -> UUID:
        return self.memory_id or self.chunk_id
