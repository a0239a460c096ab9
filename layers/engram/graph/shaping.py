"""Pure graph logic: paths from a breadth-first walk, the supersedes validity rule, and rows
into edge models. No SQL, no I/O."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from uuid import UUID

from engram.graph.models import TraversalNode
from engram.graph.rows import WalkStep


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


def traversal_nodes(root: UUID, steps: Iterable[WalkStep], limit: int) -> tuple[list[TraversalNode], bool]:
    """A walk's steps (nearest first) into nodes with their paths; at most `limit`, and whether more existed."""
    steps = list(steps)
    truncated = len(steps) > limit
    steps = steps[:limit]
    paths = paths_from_parents(root, [(s.node, s.parent) for s in steps])
    nodes = [TraversalNode(memory=s.memory, depth=s.depth, path=paths[s.node], via=s.link) for s in steps]
    return nodes, truncated
