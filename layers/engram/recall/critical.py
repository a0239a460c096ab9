"""Critical facts in recall (seed 002's critical slots): the critical memories of the namespaces a recall
reads come first, whatever the query, so an agent never misses them. Its other filters (tags, kinds,
time, validity) still apply: a fact filtered out is not one the caller asked about."""

from __future__ import annotations

from datetime import datetime

from engram.recall.ranking import Candidate, recency_score
from engram.recall.rows import CandidateRow


def pin_critical(
    critical_rows: list[CandidateRow], ranked: list[Candidate], now: datetime
) -> tuple[list[Candidate], list[Candidate]]:
    """(the critical facts, most important first; the ranked candidates without them). `critical_rows`:
    what the candidate query found (engram.recall.store), in order. A critical fact the search found keeps
    its best chunk and its score; one it did not is its first chunk, scored 0."""
    if not critical_rows:
        return [], ranked
    found = {c.row.memory_id: c for c in ranked if c.row.memory_id is not None}
    pinned = [found.get(r.owner) or Candidate(row=r, recency=recency_score(r.occurred_at, now)) for r in critical_rows]
    ids = {r.memory_id for r in critical_rows}
    return pinned, [c for c in ranked if c.row.memory_id not in ids]
