"""The graph's typed rows where a memory's summary and a link share one row: a walk's step, a
supersession chain's step, a conflict. No SQL.

The store selects the summary's columns as `MemorySummary` names them and the link's prefixed
`link_` (`select_list(Link, "l", prefix=LINK_PREFIX)`); `from_columns` splits them again, read
with psycopg's `kwargs_row(RowClass.from_columns)`."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Self
from uuid import UUID

from engram.graph.models import Link, MemorySummary

LINK_PREFIX = "link_"
# The fields the two models fill: a select list leaves them out of a row class's own columns
# (`leave_out=NESTED`), whose names differ from the summary's.
NESTED = ("memory", "link")
# (column, link field) pairs, read once: recall splits every walk row, and pydantic's model_fields
# costs microseconds a look-up.
_LINK_COLUMNS = tuple((LINK_PREFIX + field, field) for field in Link.model_fields)


@dataclass(frozen=True)
class MemoryAndLink:
    """A memory's summary and a link, read from one flat row."""

    memory: MemorySummary
    link: Link

    @classmethod
    def from_columns(cls, **columns: Any) -> Self:
        """The row class of one flat row: the link's columns by their prefix, the summary's by name
        (MemorySummary takes its fields and ignores the others), then the class's own fields."""
        link = Link.model_validate({field: columns[column] for column, field in _LINK_COLUMNS})
        own = {name: columns[name] for name in _own_fields(cls)}
        return cls(memory=MemorySummary.model_validate(columns), link=link, **own)


_OWN_FIELDS: dict[type[MemoryAndLink], tuple[str, ...]] = {}


def _own_fields(row_type: type[MemoryAndLink]) -> tuple[str, ...]:
    """A row class's fields besides the two models (found once per class)."""
    found = _OWN_FIELDS.get(row_type)
    if found is None:
        found = _OWN_FIELDS[row_type] = tuple(f.name for f in fields(row_type) if f.name not in NESTED)
    return found


@dataclass(frozen=True)
class WalkStep(MemoryAndLink):
    """A memory a walk reached: at `depth`, from `parent`, through `link`."""

    depth: int
    node: UUID
    parent: UUID


@dataclass(frozen=True)
class RootedWalkStep(WalkStep):
    """A step of one of several walks done at once, with the memory it started from."""

    root: UUID


@dataclass(frozen=True)
class ChainStep(MemoryAndLink):
    """A memory `steps` supersedes links away along a supersession chain, and the last link."""

    steps: int


@dataclass(frozen=True)
class ConflictRow(MemoryAndLink):
    """A memory linked by `contradicts` to `subject`."""

    subject: UUID
