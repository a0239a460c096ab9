"""Pure graph logic: paths from a breadth-first walk, the supersedes validity rule, walk rows to nodes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest

from engram.graph.rows import WalkStep
from engram.graph.shaping import paths_from_parents, superseded_valid_to, traversal_nodes

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def test_paths_follow_the_memory_each_was_reached_from():
    root, a, b, c = uuid4(), uuid4(), uuid4(), uuid4()
    paths = paths_from_parents(root, [(a, root), (b, root), (c, a)])
    assert paths[a] == [root, a]
    assert paths[c] == [root, a, c]
    assert paths[root] == [root]


def test_a_memory_keeps_its_first_and_shortest_path():
    root, a, b = uuid4(), uuid4(), uuid4()
    paths = paths_from_parents(root, [(a, root), (b, a), (b, root)])
    assert paths[b] == [root, a, b]


def test_a_parent_not_reached_before_its_child_is_an_error():
    with pytest.raises(ValueError, match="not reached before"):
        paths_from_parents(uuid4(), [(uuid4(), uuid4())])


def test_superseded_memory_stops_being_valid_when_the_newer_starts():
    assert superseded_valid_to(None, None, T0) == T0
    assert superseded_valid_to(T0 - timedelta(days=9), None, T0) == T0


def test_supersession_never_extends_an_earlier_end():
    assert superseded_valid_to(None, T0 - timedelta(days=1), T0) is None
    assert superseded_valid_to(None, T0, T0) is None
    assert superseded_valid_to(None, T0 + timedelta(days=1), T0) == T0


def test_supersession_never_ends_before_the_older_memory_began():
    later = T0 + timedelta(days=5)
    assert superseded_valid_to(later, None, T0) == later


def _row(depth: int, node: UUID, parent: UUID) -> WalkStep:
    """A walk's row as the store reads it: flat, the link's columns prefixed link_."""
    link = {
        "id": uuid4(),
        "from_id": parent,
        "to_id": node,
        "relation": "relates_to",
        "strength": 1.0,
        "valid_from": T0,
        "valid_to": None,
        "metadata": {},
        "created_by": "api",
        "run_id": None,
        "created_at": T0,
        "ended_at": None,
        "ended_reason": None,
    }
    columns: dict[str, Any] = {
        "depth": depth,
        "node": node,
        "parent": parent,
        "id": node,
        "namespace": "default",
        "kind": "semantic",
        "summary": "x",
        "truncated": False,
        "tags": [],
        "importance": 0.5,
        "created_at": T0,
        "valid_from": None,
        "valid_to": None,
        **{f"link_{k}": v for k, v in link.items()},
    }
    return WalkStep.from_columns(**columns)


def test_walk_rows_become_nodes_cut_at_the_limit():
    root, a, b, c = uuid4(), uuid4(), uuid4(), uuid4()
    rows = [_row(1, a, root), _row(1, b, root), _row(2, c, a)]
    nodes, truncated = traversal_nodes(root, rows, limit=2)
    assert truncated
    assert [n.memory.id for n in nodes] == [a, b]
    assert nodes[0].via.to_id == a and nodes[0].path == [root, a]
    nodes, truncated = traversal_nodes(root, rows, limit=3)
    assert not truncated and nodes[2].path == [root, a, c] and nodes[2].depth == 2


def test_a_walk_row_splits_into_its_memory_and_its_link():
    root, a = uuid4(), uuid4()
    step = _row(1, a, root)
    assert step.memory.id == a and step.link.from_id == root and step.link.to_id == a
    assert step.memory.created_at == T0 and step.link.relation == "relates_to"
