"""The graph's typed rows where a memory's summary and a link share one row: a walk's step, a
supersession chain's step, a conflict. No SQL.

The store selects the summary's columns as `MemorySummary` names them and the link's prefixed
`link_` (`select_list(Link, "l", prefix=LINK_PREFIX)`); the row class splits them again, so
`class_row` reads the row straight into its two models."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from pydantic import BaseModel, model_validator

from engram.graph.models import Link, MemorySummary

LINK_PREFIX = "link_"
# The fields the two models fill: a select list leaves them out of a row class's own columns
# (`leave_out=NESTED`), whose names differ from the summary's.
NESTED = ("memory", "link")


class MemoryAndLink(BaseModel):
    """A memory's summary and a link, read from one flat row."""

    memory: MemorySummary
    link: Link

    @model_validator(mode="before")
    @classmethod
    def _split_columns(cls, columns: Any) -> Any:
        if not isinstance(columns, dict) or "memory" in columns:
            return columns
        link = {k.removeprefix(LINK_PREFIX): v for k, v in columns.items() if k.startswith(LINK_PREFIX)}
        memory = {k: v for k, v in columns.items() if k in MemorySummary.model_fields}
        own = {k: v for k, v in columns.items() if k in cls.model_fields and k not in NESTED}
        return {**own, "memory": memory, "link": link}


class WalkStep(MemoryAndLink):
    """A memory a walk reached: at `depth`, from `parent`, through `link`."""

    depth: int
    node: UUID
    parent: UUID


class RootedWalkStep(WalkStep):
    """A step of one of several walks done at once, with the memory it started from."""

    root: UUID


class ChainStep(MemoryAndLink):
    """A memory `steps` supersedes links away along a supersession chain, and the last link."""

    steps: int


class ConflictRow(MemoryAndLink):
    """A memory linked by `contradicts` to `subject`."""

    subject: UUID
