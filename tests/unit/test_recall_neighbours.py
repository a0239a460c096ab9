"""Graph context on recall results: summaries fit the character budget."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

from engram.recall.models import GraphNeighbour, RecalledChunk, RecallHit
from engram.recall.neighbours import MIN_SUMMARY_CHARS, fit_neighbours

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _neighbour(summary: str, relation: str = "relates_to") -> GraphNeighbour:
    mid = uuid4()
    return GraphNeighbour(
        memory_id=mid,
        relation=relation,
        direction="out",
        depth=1,
        path=[uuid4(), mid],
        link_id=uuid4(),
        strength=1.0,
        namespace="default",
        kind="semantic",
        created_at=NOW,
        summary=summary,
        truncated=False,
    )


def _hit(text: str, conflicts: list[GraphNeighbour], linked: list[GraphNeighbour] | None) -> RecallHit:
    return RecallHit(
        memory_id=uuid4(),
        namespace="default",
        kind="semantic",
        layer="buffer",
        tags=[],
        importance=0.5,
        source=None,
        created_at=NOW,
        score=1.0,
        conflicts=conflicts,
        linked=linked,
        chunk=RecalledChunk(id=uuid4(), text=text, position=0, char_start=0),
    )


def test_without_a_budget_every_summary_is_kept_and_counted():
    hits = [_hit("x" * 10, [_neighbour("c" * 30, "contradicts")], [_neighbour("l" * 20)])]
    assert fit_neighbours(hits, None, 10) == 60
    assert hits[0].linked[0].summary == "l" * 20  # type: ignore[index]


def test_conflicts_are_served_before_links_and_every_flag_stays():
    first = _hit("a" * 50, [], [_neighbour("l" * 100)])
    second = _hit("b" * 50, [_neighbour("c" * 80, "contradicts")], [_neighbour("m" * 10)])
    used = fit_neighbours([first, second], 240, 100)
    assert second.conflicts[0].summary == "c" * 80  # the later result's conflict beats the earlier's link
    link = first.linked[0]  # type: ignore[index]
    assert link.summary == "l" * 60 and link.truncated  # cut to the 60 characters left
    assert second.linked[0].summary is None and second.linked[0].truncated  # type: ignore[index]
    assert used == 240


def test_a_sliver_of_room_gives_no_summary_but_keeps_the_flag():
    hit = _hit("a" * 10, [_neighbour("c" * 100, "contradicts")], None)
    used = fit_neighbours([hit], 10 + MIN_SUMMARY_CHARS - 1, 10)
    assert used == 10 and hit.conflicts[0].summary is None and hit.conflicts[0].relation == "contradicts"
