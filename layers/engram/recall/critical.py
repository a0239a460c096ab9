"""Critical facts in recall (seed 002's critical slots): the critical memories of the namespaces a recall
reads come first, whatever the query, so an agent never misses them. Its other filters (tags, kinds,
time, validity) still apply: a fact filtered out is not one the caller asked about."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg import sql

from engram.core.config import settings
from engram.core.db import Conn
from engram.recall.models import RecallRequest
from engram.recall.ranking import Candidate, recency_score
from engram.recall.store import critical_rows


def pin_critical(
    conn: Conn,
    req: RecallRequest,
    where: sql.Composable,
    params: dict[str, Any],
    ranked: list[Candidate],
    now: datetime,
) -> tuple[list[Candidate], list[Candidate]]:
    """(the critical facts, most important first; the ranked candidates without them). A critical fact the
    search found keeps its best chunk and its score; one it did not is its first chunk, scored 0."""
    most = settings().recall_critical_max
    if not req.critical or most == 0:
        return [], ranked
    rows = critical_rows(conn, where, params, most)
    if not rows:
        return [], ranked
    found = {c.row["memory_id"]: c for c in ranked if c.row["memory_id"] is not None}
    pinned = [found.get(r["memory_id"]) or Candidate(row=r, recency=recency_score(r["occurred_at"], now)) for r in rows]
    ids = {r["memory_id"] for r in rows}
    return pinned, [c for c in ranked if c.row["memory_id"] not in ids]
