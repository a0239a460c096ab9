"""Pydantic models of the memories API: what callers send and what they get back.

The memory record itself (Memory, MemoryFields) lives in engram.core.models: documents write memories too.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field, field_validator

from engram.core.models import Kind, Memory, MemoryFields, Metadata, Strict, Tags


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
