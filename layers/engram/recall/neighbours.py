"""Graph context on recall results, inside the character budget. Pure: no SQL, no I/O."""

from __future__ import annotations

from engram.recall.models import GraphNeighbour, RecallHit

MIN_SUMMARY_CHARS = 40  # a shorter cut says nothing; the id and relation still say the link exists


def fit_neighbours(hits: list[RecallHit], budget_chars: int | None, used: int) -> int:
    """Cut neighbour summaries to what budget_chars leaves after the results' own text; return the
    characters used in all. Conflicts come first (each result's, in rank order), then linked
    memories: a contradiction is flagged even when no room is left for its text (summary null)."""
    order: list[GraphNeighbour] = [n for h in hits for n in h.conflicts]
    order += [n for h in hits for n in (h.linked or [])]
    for n in order:
        if n.summary is None:
            continue
        if budget_chars is None:
            used += len(n.summary)
            continue
        room = budget_chars - used
        if len(n.summary) <= room:
            used += len(n.summary)
        elif room >= MIN_SUMMARY_CHARS:
            n.summary, n.truncated = n.summary[:room], True
            used += room
        else:
            n.summary, n.truncated = None, True
    return used
