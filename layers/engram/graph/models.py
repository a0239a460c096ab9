"""Pydantic models of the graph API: links, traversal and history."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import AfterValidator, BaseModel, Field, field_validator

from engram.core.models import Kind, Metadata, Relation, StoredImportance, Strict, Timestamp, UuidField

Direction = Literal["out", "in", "both"]
CreatedBy = Literal["api", "consolidation"]
EndedReason = Literal["link_deleted", "memory_deleted"]

MAX_DEPTH = 5
MAX_NODES = 500
SUMMARY_CHARS = 280

# Stored as `real`: rounded so that what is read back equals what was written.
Strength = Annotated[
    float, Field(ge=0.0, le=1.0, description="0..1, rounded to 6 decimal places"), AfterValidator(lambda v: round(v, 6))
]


class LinkCreate(Strict):
    """A typed, directed edge: `from_id` <relation> `to_id` ("A supersedes B": from A, to B)."""

    from_id: UuidField
    to_id: UuidField
    relation: Relation
    strength: Strength = 1.0
    valid_from: Timestamp | None = Field(default=None, description="When the relation starts to hold; default now")
    valid_to: Timestamp | None = Field(
        default=None, description="When it stops holding (exclusive), later than valid_from; default never"
    )
    metadata: Metadata = Field(default_factory=dict)


class LinkBatchCreate(Strict):
    items: list[dict[str, Any]] = Field(min_length=1, description="Up to 100 LinkCreate objects")

    @field_validator("*", mode="after")
    @classmethod
    def _storable(cls, value: Any) -> Any:
        return value  # each item is validated on its own, so one bad item fails alone


class Link(BaseModel):
    id: UUID
    from_id: UUID
    to_id: UUID
    relation: Relation
    strength: float
    valid_from: datetime
    valid_to: datetime | None
    metadata: dict[str, Any]
    created_by: CreatedBy
    run_id: UUID | None
    created_at: datetime
    ended_at: datetime | None = Field(default=None, description="Set when the link was ended early")
    ended_reason: EndedReason | None = None


class LinkBatchItemResult(BaseModel):
    index: int
    status: Literal["created", "error"]
    link: Link | None = None
    error: dict[str, Any] | None = None


class LinkBatchResult(BaseModel):
    results: list[LinkBatchItemResult]
    created: int
    failed: int


class LinkPage(BaseModel):
    items: list[Link]
    next_cursor: str | None


class MemorySummary(BaseModel):
    """A memory as the graph shows it: its fields and the start of its content."""

    id: UUID
    namespace: str
    kind: Kind
    summary: str = Field(description=f"The first {SUMMARY_CHARS} characters of the content")
    truncated: bool = Field(description="The content is longer than the summary")
    tags: list[str]
    importance: StoredImportance
    created_at: datetime
    valid_from: datetime | None
    valid_to: datetime | None


class TraversalNode(BaseModel):
    memory: MemorySummary
    depth: int
    path: list[UUID] = Field(description="Memory ids from the start memory to this one")
    via: Link = Field(description="The link that reached this memory")


class Traversal(BaseModel):
    root: MemorySummary
    nodes: list[TraversalNode] = Field(description="Breadth first: nearest first, each memory once")
    truncated: bool = Field(description="The node limit cut the walk short")
    as_of: datetime


class MemoryVersion(BaseModel):
    version: int
    content: str
    kind: Kind
    importance: StoredImportance
    tags: list[str]
    source: str | None
    metadata: dict[str, Any]
    valid_from: datetime | None
    valid_to: datetime | None
    changed_at: datetime | None = Field(description="When this version was replaced; null for the current one")


class ChainLink(BaseModel):
    memory: MemorySummary
    link: Link


class MemoryHistory(BaseModel):
    memory_id: UUID
    versions: list[MemoryVersion] = Field(description="Every version, oldest first; the last is the current one")
    supersedes: list[ChainLink] = Field(description="What this memory replaced, transitively, oldest first")
    superseded_by: list[ChainLink] = Field(description="What replaced this memory, transitively, oldest first")
