"""Pydantic models of the memories API: what callers send and what they get back.

The memory record itself (Memory, MemoryFields) lives in engram.core.models: documents write memories too.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from engram.core.models import (
    Importance,
    Kind,
    Memory,
    MemoryFields,
    Metadata,
    Strict,
    Tags,
    Timestamp,
    not_null_in_schema,
)

# A fact's slot ("user.city", "deploy/freeze-day"): letters, digits and . _ : / - , up to 200.
ConflictKey = Annotated[
    str,
    StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$"),
    Field(
        description="The slot this fact fills (user.city): a memory written with a key supersedes the namespace's "
        "current memory with the same key at once (a `supersedes` link; GET /v1/memories/{id}/history shows the "
        "chain). Letters, digits and . _ : / -, up to 200"
    ),
]
CRITICAL_DESCRIPTION = (
    "A fact never to miss: recall, resume, prime and task context return the namespace's critical memories "
    "first, whatever the query, within a reserved share of the budget"
)


class MemoryCreate(MemoryFields):
    content: str = Field(min_length=1, description="The memory text. Larger bodies go to /v1/documents.")
    valid_from: Timestamp | None = None
    valid_to: Timestamp | None = None
    critical: bool = Field(default=False, description=CRITICAL_DESCRIPTION)
    conflict_key: ConflictKey | None = None


class MemoryBatchCreate(Strict):
    items: list[dict[str, Any]] = Field(min_length=1, description="Up to 100 MemoryCreate objects")

    @field_validator("*", mode="after")
    @classmethod
    def _storable(cls, value: Any) -> Any:
        return value  # each item is validated on its own, so one bad item fails alone


class MemoryPatch(Strict):
    """Only the fields given change. `source`, `valid_from` and `valid_to` can be cleared with null;
    the others cannot be null (the document says so: their schema has no null)."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})  # an empty patch is refused: say so

    content: str | None = Field(default=None, min_length=1, json_schema_extra=not_null_in_schema)
    kind: Kind | None = Field(default=None, json_schema_extra=not_null_in_schema)
    importance: Importance | None = Field(default=None, json_schema_extra=not_null_in_schema)
    tags: Tags | None = Field(default=None, json_schema_extra=not_null_in_schema)
    source: str | None = Field(default=None, max_length=200)
    metadata: Metadata | None = Field(default=None, json_schema_extra=not_null_in_schema)
    valid_from: Timestamp | None = None
    valid_to: Timestamp | None = None
    critical: bool | None = Field(default=None, description=CRITICAL_DESCRIPTION, json_schema_extra=not_null_in_schema)
    conflict_key: ConflictKey | None = Field(
        default=None, description="Set: supersedes the namespace's current memory with this key; null: clears it"
    )

    @field_validator("content", "kind", "importance", "tags", "metadata", "critical")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("cannot be null")
        return value

    @model_validator(mode="after")
    def _something_to_change(self) -> MemoryPatch:
        # An error of the whole patch: HTTP names it `body`, an MCP tool its `arguments`.
        if not self.model_fields_set:
            raise ValueError("nothing to change: give at least one field")
        return self


class MemoryWritten(BaseModel):
    memory: Memory
    deduplicated: bool = Field(description="True when an identical memory existed; its repetition_count grew")
    superseded: list[UUID] = Field(
        default_factory=list, description="With conflict_key: the memories this one replaced (their validity ended)"
    )


class BatchItemResult(BaseModel):
    index: int
    status: Literal["created", "deduplicated", "error"]
    memory_id: UUID | None = None
    error: dict[str, Any] | None = None
    superseded: list[UUID] = Field(default_factory=list, description="With conflict_key: the memories it replaced")


class BatchResult(BaseModel):
    results: list[BatchItemResult]
    created: int
    deduplicated: int
    failed: int


class MemoryPage(BaseModel):
    items: list[Memory]
    next_cursor: str | None
