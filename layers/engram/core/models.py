"""The base model and field types every capability's edge models share, and the memory record
itself: memories, documents (and later consolidation) all write and return memories."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, field_validator

from engram.core.text import storable_text

NAMESPACE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$"
MAX_TAGS = 32

Namespace = Annotated[str, StringConstraints(pattern=NAMESPACE_PATTERN)]
Tag = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[^\s,][^,\n\r\t]*$")]
Kind = Literal["semantic", "episodic", "procedural"]
Layer = Literal["buffer", "working", "core"]


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


Tags = Annotated[list[Tag], Field(max_length=MAX_TAGS), AfterValidator(_unique)]
Metadata = Annotated[dict[str, Any], Field(max_length=64)]


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


class NewMemory(BaseModel):
    """A memory to write, already validated by its writer (a memory, a document, a consolidation merge):
    what `memories.service.write_memory` takes."""

    model_config = ConfigDict(frozen=True)

    namespace: str = "default"
    content: str
    kind: Kind = "semantic"
    layer: Layer = "buffer"
    importance: float = 0.5
    tags: list[str] = Field(default_factory=list)
    source: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    document_tier: int | None = None
    # A document's memory holds a synopsis: it dedupes on the content hash of the whole body and is
    # chunked from `chunk_source` (the body or the synopsis) in `chunking` mode.
    content_hash: bytes | None = None
    chunk_source: str | None = None
    chunking: str = "document"  # indexing.chunking.chunk mode: "document" or "focused"


class MemoryWrite(BaseModel):
    """What `write_memory` did: a new row (its chunk ids, to enqueue after commit) or the active
    duplicate it bumped (no chunks)."""

    id: UUID
    inserted: bool
    chunk_ids: list[UUID] = Field(default_factory=list)
