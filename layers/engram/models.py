"""Pydantic models at the edges: what callers send and what they get back."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, field_validator

NAMESPACE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$"
MAX_TAGS = 32

Namespace = Annotated[str, StringConstraints(pattern=NAMESPACE_PATTERN)]
Tag = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[^\s,][^,\n\r\t]*$")]
Kind = Literal["semantic", "episodic", "procedural"]
Layer = Literal["buffer", "working", "core"]
RecallKind = Literal["semantic", "episodic", "procedural", "conversation"]


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


Tags = Annotated[list[Tag], Field(max_length=MAX_TAGS), AfterValidator(_unique)]
Metadata = Annotated[dict[str, Any], Field(max_length=64)]


def storable_text(value: Any) -> Any:
    """PostgreSQL text cannot hold NUL and UTF-8 cannot encode a lone surrogate: refuse both here,
    with the field's name, instead of failing half-way in the database."""
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError("must not contain NUL (\\u0000) characters")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("is not valid Unicode (lone surrogate)") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            storable_text(key)
            storable_text(item)
    elif isinstance(value, list | tuple):
        for item in value:
            storable_text(item)
    return value


class Strict(BaseModel):
    """Unknown fields are an error, not silently dropped: a typo must not lose data. Every string,
    however deep, must be storable."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _storable(cls, value: Any) -> Any:
        return storable_text(value)


class MemoryFields(Strict):
    """What describes a memory, whichever way it arrives (a memory, a document)."""

    namespace: Namespace = "default"
    kind: Kind = "semantic"
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    tags: Tags = Field(default_factory=list)
    source: str | None = Field(default=None, max_length=200)
    metadata: Metadata = Field(default_factory=dict)


class MemoryCreate(MemoryFields):
    content: str = Field(min_length=1, description="The memory text. Larger bodies go to /v1/documents.")
    valid_from: datetime | None = None
    valid_to: datetime | None = None


class MemoryBatchCreate(Strict):
    items: list[dict[str, Any]] = Field(min_length=1, description="Up to 100 MemoryCreate objects")

    @field_validator("*", mode="after")
    @classmethod
    def _storable(cls, value: Any) -> Any:
        return value  # each item is validated on its own, so one bad item fails alone


class MemoryPatch(Strict):
    content: str | None = Field(default=None, min_length=1)
    kind: Kind | None = None
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    tags: Tags | None = None
    source: str | None = Field(default=None, max_length=200)
    metadata: Metadata | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None


class Memory(BaseModel):
    id: UUID
    namespace: str
    kind: Kind
    layer: Layer
    content: str
    importance: float
    tags: list[str]
    source: str | None
    metadata: dict[str, Any]
    access_count: int
    repetition_count: int
    last_accessed: datetime | None
    created_at: datetime
    updated_at: datetime
    valid_from: datetime | None
    valid_to: datetime | None
    status: Literal["active", "deleted"]
    deleted_at: datetime | None
    document_tier: int | None
    version: int
    embedding_status: Literal["pending", "ready"] = "ready"


class MemoryWritten(BaseModel):
    memory: Memory
    deduplicated: bool = Field(description="True when an identical memory existed; its repetition_count grew")


class BatchItemResult(BaseModel):
    index: int
    status: Literal["created", "deduplicated", "error"]
    memory_id: UUID | None = None
    error: dict[str, Any] | None = None


class BatchResult(BaseModel):
    results: list[BatchItemResult]
    created: int
    deduplicated: int
    failed: int


class MemoryPage(BaseModel):
    items: list[Memory]
    next_cursor: str | None


class RecallRequest(Strict):
    query: str = Field(min_length=1, max_length=4000)
    namespace: Namespace | None = None
    namespaces: list[Namespace] | None = Field(default=None, max_length=50)
    tags: Tags | None = Field(default=None, description="Every tag must be present")
    kinds: list[RecallKind] | None = Field(
        default=None, description="Memory kinds and/or 'conversation' (conversation windows); default all")
    conversation_id: UUID | None = Field(default=None, description="Only windows of this conversation")
    layers: list[Layer] | None = None
    source: str | None = Field(default=None, max_length=200)
    since: datetime | None = None
    until: datetime | None = None
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


class KeyCreate(Strict):
    scopes: list[Literal["read", "write", "admin"]] = Field(min_length=1, max_length=3)
    name: str = Field(default="", max_length=200)


class ApiKeyInfo(BaseModel):
    id: UUID
    name: str
    prefix: str = Field(description="egk_<prefix>_...: recognise a key without storing it")
    scopes: list[str]
    created_at: datetime
    revoked_at: datetime | None


class IssuedApiKey(BaseModel):
    key_id: UUID
    api_key: str = Field(description="Shown once; only its hash is stored")
    scopes: list[str]
