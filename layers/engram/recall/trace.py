"""`trace` on recall (seed 002's trace_recall, engram-go's retrieval events): for each memory the caller
expected (an id, or a phrase its text holds), where it went. Its rank in the vector and the keyword list,
each searched to TRACE_DEPTH, or why it was not a candidate (no vector yet, a filter, superseded, in the
trash); its fused rank and score; why it was not returned (min_score, the limit, the budget).

Only a recall that asks pays for it: one more candidate query, as deep as TRACE_DEPTH, and one lookup of
the expected chunks, whatever the filters say (which filter left a chunk out is the answer)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from uuid import UUID

from engram.core.db import Conn
from engram.recall.models import RecallHit, RecallRequest, RecallTrace, TracedItem
from engram.recall.ranking import Candidate
from engram.recall.rows import CandidateRow, TraceTarget
from engram.recall.store import trace_targets

TRACE_DEPTH = 1000  # how far down each list a trace looks (the recall itself takes `candidates_per_list`)
PHRASE_MATCHES = 3  # chunks traced per phrase, newest first


def trace_recall(
    conn: Conn,
    req: RecallRequest,
    deep_rows: Callable[[int], list[CandidateRow]],
    k: int,
    fused: list[Candidate],
    hits: list[RecallHit],
    at: datetime,
    topic_memories: list[UUID] | None,
) -> RecallTrace:
    """deep_rows(depth): the recall's candidate rows with each list searched to `depth`; `fused`: the
    fused order (after rerank or MMR, before min_score and the cut); `hits`: what was returned."""
    assert req.trace is not None
    ids, phrases = _split(req.trace.expected)
    targets = trace_targets(conn, list(ids.values()), phrases, req.query, PHRASE_MATCHES)
    rows = deep_rows(TRACE_DEPTH)
    vector_ranks = _ranks(sorted((r for r in rows if r.sim is not None), key=lambda r: -(r.sim or 0.0)))
    keyword_ranks = _ranks(sorted((r for r in rows if r.rank is not None), key=lambda r: -(r.rank or 0.0)))
    fused_ranks = {c.row.owner: (i + 1, c.score) for i, c in enumerate(fused)}
    returned = {(h.memory_id or h.chunk.id): i + 1 for i, h in enumerate(hits)}
    by_owner: dict[tuple[str, UUID], list[TraceTarget]] = {}
    for t in targets:
        by_owner.setdefault((t.expected, t.owner), []).append(t)
    items: list[TracedItem] = []
    for expected in req.trace.expected:
        key = str(ids[expected]) if expected in ids else expected
        chunks = [(owner, found) for (e, owner), found in by_owner.items() if e == key]
        if not chunks:
            items.append(TracedItem(expected=expected, reasons=["not_found"]))
        for owner, found in chunks:
            item = _item(expected, found, vector_ranks, keyword_ranks, k)
            item.fused_rank, item.score = fused_ranks.get(owner, (None, None))
            item.rank = returned.get(owner)
            item.returned = item.rank is not None
            filtered = _filtered(req, found[0], at, topic_memories)
            if item.returned:
                item.reasons = []
            elif filtered:
                item.reasons = filtered
            elif item.candidate:
                item.reasons = _not_returned(req, item)
            items.append(item)
    return RecallTrace(candidates_per_list=k, depth=TRACE_DEPTH, items=items)


def _split(expected: list[str]) -> tuple[dict[str, UUID], list[str]]:
    """The expected entries that are memory ids (as given -> id), and the phrases."""
    ids: dict[str, UUID] = {}
    phrases: list[str] = []
    for e in expected:
        try:
            ids[e] = UUID(e)
        except ValueError:
            phrases.append(e)
    return ids, phrases


def _ranks(ordered: list[CandidateRow]) -> dict[UUID, int]:
    """Each chunk's 1-based place in a list, and each memory's best place among its chunks."""
    ranks: dict[UUID, int] = {}
    for i, r in enumerate(ordered):
        ranks.setdefault(r.chunk_id, i + 1)
        ranks.setdefault(r.owner, i + 1)
    return ranks


def _item(
    expected: str, found: list[TraceTarget], vector_ranks: dict[UUID, int], keyword_ranks: dict[UUID, int], k: int
) -> TracedItem:
    """Its ranks in both lists (its best chunk) and, when it was in neither list's candidates, why not."""
    first = found[0]
    owner = first.owner
    vector, keyword = vector_ranks.get(owner), keyword_ranks.get(owner)
    best = min(found, key=lambda f: min(vector_ranks.get(f.chunk_id, 10**9), keyword_ranks.get(f.chunk_id, 10**9)))
    item = TracedItem(
        expected=expected,
        memory_id=first.memory_id,
        conversation_id=first.conversation_id,
        chunk_id=best.chunk_id,
        vector_rank=vector,
        keyword_rank=keyword,
        candidate=(vector is not None and vector <= k) or (keyword is not None and keyword <= k),
    )
    if not item.candidate:
        reasons = []
        if all(f.pending for f in found):
            reasons.append("no_vector_yet")
        elif vector is not None:
            reasons.append("vector_rank_beyond_candidates")
        if not any(f.keyword_match for f in found):
            reasons.append("no_keyword_match")
        elif keyword is not None:
            reasons.append("keyword_rank_beyond_candidates")
        item.reasons = reasons
    return item


def _filtered(req: RecallRequest, t: TraceTarget, at: datetime, topic_memories: list[UUID] | None) -> list[str]:
    """Which of recall's conditions leave this chunk out (none: it was searchable)."""
    reasons: list[str] = []
    if t.status == "deleted" or not t.active:
        reasons.append("in_trash")
    elif t.memory_id is not None:
        if t.valid_to is not None and t.valid_to <= at and not req.include_expired:
            reasons.append("superseded" if t.superseded else "expired")
        if (t.valid_from or t.created_at or t.occurred_at) > at:  # a memory always has created_at
            reasons.append("not_valid_yet")
    namespaces = [*(req.namespaces or []), *([req.namespace] if req.namespace else [])]
    checks = [
        ("filtered_by_namespace", bool(namespaces) and t.namespace not in namespaces),
        ("filtered_by_tag", bool(req.tags) and not set(req.tags or []) <= set(t.tags)),
        ("filtered_by_kind", bool(req.kinds) and t.kind not in (req.kinds or [])),
        ("filtered_by_source", req.source is not None and t.source != req.source),
        ("filtered_by_layer", bool(req.layers) and t.layer not in (req.layers or [])),
        ("filtered_by_conversation", req.conversation_id is not None and t.conversation_id != req.conversation_id),
        ("filtered_by_topic", topic_memories is not None and t.memory_id not in topic_memories),
        (
            "filtered_by_time",
            (req.since is not None and t.occurred_at < req.since)
            or (req.until is not None and t.occurred_at >= req.until),
        ),
    ]
    return reasons + [name for name, applies in checks if applies]


def _not_returned(req: RecallRequest, item: TracedItem) -> list[str]:
    """Why a candidate is not among the results."""
    if item.fused_rank is None or item.score is None:
        return ["cut_by_rerank_or_diversify"]
    if req.min_score is not None and item.score < req.min_score:
        return ["below_min_score"]
    return ["past_limit"] if item.fused_rank > req.limit else ["past_budget"]
