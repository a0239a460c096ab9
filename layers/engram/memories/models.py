"""Pydantic models of the memories API: what callers send and what they get back.

The memory record itself (Memory, MemoryFields) lives in engram.core.models: documents write memories too.
"""

from __future__ import annotations

from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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


class MemoryCreate(MemoryFields):
    content: str = Field(min_length=1, description="The memory text. Larger bodies go to /v1/documents.")
    valid_from: Timestamp | None = None
    valid_to: Timestamp | None = None


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

    @field_validator("content", "kind", "importance", "tags", "metadata")
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
