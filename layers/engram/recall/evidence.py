"""Why do we believe this? A derived memory's evidence turns, beside it in a recall's results, inside
the budget: the turns extraction learned it from, verbatim, cost their characters like any text."""

from __future__ import annotations

from engram.core.db import Conn
from engram.memories.service import evidence_turns
from engram.recall.models import RecallHit


def attach_evidence(conn: Conn, hits: list[RecallHit], budget_chars: int | None, used: int) -> int:
    """Each derived memory's evidence turns, in rank order. Within a budget, a derived memory's turns
    come before the results ranked below it: the lowest results leave `hits` to make room (a memory
    without its evidence is the weaker answer). Returns the characters used."""
    derived = [h for h in hits if h.memory_id is not None and h.source == "extraction"]
    if not derived:
        return used
    found = evidence_turns(conn, [h.memory_id for h in derived if h.memory_id is not None])
    for h in derived:
        turns = found.get(h.memory_id, []) if h.memory_id is not None else []
        cost = sum(len(t.content) for t in turns)
        if not turns or not any(kept is h for kept in hits):  # none, or left to make room above
            continue
        if budget_chars is not None:
            while used + cost > budget_chars and hits[-1] is not h:
                used -= len(hits.pop().chunk.text)
            if used + cost > budget_chars:
                continue
        h.evidence = turns
        used += cost
    return used
