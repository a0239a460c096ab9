"""Why do we believe this? A derived memory's evidence turns, beside it in a recall's results, inside
the budget: the turns extraction learned it from, verbatim, cost their characters like any text."""

from __future__ import annotations

from engram.core.db import Conn
from engram.memories.service import evidence_turns
from engram.recall.models import RecallHit


def attach_evidence(conn: Conn, hits: list[RecallHit], budget_chars: int | None, used: int) -> int:
    """Each derived memory's evidence turns, in rank order while the budget has room for a whole
    turn; returns the characters used with them."""
    derived = [h for h in hits if h.memory_id is not None and h.source == "extraction"]
    if not derived:
        return used
    found = evidence_turns(conn, [h.memory_id for h in derived if h.memory_id is not None])
    for h in derived:
        kept = []
        for turn in found.get(h.memory_id, []) if h.memory_id is not None else []:
            if budget_chars is not None and used + len(turn.content) > budget_chars:
                break
            kept.append(turn)
            used += len(turn.content)
        if kept:
            h.evidence = kept
    return used
