"""Pydantic models of recall: the request and the ranked, budgeted results."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field

from engram.core.models import Layer, Namespace, Strict, Tags, Timestamp, UuidField

RecallKind = Literal["semantic", "episodic", "procedural", "conversation"]


class RecallRequest(Strict):
    query: str = Field(min_length=1, max_length=4000)
    namespace: Namespace | None = None
    namespaces: list[Namespace] | None = Field(default=None, max_length=50)
    tags: Tags | None = Field(default=None, description="Every tag must be present")
    kinds: list[RecallKind] | None = Field(
        default=None, description="Memory kinds and/or 'conversation' (conversation windows); default all")
    conversation_id: UuidField | None = Field(default=None, description="Only windows of this conversation")
    layers: list[Layer] | None = None
    source: str | None = Field(default=None, max_length=200)
    since: Timestamp | None = None
    until: Timestamp | None = None
    limit: int = Field(default=10, ge=1, le=100)
    budget_chars: int | None = Field(default=None, ge=100, le=200_000)
    mode: Literal["hybrid", "vector", "keyword"] = "hybrid"
    diversify: bool = False
    explain: bool = False
    touch: bool = True
    include_expired: bool = Field(default=False, description="Also memories whose valid_to has passed")
    min_score: float | None = Field(default=None, ge=0.0, le=2.0,
                                    description="Drop results scoring below this (the scale of `score`): "
                                                "no filler when little is relevant")


class ScoreParts(BaseModel):
    vector: float | None
    keyword: float | None
    recency: float
    importance: float
    fused: float


class RecalledChunk(BaseModel):
    id: UUID
    text: str
    position: int
    char_start: int
    truncated: bool = Field(default=False, description="Cut to fit budget_chars")
    seq_from: int | None = Field(default=None, description="Conversation windows: first message seq")
    seq_to: int | None = Field(default=None, description="Conversation windows: last message seq")


class RecalledMessage(BaseModel):
    """An original conversation turn, word for word, as a conversation recall result carries it."""

    id: UUID
    seq: int
    role: str
    content: str
    tool_call_id: str | None = None
    tool_name: str | None = None
    created_at: datetime
    metadata: Any = None


class RecallHit(BaseModel):
    type: Literal["memory", "conversation"] = "memory"
    memory_id: UUID | None = Field(default=None, description="Set for memory results")
    conversation_id: UUID | None = Field(default=None, description="Set for conversation results")
    messages: list[RecalledMessage] | None = Field(
        default=None, description="Conversation results: the window's original messages, verbatim")
    namespace: str
    kind: str
    layer: str | None
    tags: list[str]
    importance: float
    source: str | None
    created_at: datetime
    chunk: RecalledChunk
    score: float
    explain: ScoreParts | None = None


class RecallResponse(BaseModel):
    results: list[RecallHit]
    degraded: list[str] = Field(description="Parts of the search that were unavailable, if any")
    budget_chars: int | None = None
    used_chars: int = 0
