"""Edge models of erasure: what to erase (a selector), and the report of what was erased (counts and
ids, never content)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field, model_validator

from engram.core.models import Metadata, Namespace, Strict, Tags, Timestamp, UuidField

Cascade = Literal["erase", "none"]
CASCADE_DESCRIPTION = (
    "Memories consolidation derived from an erased one (merges, distillations: they may repeat its words). "
    "`erase` (default): erased too, and the other memories they were derived from become current again, so "
    "the next consolidation run derives anew without the erased text. `none`: kept as they are (listed in "
    "ids.derived_kept); only when you know their text does not hold what you erase."
)


class Selector(Strict):
    """What a subject erasure covers: every given field must match (AND). At least one of namespace, tags,
    metadata or conversation_id is required; since/until only narrow."""

    namespace: Namespace | None = Field(default=None, description="Memories and conversations of this namespace")
    tags: Tags | None = Field(default=None, description="Memories and conversations carrying all these tags")
    metadata: Metadata | None = Field(
        default=None,
        description='Memories and conversations whose metadata contains this (JSON containment: {"user_id": "u-42"})',
    )
    conversation_id: UuidField | None = Field(default=None, description="This conversation, with its messages")
    since: Timestamp | None = Field(default=None, description="Created at or after")
    until: Timestamp | None = Field(default=None, description="Created before; later than since when both are given")

    @model_validator(mode="after")
    def _narrow(self) -> Selector:
        if self.namespace is None and not self.tags and not self.metadata and self.conversation_id is None:
            raise ValueError("give at least one of namespace, tags, metadata or conversation_id")
        if self.since and self.until and self.until <= self.since:
            raise ValueError("until must be later than since")
        return self


class ErasureCreate(Strict):
    selector: Selector
    dry_run: bool = Field(default=False, description="Count and list what would be erased; erase nothing")
    cascade: Cascade = Field(default="erase", description=CASCADE_DESCRIPTION)


class ErasureCounts(BaseModel):
    memories: int = Field(default=0, description="Memories erased (derived ones included)")
    derived: int = Field(default=0, description="Of those, erased because derived from another (cascade)")
    derived_kept: int = Field(default=0, description="Derived memories kept (cascade none)")
    versions: int = Field(default=0, description="Earlier versions (history) of the erased memories")
    chunks: int = Field(default=0, description="Chunks and their vectors (memory chunks and conversation windows)")
    links: int = Field(default=0)
    documents: int = Field(default=0, description="Tier 2 bodies")
    document_pages: int = Field(default=0)
    uploads: int = Field(default=0, description="Upload records (and their S3 objects, if any are left)")
    conversations: int = Field(default=0)
    messages: int = Field(default=0)
    consolidation_actions: int = Field(
        default=0, description="Consolidation actions whose before-image, reason or details lost the erased text"
    )
    extraction_actions: int = Field(
        default=0,
        description="Extraction actions, summaries and pushed texts of runs that held an erased memory's words, "
        "dropped (the runs stay, without them)",
    )
    idempotent_answers: int = Field(default=0, description="Stored Idempotency-Key answers that held an erased item")
    topics_renamed: int = Field(default=0, description="Topics renamed without the erased memories' words")
    topics_removed: int = Field(default=0, description="Leaves left without members, removed")
    exports: int = Field(default=0, description="Export files that may hold an erased item, deleted")


class ErasedIds(BaseModel):
    memories: list[UUID] = Field(default_factory=list)
    derived: list[UUID] = Field(default_factory=list, description="Erased because derived (also in memories)")
    derived_kept: list[UUID] = Field(default_factory=list)
    conversations: list[UUID] = Field(default_factory=list)
    consolidation_runs: list[UUID] = Field(
        default_factory=list, description="Runs whose undo can no longer restore the erased memories"
    )
    exports: list[UUID] = Field(default_factory=list)


Scope = Literal["memory", "subject", "trash", "tenant"]


class Erasure(BaseModel):
    """An erasure's audit record: it outlives what it erased, and never holds content."""

    id: UUID
    scope: Scope
    status: Literal["queued", "running", "done", "failed"]
    dry_run: bool
    cascade: Cascade
    selector: dict[str, Any] = Field(description="What was asked: the selector, the memory id, or the tenant")
    counts: ErasureCounts
    ids: ErasedIds
    namespaces: list[str] | None = Field(
        default=None,
        description="Namespaces of what it erased; null: the tenant's erasure, or a record older than this field",
    )
    actor: Literal["api", "mcp", "schedule", "cli"]
    key_id: UUID | None = Field(description="The API key that asked (None: the schedule, the CLI, MCP)")
    error: str | None = None
    created_at: datetime
    finished_at: datetime | None


class TenantErase(Strict):
    confirm: UuidField = Field(description="This tenant's id, repeated: the erasure cannot be undone")
