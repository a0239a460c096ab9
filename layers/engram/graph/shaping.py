"""Pure graph logic: paths from a breadth-first walk, the supersedes validity rule, and rows
into edge models. No SQL, no I/O."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any
from uuid import UUID

from engram.graph.models import Link, MemorySummary, TraversalNode

LINK_FIELDS = (
    "id",
    "from_id",
    "to_id",
    "relation",
    "strength",
    "valid_from",
    "valid_to",
    "metadata",
    "created_by",
    "run_id",
    "created_at",
    "ended_at",
    "ended_reason",
)


def paths_from_parents(root: UUID, reached: Iterable[tuple[UUID, UUID]]) -> dict[UUID, list[UUID]]:
    """Each memory's path from the root, given (memory, reached from) pairs nearest first: a
    breadth-first walk reaches a memory's parent at a smaller depth, so its path is known already."""
    paths: dict[UUID, list[UUID]] = {root: [root]}
    for node, parent in reached:
        if parent not in paths:
            raise ValueError(f"memory {node} was reached from {parent}, which was not reached before it")
        paths.setdefault(node, [*paths[parent], node])
    return paths


def superseded_valid_to(
    older_valid_from: datetime | None, older_valid_to: datetime | None, newer_starts: datetime
) -> datetime | None:
    """The older memory's valid_to once a newer one supersedes it, or None when it is unchanged.

    It stops being valid when the newer one starts; never later than it already ended, and never
    before its own valid_from (an empty validity rather than a negative one).
    """
    new = newer_starts
    if older_valid_from is not None and new < older_valid_from:
        new = older_valid_from
    if older_valid_to is not None and older_valid_to <= new:
        return None
    return new


def link_from_row(row: dict[str, Any], prefix: str = "") -> Link:
    return Link.model_validate({f: row[prefix + f] for f in LINK_FIELDS})


def summary_from_row(row: dict[str, Any]) -> MemorySummary:
    return MemorySummary.model_validate(row)


def traversal_nodes(root: UUID, rows: Iterable[dict[str, Any]], limit: int) -> tuple[list[TraversalNode], bool]:
    """Walk rows (nearest first) into nodes with their paths; at most `limit`, and whether more existed."""
    rows = list(rows)
    truncated = len(rows) > limit
    rows = rows[:limit]
    paths = paths_from_parents(root, [(r["node"], r["parent"]) for r in rows])
    nodes = [
        TraversalNode(
            memory=summary_from_row(r), depth=r["depth"], path=paths[r["node"]], via=link_from_row(r, "link_")
        )
        for r in rows
    ]
    return nodes, truncated
